package dev.offcache.range.metrics.micrometer;

import java.util.function.ToDoubleFunction;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.cache.CacheMeterBinder;

import dev.offcache.range.engine.RangeCache;
import dev.offcache.range.ram.RamBlockStore;
import dev.offcache.range.metrics.MetricNames;
import dev.offcache.range.metrics.StoreFallback;
import dev.offcache.range.store.BlockStore;

/**
 * A Micrometer {@code MeterBinder} for a range-cache engine under Micrometer's {@code cache.*} names (those its
 * Caffeine binder uses): {@code cache.gets} by {@code result} (hit, miss; per block), {@code cache.puts},
 * {@code cache.evictions}, {@code cache.size} (blocks held, for a RAM block store), and for this cache
 * {@code cache.bytes} by {@code source} (store, l2, object_store), {@code cache.origin.requests},
 * {@code cache.origin.errors}, {@code cache.fallbacks} by {@code reason} and {@code cache.store.bytes}. Every meter
 * reads {@link RangeCache#stats()} when the registry polls it; nothing is added to the engine's paths. Micrometer
 * holds the cache weakly, as its own binders do.
 *
 * <p>Micrometer is an optional dependency of range-cache: this class is the only one that needs it, and an embedder
 * who uses it brings {@code io.micrometer:micrometer-core} itself.
 */
public final class RangeCacheMetrics extends CacheMeterBinder<RangeCache>
{
    /**
     * A binder for one cache.
     *
     * @param cache     the engine.
     * @param cacheName its name, the {@code cache} tag.
     * @param tags      more tags for every meter.
     */
    public RangeCacheMetrics(final RangeCache cache, final String cacheName, final Iterable<Tag> tags)
    {
        super(cache, cacheName, tags);
    }

    /**
     * Binds a cache's meters to a registry.
     *
     * @param registry  where the meters go.
     * @param cache     the engine.
     * @param cacheName its name, the {@code cache} tag.
     * @param tags      more tags, as name and value pairs.
     * @return the cache.
     */
    public static RangeCache monitor(
        final MeterRegistry registry, final RangeCache cache, final String cacheName, final String... tags)
    {
        new RangeCacheMetrics(cache, cacheName, Tags.of(tags)).bindTo(registry);
        return cache;
    }

    @Override
    protected Long size()
    {
        final RangeCache cache = getCache();
        final BlockStore store = null == cache ? null : cache.store();
        return store instanceof RamBlockStore l1 ? (long) l1.residentBlocks() : null;
    }

    @Override
    protected long hitCount()
    {
        final RangeCache cache = getCache();
        return null == cache ? 0 : cache.stats().hitCount();
    }

    @Override
    protected Long missCount()
    {
        final RangeCache cache = getCache();
        return null == cache ? null : cache.stats().missCount();
    }

    @Override
    protected Long evictionCount()
    {
        final RangeCache cache = getCache();
        return null == cache ? null : cache.stats().evictionCount();
    }

    @Override
    protected long putCount()
    {
        final RangeCache cache = getCache();
        return null == cache ? 0 : cache.metrics().value(MetricNames.STORE_PUTS);
    }

    @Override
    protected void bindImplementationSpecificMetrics(final MeterRegistry registry)
    {
        final RangeCache cache = getCache();
        if (null == cache)
        {
            return;
        }
        bytes(registry, cache, "store", (c) -> c.stats().storeBytes());
        bytes(registry, cache, "l2", (c) -> c.stats().l2Bytes());
        bytes(registry, cache, "object_store", (c) -> c.stats().objectStoreBytes());
        counter(cache, "cache.origin.requests", "GETs sent to the next level (L2 or the object store)",
            (c) -> c.stats().originGetCount()).register(registry);
        counter(cache, "cache.origin.errors", "requests to the next level that failed",
            (c) -> c.stats().originErrorCount()).register(registry);
        for (final StoreFallback reason : StoreFallback.values())
        {
            counter(cache, "cache.fallbacks", "store failures routed around",
                (c) -> c.stats().fallbacks().get(reason)).tag("reason", reason.label()).register(registry);
        }
        Gauge.builder("cache.store.bytes", cache, (c) -> c.store() == null ? 0 : c.store().sizeBytes())
            .tags(getTagsWithCacheName())
            .description("bytes of block data the store holds")
            .baseUnit("bytes")
            .register(registry);
    }

    private void bytes(
        final MeterRegistry registry, final RangeCache cache, final String source, final ToDoubleFunction<RangeCache> f)
    {
        counter(cache, "cache.bytes", "bytes by where they came from (" +
            "store: handed to readers from the store; l2 and object_store: fetched from them)", f)
            .tag("source", source)
            .baseUnit("bytes")
            .register(registry);
    }

    private FunctionCounter.Builder<RangeCache> counter(
        final RangeCache cache,
        final String name,
        final String description,
        final ToDoubleFunction<RangeCache> f)
    {
        return FunctionCounter.builder(name, cache, f).tags(getTagsWithCacheName()).description(description);
    }
}
