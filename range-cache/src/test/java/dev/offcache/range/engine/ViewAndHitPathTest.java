package dev.offcache.range.engine;

import java.lang.management.ManagementFactory;
import java.util.Arrays;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import dev.offcache.core.slab.BlockRef;
import dev.offcache.range.metrics.MetricNames;
import dev.offcache.range.testing.EngineFixture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Zero-copy views of cached blocks, and the hit path's allocation (none).
 */
class ViewAndHitPathTest
{
    private static final int BLOCK = 4096;

    @Test
    void viewFetchesOnMissThenServesTheStoredSlot()
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 16L * BLOCK, (b) -> b))
        {
            final byte[] data = f.object("v", 3 * BLOCK + 10, 1);
            final BlockRef cold = f.cache.readView("v", BLOCK + 100, 200);
            assertNotNull(cold);
            final byte[] got = new byte[200];
            try
            {
                cold.buffer().getBytes(100, got);
            }
            finally
            {
                cold.release();
            }
            assertArrayEquals(Arrays.copyOfRange(data, BLOCK + 100, BLOCK + 300), got);
            assertEquals(1, f.origin.gets());

            final BlockRef warm = f.cache.readView("v", 3 * BLOCK, 10);
            assertNotNull(warm);
            assertEquals(10, warm.length(), "the last block is short");
            warm.release();
            final BlockRef again = f.cache.readView("v", BLOCK, BLOCK);
            assertNotNull(again);
            again.release();
            assertEquals(2, f.origin.gets());

            final IllegalArgumentException spanning = assertThrows(IllegalArgumentException.class,
                () -> f.cache.readView("v", BLOCK - 1, 2));
            assertTrue(spanning.getMessage().contains("more than one block"), spanning.getMessage());
        }
    }

    @Test
    void passThroughHasNoViews()
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 0, (b) -> b))
        {
            f.object("p", BLOCK, 2);
            assertNull(f.cache.readView("p", 0, 10));
        }
    }

    @Test
    void hitPathAllocatesNothing()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (EngineFixture f = new EngineFixture(BLOCK, 64L * BLOCK, (b) -> b))
        {
            final byte[] data = f.object("hot", 8 * BLOCK, 3);
            final UnsafeBuffer into = new UnsafeBuffer(new byte[2 * BLOCK]);
            f.cache.read("hot", 0, new UnsafeBuffer(new byte[8 * BLOCK]), 0, 8 * BLOCK);
            for (int i = 0; i < 20_000; i++)
            {
                f.cache.read("hot", (i * 517L) % (6 * BLOCK), into, 0, 2 * BLOCK);
                final BlockRef ref = f.cache.readView("hot", (i % 8) * (long) BLOCK, 64);
                ref.release();
            }
            final long tid = Thread.currentThread().getId();
            final long before = threads.getThreadAllocatedBytes(tid);
            for (int i = 0; i < 20_000; i++)
            {
                f.cache.read("hot", (i * 517L) % (6 * BLOCK), into, 0, 2 * BLOCK);
                final BlockRef ref = f.cache.readView("hot", (i % 8) * (long) BLOCK, 64);
                ref.release();
            }
            final long allocated = threads.getThreadAllocatedBytes(tid) - before;
            // An allocation per hit would be at least 16 bytes x 40 000; allow rare background bookkeeping
            // (Caffeine maintenance, JIT) but less than one byte per hit.
            assertTrue(allocated < 40_000, "40k hits allocated " + allocated + " bytes");
            assertEquals(1, f.origin.gets());
            assertTrue(f.cache.metrics().value(MetricNames.BLOCK_HITS) >= 100_000);
            final int position = (int) ((19_999 * 517L) % (6 * BLOCK));
            assertArrayEquals(Arrays.copyOfRange(data, position, position + 2 * BLOCK), into.byteArray());
        }
    }
}
