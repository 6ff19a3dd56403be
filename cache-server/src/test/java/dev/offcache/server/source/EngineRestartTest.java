package dev.offcache.server.source;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.offcache.range.engine.RangeCacheBuilder;
import dev.offcache.range.engine.ByteRange;
import dev.offcache.range.engine.RangeCache;
import dev.offcache.range.metrics.MetricNames;
import dev.offcache.range.origin.FileSystemOrigin;
import dev.offcache.server.tier.ObjectName;
import dev.offcache.server.tier.ObjectNames;
import dev.offcache.server.tier.TieredBlockStore;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The engine over the tiered store with the engine's own names ({@link EngineObjectNames}): blocks one engine
 * fetched (demand, spilled to SSD at close) or prefetched (straight to SSD) are served by a new engine, which hands
 * out different object ids, from the SSD tier with zero origin GETs.
 */
class EngineRestartTest
{
    private static final int BLOCK = 64 * 1024;

    @TempDir
    Path tmp;

    /** Records the ids the store asks about, to show the second engine's ids differ from the first's. */
    private static final class RecordingNames implements ObjectNames
    {
        final EngineObjectNames names = new EngineObjectNames();
        final Set<Long> ids = ConcurrentHashMap.newKeySet();

        @Override
        public ObjectName nameOf(final long objectId)
        {
            ids.add(objectId);
            return names.nameOf(objectId);
        }
    }

    private RangeCache engine(final Path originDir, final RecordingNames names, final TieredBlockStore[] store)
    {
        store[0] = TieredBlockStore.open(new TieredBlockStore.Context()
            .blockSize(BLOCK)
            .ramCapacityBytes(16L * BLOCK)
            .ssdCapacityBytes(64L * (BLOCK + 4096))
            .ssdDir(tmp.resolve("ssd"))
            .names(names));
        final RangeCache cache = RangeCache.newBuilder()
            .origin(new FileSystemOrigin(originDir, 2))
            .store(store[0])
            .deployment(RangeCacheBuilder.Deployment.L2)
            .blockSize(BLOCK)
            .build();
        names.names.bind(cache);
        return cache;
    }

    private static byte[] read(final RangeCache cache, final String key, final int length)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[length]);
        cache.read(key, 0, buffer, 0, length);
        return buffer.byteArray();
    }

    private static long originGets(final RangeCache cache)
    {
        return cache.metrics().value(MetricNames.ORIGIN_GETS + MetricNames.DEMAND) +
            cache.metrics().value(MetricNames.ORIGIN_GETS + MetricNames.PREFETCH);
    }

    @Test
    void blocksOfOneEngineAreServedAfterARestartByANewEngineWithNoOriginGet() throws Exception
    {
        final Path originDir = tmp.resolve("origin");
        Files.createDirectories(originDir.resolve("t"));
        final byte[] hot = new byte[3 * BLOCK + 100];
        final byte[] warm = new byte[2 * BLOCK + 7];
        new Random(5).nextBytes(hot);
        new Random(6).nextBytes(warm);
        Files.write(originDir.resolve("t/hot.bin"), hot);
        Files.write(originDir.resolve("t/warm.bin"), warm);

        final RecordingNames first = new RecordingNames();
        final TieredBlockStore[] store = new TieredBlockStore[1];
        try (RangeCache cache = engine(originDir, first, store))
        {
            assertArrayEquals(hot, read(cache, "t/hot.bin", hot.length));
            cache.prefetch("t/warm.bin", List.of(new ByteRange(0, warm.length))).join();
            assertEquals(4, store[0].ramBlocks(), "demand blocks in RAM");
            assertEquals(3, store[0].ssd().blockCount(), "prefetched blocks on SSD only");
            assertTrue(cache.metrics().value(MetricNames.ORIGIN_GETS + MetricNames.DEMAND) > 0);
            final long prefetchGets = cache.metrics().value(MetricNames.ORIGIN_GETS + MetricNames.PREFETCH);
            assertTrue(prefetchGets > 0);

            // Prefetching what is already on SSD fetches nothing and promotes nothing into RAM.
            cache.prefetch("t/warm.bin", List.of()).join();
            cache.prefetch("t/hot.bin", List.of()).join();
            assertEquals(prefetchGets, cache.metrics().value(MetricNames.ORIGIN_GETS + MetricNames.PREFETCH));
            assertEquals(4, store[0].ramBlocks(), "no SSD block was promoted by a prefetch");
            assertEquals(3, store[0].ssd().blockCount());
            assertEquals(0, store[0].metrics().ssdVerifiedReads(), "the prefetch probes read no SSD block");
        }
        assertEquals(0, store[0].liveSlots(), "no slot leaked");
        assertFalse(first.ids.isEmpty());

        final RecordingNames second = new RecordingNames();
        try (RangeCache cache = engine(originDir, second, store))
        {
            assertEquals(7, store[0].ssd().blockCount(), "the RAM blocks were spilled at close");
            for (final long id : first.ids)
            {
                assertNull(cache.objectKey(id), "ids are process-local and never reused");
            }
            assertArrayEquals(hot, read(cache, "t/hot.bin", hot.length));
            assertArrayEquals(warm, read(cache, "t/warm.bin", warm.length));
            assertEquals(0, originGets(cache), "every block came from the SSD tier");
            assertEquals(7, store[0].metrics().ssdVerifiedReads(), "each block read back from SSD once");
            assertFalse(second.ids.isEmpty());
            for (final long id : second.ids)
            {
                assertFalse(first.ids.contains(id), "the new engine's ids differ: " + id);
            }
        }
        assertEquals(0, store[0].liveSlots(), "no slot leaked");
    }

    @Test
    void anUnboundResolverNamesNothing()
    {
        assertNull(new EngineObjectNames().nameOf(0));
    }
}
