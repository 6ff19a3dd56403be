package dev.offcache.range.metrics;

import java.nio.file.Path;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.core.slab.BlockRef;
import dev.offcache.range.engine.RangeCache;
import dev.offcache.range.ram.RamBlockStore;
import dev.offcache.range.origin.FileSystemOrigin;
import dev.offcache.range.testing.CountingOrigin;
import dev.offcache.range.testing.Exposition;
import dev.offcache.range.testing.TestObjects;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * Each block lookup is counted once, by the engine, whatever path serves it: the engine probes its RAM store up to
 * four times for one missed block (the fast path, the read operation, the re-check after claiming the fetch, and
 * the view after the fetch), so a store that counted its own probes counted a view's miss as a miss and a hit, and
 * a copy's miss three times. The exposition, written by the Prometheus client, carries the engine's count and the
 * RAM block store's own events beside it.
 */
class LookupCountingTest
{
    private static final int BLOCK = 4096;

    @TempDir
    Path root;

    @Test
    void aKnownSequenceGivesExactCountsInStatsAndInTheExposition()
    {
        TestObjects.write(root, "a", 4 * BLOCK, 7);
        final CountingOrigin origin = new CountingOrigin(new FileSystemOrigin(root, 4));
        final RamBlockStore store = RamBlockStore.create(16L * BLOCK, BLOCK);
        try (RangeCache cache = RangeCache.newBuilder().origin(origin).blockSize(BLOCK).store(store).build())
        {
            final UnsafeBuffer destination = new UnsafeBuffer(new byte[2 * BLOCK]);
            // 1: a view of block 0, cold (1 miss); 2: the same view, warm (1 hit)
            for (int i = 0; i < 2; i++)
            {
                final BlockRef view = cache.readView("a", 0, 100);
                view.release();
            }
            // 3: a copy of blocks 0-1: block 0 hits, block 1 misses; 4: the same copy, both hit
            cache.read("a", 0, destination, 0, 2 * BLOCK);
            cache.read("a", 0, destination, 0, 2 * BLOCK);

            final CacheStats stats = cache.stats();
            assertEquals(4, stats.hitCount());
            assertEquals(2, stats.missCount());
            assertEquals(100 + BLOCK + 2L * BLOCK, stats.storeBytes(), "the view's 100 bytes, then 1 and 2 blocks");
            assertEquals(2L * BLOCK, stats.objectStoreBytes());
            assertEquals(2, stats.originGetCount());
            assertEquals(2, origin.gets());

            final Exposition page = Exposition.parse(cache.metrics().toPrometheusText());
            assertEquals(6, page.value(MetricNames.BLOCK_REQUESTS));
            assertEquals(4, page.value(MetricNames.BLOCK_HITS));
            assertEquals(2, page.value(MetricNames.BLOCK_MISSES));
            assertEquals(100 + 3.0 * BLOCK, page.value(MetricNames.STORE_BYTES));
            assertEquals(2, page.value(MetricNames.ORIGIN_GETS, "class", "demand"));
            assertEquals(2, page.value(MetricNames.ORIGIN_GET_SECONDS + "_count"));
            assertEquals(2, page.value(MetricNames.ORIGIN_GET_SECONDS + "_bucket", "le", "+Inf"));
            assertEquals(2, page.value(MetricNames.L1_PUTS));
            assertEquals(0, page.value(MetricNames.L1_REJECTIONS));
            assertEquals(0, page.value(MetricNames.L1_COPY_CONFLICTS));
            assertEquals(2, page.value(MetricNames.L1_RESIDENT_BLOCKS));
            assertEquals(16, page.value(MetricNames.L1_CAPACITY_BLOCKS));
            assertEquals(2.0 * BLOCK, page.value(MetricNames.L1_SIZE_BYTES));
            assertEquals(page.types().keySet(), page.helps().keySet(), "every family has HELP");
            assertEquals("counter", page.types().get(MetricNames.BLOCK_HITS));
            assertEquals("histogram", page.types().get(MetricNames.ORIGIN_GET_SECONDS));
            assertFalse(page.types().containsKey("offcache_range_l1_hits_total"),
                "no second count of the same lookups under an L1 name");
        }
        assertEquals(0, store.liveSlots(), "no slot leaked");
    }
}
