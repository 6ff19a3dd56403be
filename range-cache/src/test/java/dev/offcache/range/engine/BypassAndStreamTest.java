package dev.offcache.range.engine;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.offcache.range.metrics.MetricNames;
import dev.offcache.range.testing.EngineFixture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bypass prefixes and flags, the pass-through engine (no store), and large reads in a bounded read-ahead.
 */
class BypassAndStreamTest
{
    private static final int BLOCK = 4096;

    @Test
    void bypassedPrefixSkipsTheStoreButStillReadsThroughTheNextTier()
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 64L * BLOCK, (b) -> b.bypassPrefixes(List.of("blobs/"))))
        {
            final byte[] raw = f.object("blobs/raw-1", 2 * BLOCK, 1);
            final byte[] table = f.object("tables/t", 2 * BLOCK, 2);
            assertArrayEquals(raw, f.read("blobs/raw-1", 0, 2 * BLOCK));
            assertArrayEquals(raw, f.read("blobs/raw-1", 0, 2 * BLOCK));
            assertEquals(2, f.origin.gets(), "never cached: every read goes to the next level");
            assertEquals(0, f.store.sizeBytes());
            assertEquals(2, f.cache.metrics().value(MetricNames.BYPASS_READS));

            assertArrayEquals(table, f.read("tables/t", 0, 2 * BLOCK));
            assertEquals(2L * BLOCK, f.store.sizeBytes());
            final org.agrona.concurrent.UnsafeBuffer buffer = new org.agrona.concurrent.UnsafeBuffer(new byte[BLOCK]);
            f.cache.read("tables/t", 0, buffer, 0, BLOCK, true);
            assertEquals(4, f.origin.gets(), "the per-read flag bypasses even a cached block");
            f.cache.prefetch("blobs/raw-1", List.of()).join();
            assertEquals(4, f.origin.gets(), "prefetch of a bypassed key does nothing");
        }
    }

    @Test
    void zeroCapacityMakesAPassThroughThatStillSharesFetches()
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 0, (b) -> b.l1CapacityBytes(0)))
        {
            assertNull(f.cache.store());
            final byte[] data = f.object("p", 5 * BLOCK + 3, 3);
            assertArrayEquals(data, f.read("p", 0, data.length));
            assertArrayEquals(data, f.read("p", 0, data.length));
            assertEquals(2, f.origin.gets());
            assertEquals(0, f.cache.metrics().value(MetricNames.BLOCK_HITS));
        }
    }

    @Test
    void largeCopyReadKeepsAtMostItsReadAheadInFlight()
    {
        // read-ahead: 2 windows of max(3 blocks, the 2-block cap) = 6 blocks
        try (EngineFixture f = new EngineFixture(BLOCK, 128L * BLOCK, (b) -> b.streamWindows(3, 2)
            .maxCoalescedGetBytes(2 * BLOCK)))
        {
            final byte[] data = f.object("large", 50 * BLOCK, 5);
            assertArrayEquals(data, f.read("large", 0, data.length));
            assertTrue(f.origin.peakBytesInFlight() <= 6L * BLOCK, "" + f.origin.peakBytesInFlight());
            assertTrue(f.cache.fetcher().fetchPermits().peakRunning() <= 3);
            assertEquals(25, f.origin.gets(), "50 contiguous blocks, 2 per GET");
        }
    }

    @Test
    void aWindowSmallerThanTheCapDoesNotShrinkTheGets()
    {
        // windows of 2 blocks but a cap of 8: the read-ahead is sized from the cap, and runs cross window edges
        try (EngineFixture f = new EngineFixture(BLOCK, 128L * BLOCK, (b) -> b.streamWindows(2, 2)
            .maxCoalescedGetBytes(8 * BLOCK)))
        {
            final byte[] data = f.object("wide", 32 * BLOCK, 6);
            assertArrayEquals(data, f.read("wide", 0, data.length));
            assertEquals(4, f.origin.gets(), "32 contiguous blocks, 8 per GET");
        }
    }
}
