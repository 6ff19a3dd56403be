package dev.offcache.range.metrics;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.range.engine.RangeCache;
import dev.offcache.range.origin.FileSystemOrigin;
import dev.offcache.range.origin.ForwardingObjectStore;
import dev.offcache.range.testing.EngineFixture;
import dev.offcache.range.testing.TestObjects;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code RangeCache.stats()}: exact counts after a known read sequence, differences between snapshots, an
 * immutable snapshot, and the same figures through the platform MXBean under its stable name.
 */
class CacheStatsTest
{
    private static final int BLOCK = 4096;

    @Test
    void snapshotsCountEachBlockOnceAndSubtract() throws Exception
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 4L * BLOCK, (b) -> b))
        {
            final CacheStats empty = f.cache.stats();
            assertEquals(0, empty.requestCount());
            assertEquals(1.0, empty.hitRate());

            f.object("m", 6 * BLOCK, 1);
            f.read("m", 0, 3 * BLOCK);
            final CacheStats first = f.cache.stats();
            f.read("m", 0, 3 * BLOCK);
            f.read("m", 3 * BLOCK, 3 * BLOCK);
            final CacheStats all = f.cache.stats();

            assertEquals(3, all.hitCount());
            assertEquals(6, all.missCount());
            assertEquals(9, all.requestCount());
            assertEquals(1.0 / 3, all.hitRate(), 1e-12);
            assertEquals(2, all.originGetCount());
            assertEquals(f.origin.gets(), all.originGetCount());
            assertEquals(6L * BLOCK, all.originBytes());
            assertEquals(0, first.storeBytes(), "the first read missed every block");
            assertEquals(3L * BLOCK, all.storeBytes(), "the second read was served from the store");
            assertEquals(0, all.l2Bytes(), "no L2 behind this engine");
            assertEquals(6L * BLOCK, all.objectStoreBytes());
            assertEquals(0, all.originErrorCount());
            assertEquals(f.store.evictionCount(), all.evictionCount());
            assertEquals(0, all.fallbackCount());
            assertEquals(StoreFallback.values().length, all.fallbacks().size());

            final CacheStats later = all.minus(first);
            assertEquals(3, later.hitCount());
            assertEquals(3, later.missCount());
            assertEquals(1, later.originGetCount());
            assertEquals(3L * BLOCK, later.originBytes());
            assertEquals(3L * BLOCK, later.storeBytes());

            assertThrows(UnsupportedOperationException.class, () -> all.fallbacks().put(StoreFallback.PUT_ERROR, 1L));
        }
    }

    @Test
    void l2BytesComeFromTheNextTierAndAreSplitOffTheOriginBytes(@TempDir final Path root)
    {
        TestObjects.write(root, "m", 2 * BLOCK, 3);
        final AtomicLong fromL2 = new AtomicLong();
        // The engine asks its next level how many bytes L2 servers served (an L2 client counts them; the real
        // clients are tested against servers in cache-server); this stand-in says what the test sets.
        final ForwardingObjectStore nextTier = new ForwardingObjectStore(new FileSystemOrigin(root, 2))
        {
            @Override
            public long l2Bytes()
            {
                return fromL2.get();
            }
        };
        try (RangeCache cache = RangeCache.newBuilder().origin(nextTier).blockSize(BLOCK).l1CapacityBytes(0).build())
        {
            final UnsafeBuffer destination = new UnsafeBuffer(new byte[2 * BLOCK]);
            cache.read("m", 0, destination, 0, 2 * BLOCK);
            final CacheStats before = cache.stats();
            assertEquals(2L * BLOCK, before.originBytes());
            assertEquals(0, before.l2Bytes());
            fromL2.set(BLOCK);
            final CacheStats after = cache.stats();
            assertEquals(BLOCK, after.l2Bytes());
            assertEquals(BLOCK, after.objectStoreBytes());
            assertEquals(BLOCK, after.minus(before).l2Bytes());
            assertEquals(0, after.storeBytes(), "no store: nothing served from it");
        }
    }

    @Test
    void theMxBeanReadsTheSameFiguresUnderAStableName() throws Exception
    {
        final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        final ObjectName name = CacheStatsMXBeans.objectName("test cache: 1");
        assertEquals("dev.offcache", name.getDomain());
        assertEquals("RangeCache", name.getKeyProperty("type"));
        assertEquals("test cache: 1", ObjectName.unquote(name.getKeyProperty("name")));
        try (EngineFixture f = new EngineFixture(BLOCK, 4L * BLOCK, (b) -> b))
        {
            f.object("m", 2 * BLOCK, 2);
            f.read("m", 0, 2 * BLOCK);
            f.read("m", 0, BLOCK);
            try (CacheStatsMXBeans.Registration registration =
                CacheStatsMXBeans.register("test cache: 1", f.cache::stats))
            {
                assertEquals(name, registration.objectName());
                assertTrue(server.isRegistered(name));
                assertEquals(1L, server.getAttribute(name, "HitCount"));
                assertEquals(2L, server.getAttribute(name, "MissCount"));
                assertEquals(1.0 / 3, (Double) server.getAttribute(name, "HitRate"), 1e-12);
                assertEquals(2L * BLOCK, server.getAttribute(name, "OriginBytes"));
                assertEquals((long) BLOCK, server.getAttribute(name, "StoreBytes"));
                assertEquals(0L, server.getAttribute(name, "L2Bytes"));
                assertEquals(2L * BLOCK, server.getAttribute(name, "ObjectStoreBytes"));
                assertThrows(IllegalStateException.class,
                    () -> CacheStatsMXBeans.register("test cache: 1", f.cache::stats), "a name is held once");
            }
            assertFalse(server.isRegistered(name));
        }
    }
}
