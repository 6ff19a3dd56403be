package dev.offcache.core.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.Size;
import org.agrona.concurrent.UnsafeBuffer;

import dev.offcache.core.region.MappedRegion;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Random sequences of appends, rolls, reopens, segment deletions and torn tails against a list of the records
 * that must be there: after every step the journal holds exactly the model's records, at the model's positions.
 */
class JournalProperties
{
    private static final int SEGMENT = 4096;

    sealed interface Op permits Append, Roll, Reopen, DeleteBefore, TearLast
    {
    }

    record Append(int length) implements Op
    {
    }

    record Roll() implements Op
    {
    }

    record Reopen() implements Op
    {
    }

    record DeleteBefore(int recordIndexPercent) implements Op
    {
    }

    record TearLast(int keepBytes) implements Op
    {
    }

    record Entry(long position, byte[] payload)
    {
    }

    @Provide
    Arbitrary<Op> ops()
    {
        return Arbitraries.frequencyOf(
            Tuple.of(10, Arbitraries.integers().between(0, 1500).map(Append::new)),
            Tuple.of(1, Arbitraries.just(new Roll())),
            Tuple.of(2, Arbitraries.just(new Reopen())),
            Tuple.of(1, Arbitraries.integers().between(0, 100).map(DeleteBefore::new)),
            Tuple.of(2, Arbitraries.integers().between(0, 7).map(TearLast::new)));
    }

    @Property(tries = 40)
    void journalHoldsExactlyTheModelsRecords(@ForAll @Size(max = 30) final List<@From("ops") Op> ops)
        throws IOException
    {
        final long liveBefore = MappedRegion.liveMappings();
        final Path dir = Files.createTempDirectory("journal-property");
        final List<Entry> model = new ArrayList<>();
        int counter = 0;
        Journal journal = open(dir);
        try
        {
            for (final Op op : ops)
            {
                if (op instanceof Append append)
                {
                    final byte[] payload = new byte[append.length()];
                    for (int i = 0; i < payload.length; i++)
                    {
                        payload[i] = (byte) (counter * 31 + i);
                    }
                    counter++;
                    model.add(new Entry(journal.append(new UnsafeBuffer(payload), 0, payload.length), payload));
                }
                else if (op instanceof Roll)
                {
                    journal.roll();
                }
                else if (op instanceof Reopen)
                {
                    journal.close();
                    journal = open(dir);
                }
                else if (op instanceof DeleteBefore delete && !model.isEmpty())
                {
                    final long position = model.get((model.size() - 1) * delete.recordIndexPercent() / 100).position();
                    journal.deleteSegmentsBefore(position);
                    final long start = journal.startPosition();
                    model.removeIf(entry -> entry.position() < start);
                    assertTrue(start <= position);
                }
                else if (op instanceof TearLast tear && !model.isEmpty())
                {
                    final List<Path> segments = journal.segmentFiles();
                    final Path last = segments.get(segments.size() - 1);
                    final long base = JournalFormat.parseSegmentFileName(last.getFileName().toString());
                    final Entry victim = model.get(model.size() - 1);
                    journal.close();
                    if (victim.position() >= base)
                    {
                        // A crash mid-append: only the first few bytes of the last frame reached the file.
                        final long frameStart = victim.position() - base;
                        final long from = frameStart + tear.keepBytes();
                        final long frameEnd = frameStart + JournalFormat.FRAME_HEADER_LENGTH + victim.payload().length;
                        try (FileChannel channel = FileChannel.open(
                            last, StandardOpenOption.READ, StandardOpenOption.WRITE))
                        {
                            final ByteBuffer lost = ByteBuffer.allocate((int) (frameEnd - from));
                            channel.read(lost, from);
                            channel.write(ByteBuffer.allocate((int) (SEGMENT - from)), from);
                            if (!isAllZero(lost.array()))
                            {
                                model.remove(model.size() - 1);
                            }
                        }
                    }
                    journal = open(dir);
                }
                assertMatches(model, journal);
            }
        }
        finally
        {
            journal.close();
            try (Stream<Path> files = Files.walk(dir))
            {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        assertEquals(liveBefore, MappedRegion.liveMappings(), "a mapping leaked");
    }

    /**
     * A record whose zeroed bytes were zeros already (an empty payload's high length bytes) survives intact.
     */
    private static boolean isAllZero(final byte[] bytes)
    {
        for (final byte b : bytes)
        {
            if (b != 0)
            {
                return false;
            }
        }
        return true;
    }

    private static Journal open(final Path dir)
    {
        return Journal.open(new Journal.Context().directory(dir).segmentSize(SEGMENT));
    }

    private static void assertMatches(final List<Entry> model, final Journal journal)
    {
        final List<Entry> actual = new ArrayList<>();
        journal.forEach((buffer, offset, length, position) ->
        {
            final byte[] bytes = new byte[length];
            buffer.getBytes(offset, bytes);
            actual.add(new Entry(position, bytes));
        });
        assertEquals(model.size(), actual.size(), "record count");
        for (int i = 0; i < model.size(); i++)
        {
            assertEquals(model.get(i).position(), actual.get(i).position(), "position of record " + i);
            assertArrayEquals(model.get(i).payload(), actual.get(i).payload(), "payload of record " + i);
        }
        if (!model.isEmpty())
        {
            assertTrue(journal.appendPosition() > model.get(model.size() - 1).position());
        }
    }
}
