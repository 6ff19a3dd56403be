package dev.offcache.core.crash;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.core.journal.Journal;
import dev.offcache.core.region.MappedRegion;
import dev.offcache.core.shuffle.MappedPartition;
import dev.offcache.core.shuffle.PartitionId;
import dev.offcache.core.shuffle.PartitionWriter;
import dev.offcache.core.shuffle.PinSet;
import dev.offcache.core.shuffle.ShufflePartitionStore;
import dev.offcache.testkit.jvm.ChildJvm;

import static java.nio.ByteOrder.LITTLE_ENDIAN;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Real crashes: a child JVM appends to a journal or writes shuffle partitions and is killed with SIGKILL in the
 * middle of its work. Afterwards every record or partition it acknowledged is there and intact, nothing partial is
 * visible, and the journal or store opens without complaint.
 */
class KilledProcessTest
{
    private static final int SEGMENT = 64 * 1024;

    @TempDir
    Path dir;

    static byte[] payload(final int index)
    {
        final byte[] bytes = new byte[(index * 131) % 2000];
        for (int i = 0; i < bytes.length; i++)
        {
            bytes[i] = (byte) (index * 7 + i);
        }
        return bytes;
    }

    /**
     * Child: appends records forever, printing "index position" after each append returns (forcing every 16th).
     */
    public static final class JournalAppender
    {
        public static void main(final String[] args)
        {
            final PrintStream out = System.out;
            try (Journal journal = Journal.open(new Journal.Context().directory(Path.of(args[0])).segmentSize(SEGMENT)))
            {
                for (int i = 0; ; i++)
                {
                    final byte[] payload = payload(i);
                    final long position = journal.append(new UnsafeBuffer(payload), 0, payload.length);
                    if (i % 16 == 0)
                    {
                        journal.force();
                    }
                    out.println(i + " " + position);
                    out.flush();
                }
            }
        }
    }

    @Test
    @Timeout(120)
    void aJournalKilledMidAppendKeepsEveryAcknowledgedRecord() throws Exception
    {
        final List<String> acked = ChildJvm.runAndKill(
            List.of("-Xmx64m"), JournalAppender.class, lines -> lines.size() >= 3000, 10, 60_000, dir.toString());
        final Map<Integer, Long> positions = new HashMap<>();
        for (final String line : acked)
        {
            final String[] parts = line.split(" ");
            positions.put(Integer.parseInt(parts[0]), Long.parseLong(parts[1]));
        }
        final int lastAcked = acked.size() - 1;
        assertTrue(lastAcked >= 2999, "acknowledged " + acked.size());

        final long liveBefore = MappedRegion.liveMappings();
        final List<byte[]> payloads = new ArrayList<>();
        final List<Long> recordPositions = new ArrayList<>();
        try (Journal journal = Journal.open(new Journal.Context().directory(dir).segmentSize(SEGMENT)))
        {
            journal.forEach((buffer, offset, length, position) ->
            {
                final byte[] bytes = new byte[length];
                buffer.getBytes(offset, bytes);
                payloads.add(bytes);
                recordPositions.add(position);
            });
            assertTrue(journal.segmentCount() > 10, "segments: " + journal.segmentCount());
        }
        assertEquals(liveBefore, MappedRegion.liveMappings());
        // A process crash keeps what reached the shared mapping: every acknowledged record, and at most the one
        // record the child was appending when it died.
        assertTrue(payloads.size() == lastAcked + 1 || payloads.size() == lastAcked + 2,
            "recovered " + payloads.size() + " records, acknowledged " + (lastAcked + 1));
        for (int i = 0; i < payloads.size(); i++)
        {
            assertArrayEquals(payload(i), payloads.get(i), "record " + i);
            if (positions.containsKey(i))
            {
                assertEquals(positions.get(i), recordPositions.get(i), "position of record " + i);
            }
        }
    }

    private static final int PARTITION_LONGS = 512 * 1024;

    /**
     * Child: commits 4 MiB self-describing partitions forever, printing each partition id after its commit.
     */
    public static final class PartitionWriterChild
    {
        public static void main(final String[] args)
        {
            final ShufflePartitionStore store = new ShufflePartitionStore(Path.of(args[0]), PinSet.NONE);
            final UnsafeBuffer chunk = new UnsafeBuffer(new byte[64 * 1024]);
            for (int p = 0; ; p++)
            {
                try (PartitionWriter writer = store.openWriter(new PartitionId("crash", p % 3, p)))
                {
                    for (int written = 0; written < PARTITION_LONGS; )
                    {
                        final int longs = Math.min(chunk.capacity() / 8, PARTITION_LONGS - written);
                        for (int i = 0; i < longs; i++)
                        {
                            chunk.putLong(i * 8, (long) p * PARTITION_LONGS + written + i, LITTLE_ENDIAN);
                        }
                        writer.write(chunk, 0, longs * 8);
                        written += longs;
                    }
                    writer.commit();
                }
                System.out.println(p);
                System.out.flush();
            }
        }
    }

    @Test
    @Timeout(120)
    void aShuffleWriterKilledMidWriteLeavesOnlyWholePartitions() throws Exception
    {
        final List<String> acked = ChildJvm.runAndKill(
            List.of("-Xmx64m"), PartitionWriterChild.class, lines -> lines.size() >= 6, 5, 60_000, dir.toString());
        final int lastAcked = Integer.parseInt(acked.get(acked.size() - 1));

        final long tempsLeft = countTempFiles();
        assertTrue(tempsLeft <= 1, "temp files left by the crash: " + tempsLeft);

        final long liveBefore = MappedRegion.liveMappings();
        final ShufflePartitionStore store = new ShufflePartitionStore(dir, PinSet.NONE);
        final List<PartitionId> listed = store.list();
        assertTrue(listed.size() == lastAcked + 1 || listed.size() == lastAcked + 2,
            "listed " + listed.size() + ", acknowledged " + (lastAcked + 1));
        for (final PartitionId id : listed)
        {
            try (MappedPartition partition = store.openPartition(id))
            {
                partition.verify();
                assertEquals(PARTITION_LONGS * 8L, partition.length());
                final UnsafeBuffer view = new UnsafeBuffer(0, 0);
                partition.wrap(view, 0, (int) partition.length());
                final long first = (long) id.partitionId() * PARTITION_LONGS;
                assertEquals(first, view.getLong(0, LITTLE_ENDIAN));
                assertEquals(first + PARTITION_LONGS - 1, view.getLong(view.capacity() - 8, LITTLE_ENDIAN));
            }
        }
        assertEquals(0, countTempFiles(), "the crashed writer's temp file is gone after a restart");
        assertEquals(liveBefore, MappedRegion.liveMappings());
    }

    private long countTempFiles() throws IOException
    {
        try (Stream<Path> files = Files.walk(dir))
        {
            return files.filter(p -> p.getFileName().toString().endsWith(".tmp")).count();
        }
    }
}
