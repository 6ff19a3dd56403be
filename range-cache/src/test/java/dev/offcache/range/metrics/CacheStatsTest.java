package dev.offcache.range.metrics;

import java.lang.management.ManagementFactory;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.junit.jupiter.api.Test;

import dev.offcache.range.testing.EngineFixture;

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
            assertEquals(0, all.originErrorCount());
            assertEquals(f.store.evictionCount(), all.evictionCount());
            assertEquals(0, all.fallbackCount());
            assertEquals(StoreFallback.values().length, all.fallbacks().size());

            final CacheStats later = all.minus(first);
            assertEquals(3, later.hitCount());
            assertEquals(3, later.missCount());
            assertEquals(1, later.originGetCount());
            assertEquals(3L * BLOCK, later.originBytes());

            assertThrows(UnsupportedOperationException.class, () -> all.fallbacks().put(StoreFallback.PUT_ERROR, 1L));
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
                assertThrows(IllegalStateException.class,
                    () -> CacheStatsMXBeans.register("test cache: 1", f.cache::stats), "a name is held once");
            }
            assertFalse(server.isRegistered(name));
        }
    }
}
