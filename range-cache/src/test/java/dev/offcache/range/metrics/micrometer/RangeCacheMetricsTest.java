package dev.offcache.range.metrics.micrometer;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import dev.offcache.range.testing.EngineFixture;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The Micrometer binder reports the engine's statistics under Micrometer's {@code cache.*} names, with exact values
 * after a known sequence, read by a real {@code SimpleMeterRegistry}.
 */
class RangeCacheMetricsTest
{
    private static final int BLOCK = 4096;

    @Test
    void cacheMetersCarryExactCountsAfterAKnownSequence()
    {
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (EngineFixture f = new EngineFixture(BLOCK, 8L * BLOCK, (b) -> b))
        {
            RangeCacheMetrics.monitor(registry, f.cache, "test", "app", "unit");
            f.object("m", 4 * BLOCK, 5);
            f.read("m", 0, 3 * BLOCK);
            f.read("m", 0, 2 * BLOCK);
            f.read("m", 0, 100);

            assertEquals(3.0, count(registry, "cache.gets", "result", "hit"));
            assertEquals(3.0, count(registry, "cache.gets", "result", "miss"));
            assertEquals(3.0, count(registry, "cache.puts", null, null));
            assertEquals(0.0, count(registry, "cache.evictions", null, null));
            assertEquals(2.0 * BLOCK + 100, count(registry, "cache.bytes", "source", "store"));
            assertEquals(0.0, count(registry, "cache.bytes", "source", "l2"));
            assertEquals(3.0 * BLOCK, count(registry, "cache.bytes", "source", "object_store"));
            assertEquals(1.0, count(registry, "cache.origin.requests", null, null));
            assertEquals(0.0, count(registry, "cache.origin.errors", null, null));
            assertEquals(0.0, count(registry, "cache.fallbacks", "reason", "store_error"));
            assertEquals(3.0 * BLOCK,
                registry.get("cache.store.bytes").tag("cache", "test").tag("app", "unit").gauge().value());
        }
    }

    private static double count(final SimpleMeterRegistry registry, final String name, final String tag,
        final String value)
    {
        var search = registry.get(name).tag("cache", "test").tag("app", "unit");
        if (null != tag)
        {
            search = search.tag(tag, value);
        }
        return search.functionCounter().count();
    }
}
