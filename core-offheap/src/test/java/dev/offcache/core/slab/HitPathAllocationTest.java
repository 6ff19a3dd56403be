package dev.offcache.core.slab;

import java.lang.management.ManagementFactory;

import dev.offcache.core.checksum.Crc32c;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The read path of a cache hit (tryRetain, buffer, read, release; CRC32C of an off-heap block; a copy without a
 * reference) allocates nothing.
 */
class HitPathAllocationTest
{
    private static final int ITERATIONS = 200_000;
    // Room for the measuring calls themselves; one allocation per iteration would be megabytes.
    private static final long ALLOWANCE_BYTES = 16 * 1024;

    @Test
    void retainReadReleaseAndCrcDoNotAllocate()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assertTrue(threads.isThreadAllocatedMemorySupported());
        threads.setThreadAllocatedMemoryEnabled(true);

        try (BlockSlab slab = BlockSlab.anonymous(4096, 4096))
        {
            final BlockRef ref = slab.tryAllocate();
            ref.buffer().putLong(0, 7L);
            ref.length(4096);

            final UnsafeBuffer destination = new UnsafeBuffer(new byte[64]);
            long sum = hitLoop(ref, destination, ITERATIONS);
            final long threadId = Thread.currentThread().getId();
            final long before = threads.getThreadAllocatedBytes(threadId);
            sum += hitLoop(ref, destination, ITERATIONS);
            final long allocated = threads.getThreadAllocatedBytes(threadId) - before;

            assertEquals(2L * ITERATIONS * 14L, sum - crcPart(ref) * 2L * ITERATIONS);
            assertEquals(2L * ITERATIONS, slab.optimisticCopies());
            assertTrue(allocated < ALLOWANCE_BYTES, "hit path allocated " + allocated + " bytes");
            assertEquals(1, ref.refCount());
            ref.release();
        }
    }

    private static long crcPart(final BlockRef ref)
    {
        return Crc32c.compute(ref.buffer(), 0, 64);
    }

    private static long hitLoop(final BlockRef ref, final UnsafeBuffer destination, final int iterations)
    {
        long sum = 0;
        for (int i = 0; i < iterations; i++)
        {
            if (ref.tryRetain())
            {
                final DirectBuffer buffer = ref.buffer();
                sum += buffer.getLong(0);
                sum += Crc32c.compute(buffer, 0, 64);
                ref.release();
            }
            if (ref.tryCopy(0, destination, 0, 64))
            {
                sum += destination.getLong(0);
            }
        }
        return sum;
    }
}
