package dev.offcache.range.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.offcache.range.metrics.MetricNames;
import dev.offcache.range.testing.EngineFixture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bypass prefixes and flags, the pass-through engine (no store), and streaming reads in bounded windows.
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
            assertEquals(2, f.origin.gets(), "never cached: every read goes to the next tier");
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
    void zeroBudgetMakesAPassThroughThatStillSharesFetches()
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 0, (b) -> b.l1BudgetBytes(0)))
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
    void streamDeliversInOrderWithBoundedBytesInFlight() throws Exception
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 16L * BLOCK, (b) -> b.streamWindows(2, 2)
            .maxCoalescedGetBytes(2 * BLOCK)))
        {
            final int size = 40 * BLOCK + 123;
            final byte[] data = f.object("big", size, 4);
            final byte[] received = new byte[size - 1000];
            final List<Long> positions = new ArrayList<>();
            f.cache.stream("big", 1000, received.length, false, (buffer, offset, length, position) ->
            {
                positions.add(position);
                buffer.getBytes(offset, received, (int) (position - 1000), length);
                return CompletableFuture.completedFuture(null);
            }).get(30, TimeUnit.SECONDS);
            assertArrayEquals(Arrays.copyOfRange(data, 1000, size), received);
            for (int i = 1; i < positions.size(); i++)
            {
                assertTrue(positions.get(i) > positions.get(i - 1), "in order");
            }
            assertEquals(21, positions.size(), "windows of 2 blocks aligned to 8 KiB: [1000, 8192) ... [163840, end)");
            assertEquals(1000L, positions.get(0));
            assertEquals(8192L, positions.get(1));
            assertTrue(f.origin.peakBytesInFlight() <= 4L * BLOCK,
                "at most 2 windows of 2 blocks in flight: " + f.origin.peakBytesInFlight());
        }
    }

    @Test
    void largeCopyReadIsWindowedToo()
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 128L * BLOCK, (b) -> b.streamWindows(3, 2)))
        {
            final byte[] data = f.object("large", 50 * BLOCK, 5);
            assertArrayEquals(data, f.read("large", 0, data.length));
            assertTrue(f.origin.peakBytesInFlight() <= 6L * BLOCK, "" + f.origin.peakBytesInFlight());
            assertTrue(f.cache.fetcher().budget().peakRunning() <= 2);
        }
    }
}
