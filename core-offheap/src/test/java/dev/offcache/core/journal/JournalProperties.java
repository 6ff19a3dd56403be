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
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Random sequences of appends, forces, rolls, reopens, segment deletions, crashes with a torn last record, and
 * external damage (the newest segment deleted, the last segment cut), against a list of the records that must be
 * there and the position below which the journal had acknowledged them. After every step the journal holds exactly
 * the model's records at the model's positions; a crash's torn record is dropped when it lies past the acknowledged
 * position and refused (with {@link JournalCorruptException}) when it does not; external damage is always refused.
 */
class JournalProperties
{
    private static final int SEGMENT = 4096;

    sealed interface Op permits Append, Force, Roll, Reopen, DeleteBefore, CrashAndTear, DeleteNewest, CutTail
    {
    }

    record Append(int length) implements Op
    {
    }

    record Force() implements Op
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

    record CrashAndTear(int keepBytes) implements Op
    {
    }

    record DeleteNewest() implements Op
    {
    }

    record CutTail(int percent) implements Op
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
            Tuple.of(3, Arbitraries.just(new Force())),
            Tuple.of(1, Arbitraries.just(new Roll())),
            Tuple.of(2, Arbitraries.just(new Reopen())),
            Tuple.of(1, Arbitraries.integers().between(0, 100).map(DeleteBefore::new)),
            Tuple.of(3, Arbitraries.integers().between(0, 7).map(CrashAndTear::new)),
            Tuple.of(1, Arbitraries.just(new DeleteNewest())),
            Tuple.of(1, Arbitraries.integers().between(0, 99).map(CutTail::new)));
    }

    @Property(tries = 40)
    void journalHoldsExactlyTheModelsRecords(@ForAll @Size(max = 30) final List<@From("ops") Op> ops)
        throws IOException
    {
        final long liveBefore = MappedRegion.liveMappings();
        final Path root = Files.createTempDirectory("journal-property");
        final Path dir = root.resolve("journal");
        final Model model = new Model();
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
                    final long before = journal.appendPosition();
                    final long position = journal.append(new UnsafeBuffer(payload), 0, payload.length);
                    model.records.add(new Entry(position, payload));
                    if (base(position) != base(before - 1))
                    {
                        model.rolledTo(base(position));
                    }
                }
                else if (op instanceof Force)
                {
                    journal.force();
                    model.forced(journal.appendPosition());
                }
                else if (op instanceof Roll)
                {
                    final int segments = journal.segmentCount();
                    journal.roll();
                    if (journal.segmentCount() != segments)
                    {
                        model.rolledTo(base(journal.appendPosition()));
                    }
                }
                else if (op instanceof Reopen)
                {
                    journal.close();
                    journal = open(dir);
                    model.everythingAcknowledged(journal.appendPosition());
                }
                else if (op instanceof DeleteBefore delete && !model.records.isEmpty())
                {
                    final long position = model.records.get((model.records.size() - 1) *
                        delete.recordIndexPercent() / 100).position();
                    journal.deleteSegmentsBefore(position);
                    final long start = journal.startPosition();
                    model.records.removeIf(entry -> entry.position() < start);
                    assertTrue(start <= position);
                }
                else if (op instanceof CrashAndTear tear)
                {
                    journal = crashAndTear(journal, dir, root, tear.keepBytes(), model);
                }
                else if (op instanceof DeleteNewest)
                {
                    journal = refusedThenRestored(journal, dir, root, model, (last, image) -> Files.delete(last));
                }
                else if (op instanceof CutTail cut)
                {
                    journal = refusedThenRestored(journal, dir, root, model, (last, image) ->
                    {
                        try (FileChannel channel = FileChannel.open(last, StandardOpenOption.WRITE))
                        {
                            channel.truncate(JournalFormat.HEADER_LENGTH +
                                (long) (SEGMENT - JournalFormat.HEADER_LENGTH) * cut.percent() / 100);
                        }
                    });
                }
                assertMatches(model.records, journal);
            }
        }
        finally
        {
            journal.close();
            try (Stream<Path> files = Files.walk(root))
            {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        assertEquals(liveBefore, MappedRegion.liveMappings(), "a mapping leaked");
    }

    /**
     * A crash: the files as they are now (the journal still open) replace the journal's directory; then, when the
     * newest record lies in the last segment, its bytes from {@code keepBytes} on are zeroed (torn mid-append). A
     * torn record past the acknowledged position is dropped; one before it is refused, and the untorn image opens.
     */
    private static Journal crashAndTear(
        final Journal journal, final Path dir, final Path root, final int keepBytes, final Model model)
        throws IOException
    {
        final List<Path> segments = journal.segmentFiles();
        final Path last = segments.get(segments.size() - 1);
        final long base = JournalFormat.parseSegmentFileName(last.getFileName().toString());
        final Path image = copyOf(dir, root.resolve("image"));
        journal.close();
        replace(dir, image);
        final Entry victim = model.records.isEmpty() ? null : model.records.get(model.records.size() - 1);
        if (victim == null || victim.position() < base)
        {
            final Journal reopened = open(dir);
            model.recovered(reopened.appendPosition());
            return reopened;
        }
        final Path untorn = copyOf(dir, root.resolve("untorn"));
        final long frameStart = victim.position() - base;
        final long from = frameStart + keepBytes;
        final long frameEnd = frameStart + JournalFormat.FRAME_HEADER_LENGTH + victim.payload().length;
        final boolean changed;
        try (FileChannel channel = FileChannel.open(last, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            final ByteBuffer lost = ByteBuffer.allocate((int) (frameEnd - from));
            channel.read(lost, from);
            channel.write(ByteBuffer.allocate((int) (SEGMENT - from)), from);
            changed = !isAllZero(lost.array());
        }
        if (changed && victim.position() < model.acknowledgedEnd)
        {
            assertThrows(JournalCorruptException.class, () -> open(dir), "an acknowledged record was torn");
            replace(dir, untorn);
        }
        else
        {
            if (changed)
            {
                model.records.remove(model.records.size() - 1);
            }
            deleteRecursively(untorn);
        }
        final Journal reopened = open(dir);
        model.recovered(reopened.appendPosition());
        return reopened;
    }

    /**
     * Damage from outside after a clean close, which must always be refused; the undamaged files are put back and
     * opened.
     */
    private static Journal refusedThenRestored(
        final Journal journal, final Path dir, final Path root, final Model model, final Damage damage)
        throws IOException
    {
        final List<Path> segments = journal.segmentFiles();
        journal.close();
        final Path saved = copyOf(dir, root.resolve("saved"));
        damage.apply(segments.get(segments.size() - 1), saved);
        final JournalCorruptException refused = assertThrows(JournalCorruptException.class, () -> open(dir));
        assertTrue(refused.getMessage().contains(segments.get(segments.size() - 1).getFileName().toString()) ||
            refused.getMessage().contains("every segment file is missing"), refused.getMessage());
        replace(dir, saved);
        final Journal reopened = open(dir);
        model.everythingAcknowledged(reopened.appendPosition());
        return reopened;
    }

    @FunctionalInterface
    interface Damage
    {
        void apply(Path lastSegment, Path savedCopy) throws IOException;
    }

    /**
     * What must be there, and how far the journal had acknowledged it (records before {@code acknowledgedEnd}
     * survive any crash, so losing them is damage).
     */
    private static final class Model
    {
        final List<Entry> records = new ArrayList<>();
        long acknowledgedEnd;

        void forced(final long appendPosition)
        {
            // a force checkpoints what it made durable, once it is
            acknowledgedEnd = Math.max(acknowledgedEnd, appendPosition);
        }

        void rolledTo(final long newBase)
        {
            // the segment left behind is sealed at its end: everything before the new segment is acknowledged
            acknowledgedEnd = Math.max(acknowledgedEnd, newBase);
        }

        void everythingAcknowledged(final long appendPosition)
        {
            acknowledgedEnd = appendPosition;
        }

        void recovered(final long appendPosition)
        {
            // recovery forces what it kept and checkpoints it
            acknowledgedEnd = Math.max(acknowledgedEnd, appendPosition);
        }
    }

    private static long base(final long position)
    {
        return position - position % SEGMENT;
    }

    private static Path copyOf(final Path dir, final Path target) throws IOException
    {
        deleteRecursively(target);
        Files.createDirectories(target);
        try (Stream<Path> files = Files.list(dir))
        {
            for (final Path file : files.toList())
            {
                Files.copy(file, target.resolve(file.getFileName()));
            }
        }
        return target;
    }

    private static void replace(final Path dir, final Path with) throws IOException
    {
        deleteRecursively(dir);
        Files.move(with, dir);
    }

    private static void deleteRecursively(final Path dir) throws IOException
    {
        if (Files.exists(dir))
        {
            try (Stream<Path> files = Files.walk(dir))
            {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
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
