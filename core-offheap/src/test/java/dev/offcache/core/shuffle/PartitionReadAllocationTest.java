package dev.offcache.core.shuffle;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Reading an open partition (retain, wrap a view, read, release) allocates nothing.
 */
class PartitionReadAllocationTest
{
    private static final int ITERATIONS = 200_000;
    private static final long ALLOWANCE_BYTES = 16 * 1024;

    @TempDir
    Path workDir;

    @Test
    void retainWrapReadReleaseDoNotAllocate()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assertTrue(threads.isThreadAllocatedMemorySupported());
        threads.setThreadAllocatedMemoryEnabled(true);

        final ShufflePartitionStore store = new ShufflePartitionStore(workDir, PinSet.NONE);
        final PartitionId id = new PartitionId("alloc", 0, 0);
        final UnsafeBuffer data = new UnsafeBuffer(new byte[4096]);
        for (int i = 0; i < 4096; i += 8)
        {
            data.putLong(i, i);
        }
        try (PartitionWriter writer = store.openWriter(id))
        {
            writer.write(data, 0, 4096);
            writer.commit();
        }
        try (MappedPartition partition = store.openPartition(id))
        {
            final UnsafeBuffer view = new UnsafeBuffer(0, 0);
            long sum = readLoop(partition, view, ITERATIONS);
            final long threadId = Thread.currentThread().getId();
            final long before = threads.getThreadAllocatedBytes(threadId);
            sum += readLoop(partition, view, ITERATIONS);
            final long allocated = threads.getThreadAllocatedBytes(threadId) - before;

            assertTrue(allocated < ALLOWANCE_BYTES, "read path allocated " + allocated + " bytes");
            long perIteration = 0;
            for (int i = 0; i < 4096; i += 512)
            {
                perIteration += i;
            }
            assertEquals(2L * ITERATIONS * perIteration, sum);
        }
    }

    private static long readLoop(final MappedPartition partition, final UnsafeBuffer view, final int iterations)
    {
        long sum = 0;
        for (int i = 0; i < iterations; i++)
        {
            if (partition.tryRetain())
            {
                partition.wrap(view, 0, 4096);
                for (int offset = 0; offset < 4096; offset += 512)
                {
                    sum += view.getLong(offset);
                }
                partition.release();
            }
        }
        return sum;
    }
}
