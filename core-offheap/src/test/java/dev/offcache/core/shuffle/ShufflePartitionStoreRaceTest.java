package dev.offcache.core.shuffle;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.core.region.MappedRegion;

import static java.nio.ByteOrder.LITTLE_ENDIAN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A writer keeps replacing a few partitions (and aborting some attempts) while a reader keeps opening them; every
 * partition is self-describing (its first long is its length, every later long is derived from its generation and
 * index), so a reader that ever saw a partial or mixed file would fail the check.
 */
class ShufflePartitionStoreRaceTest
{
    private static final long RUN_NANOS = TimeUnit.MILLISECONDS.toNanos(1500);
    private static final int PARTITIONS = 3;

    @TempDir
    Path workDir;

    @Test
    @Timeout(30)
    void aReaderRacingAWriterNeverSeesAPartialFile() throws InterruptedException
    {
        final long liveBefore = MappedRegion.liveMappings();
        final ShufflePartitionStore store = new ShufflePartitionStore(workDir, PinSet.NONE);
        final AtomicBoolean running = new AtomicBoolean(true);
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final AtomicLong commits = new AtomicLong();
        final AtomicLong reads = new AtomicLong();
        final AtomicLong notYet = new AtomicLong();

        final Thread writer = new Thread(() ->
        {
            final UnsafeBuffer chunk = new UnsafeBuffer(new byte[8 * 1024]);
            long generation = 0;
            try
            {
                while (running.get())
                {
                    generation++;
                    final PartitionId id = new PartitionId("race", 0, (int) (generation % PARTITIONS));
                    final int longs = 1 + (int) ((generation * 7919) % 40_000);
                    try (PartitionWriter out = store.openWriter(id))
                    {
                        chunk.putLong(0, longs, LITTLE_ENDIAN);
                        int written = 1;
                        int inChunk = 1;
                        while (written < longs)
                        {
                            chunk.putLong(inChunk * 8, expected(generation, written), LITTLE_ENDIAN);
                            written++;
                            inChunk++;
                            if (inChunk * 8 == chunk.capacity())
                            {
                                out.write(chunk, 0, inChunk * 8);
                                inChunk = 0;
                            }
                        }
                        out.write(chunk, 0, inChunk * 8);
                        chunk.putLong(0, generation, LITTLE_ENDIAN);
                        if (generation % 5 == 0)
                        {
                            out.abort();
                        }
                        else
                        {
                            out.commit();
                            commits.incrementAndGet();
                        }
                    }
                }
            }
            catch (final Throwable t)
            {
                failure.compareAndSet(null, t);
            }
        }, "shuffle-writer");

        final Thread reader = new Thread(() ->
        {
            final UnsafeBuffer view = new UnsafeBuffer(0, 0);
            int next = 0;
            try
            {
                while (running.get())
                {
                    final PartitionId id = new PartitionId("race", 0, next++ % PARTITIONS);
                    final MappedPartition partition;
                    try
                    {
                        partition = store.openPartition(id);
                    }
                    catch (final PartitionNotFoundException ex)
                    {
                        notYet.incrementAndGet();
                        continue;
                    }
                    try (partition)
                    {
                        checkWhole(partition, view);
                        reads.incrementAndGet();
                    }
                }
            }
            catch (final Throwable t)
            {
                failure.compareAndSet(null, t);
            }
        }, "shuffle-reader");

        writer.start();
        reader.start();
        final long deadline = System.nanoTime() + RUN_NANOS;
        while (System.nanoTime() < deadline && failure.get() == null)
        {
            Thread.sleep(10);
        }
        running.set(false);
        writer.join(10_000);
        reader.join(10_000);

        assertNull(failure.get(), () -> "race failed: " + failure.get());
        assertTrue(commits.get() > 10, "writer committed " + commits.get());
        assertTrue(reads.get() > 10, "reader read " + reads.get() + " (not yet there: " + notYet.get() + ")");
        assertEquals(PARTITIONS, store.list().size());
        assertEquals(liveBefore, MappedRegion.liveMappings(), "a mapping leaked");
    }

    private static long expected(final long generation, final int index)
    {
        return generation * 1_000_003L + index;
    }

    private static void checkWhole(final MappedPartition partition, final UnsafeBuffer view)
    {
        partition.verify();
        partition.wrap(view, 0, (int) partition.length());
        final long longs = view.getLong(0, LITTLE_ENDIAN);
        if (partition.length() != longs * 8)
        {
            throw new AssertionError("partition " + partition.id() + " holds " + partition.length() +
                " bytes but says it has " + longs + " longs");
        }
        if (longs > 1)
        {
            final long generation = (view.getLong(8, LITTLE_ENDIAN) - 1) / 1_000_003L;
            for (int i = 1; i < longs; i++)
            {
                final long value = view.getLong(i * 8, LITTLE_ENDIAN);
                if (value != expected(generation, i))
                {
                    throw new AssertionError("partition " + partition.id() + " long " + i + " is " + value +
                        ", expected " + expected(generation, i) + " (generation " + generation + ")");
                }
            }
        }
    }
}
