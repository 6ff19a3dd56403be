package dev.offcache.range.metrics;

import java.util.EnumMap;
import java.util.Map;

/**
 * An immutable snapshot of one range-cache engine's statistics, in the spirit of Caffeine's {@code CacheStats}:
 * read from the engine's counters by {@code RangeCache.stats()}, cheap to take, safe to keep and to subtract
 * ({@link #minus}) for a rate over an interval. Counts are per block (a read touching three blocks is three
 * requests).
 *
 * <p>Bytes, by where they came from: {@code storeBytes} were handed to readers from the engine's own store (L1 in
 * an engine's JVM, RAM or SSD in the L2 server); {@code originBytes} were fetched from the engine's next level, in
 * whole blocks, demand and prefetch; of those, {@code l2Bytes} came from L2 cache servers when the next level is an
 * L2 client, and the rest ({@link #objectStoreBytes()}) from the object store itself.
 *
 * @param hitCount         block lookups the store answered.
 * @param missCount        block lookups it could not answer (bypassed reads count here too).
 * @param storeBytes       bytes handed to readers from the store (the hits' bytes).
 * @param l2Bytes          bytes the next level took from L2 cache servers (0 without L2).
 * @param originGetCount   origin GETs, demand and prefetch.
 * @param originBytes      bytes received from the next level (L2 servers included).
 * @param originErrorCount origin requests that failed (errors, short data, timeouts).
 * @param evictionCount    blocks the store evicted.
 * @param fallbacks        store failures routed around, by reason (every reason present).
 */
public record CacheStats(
    long hitCount,
    long missCount,
    long storeBytes,
    long l2Bytes,
    long originGetCount,
    long originBytes,
    long originErrorCount,
    long evictionCount,
    Map<StoreFallback, Long> fallbacks)
{
    /**
     * A snapshot; the map is copied, with a zero for each reason it lacks.
     */
    public CacheStats
    {
        final EnumMap<StoreFallback, Long> all = new EnumMap<>(StoreFallback.class);
        for (final StoreFallback reason : StoreFallback.values())
        {
            all.put(reason, fallbacks.getOrDefault(reason, 0L));
        }
        fallbacks = Map.copyOf(all);
    }

    /**
     * Block lookups.
     *
     * @return hits plus misses.
     */
    public long requestCount()
    {
        return hitCount + missCount;
    }

    /**
     * The share of lookups the store answered; 1.0 when there were none (as Caffeine reports it).
     *
     * @return from 0 to 1.
     */
    public double hitRate()
    {
        final long requests = requestCount();
        return requests == 0 ? 1.0 : (double) hitCount / requests;
    }

    /**
     * Bytes the next level fetched from the object store itself: the origin bytes L2 servers did not serve.
     *
     * @return {@code originBytes - l2Bytes}, never below 0 (the two are read a moment apart).
     */
    public long objectStoreBytes()
    {
        return Math.max(0, originBytes - l2Bytes);
    }

    /**
     * Store failures routed around, every reason.
     *
     * @return the sum.
     */
    public long fallbackCount()
    {
        long sum = 0;
        for (final long count : fallbacks.values())
        {
            sum += count;
        }
        return sum;
    }

    /**
     * What happened between an earlier snapshot and this one.
     *
     * @param earlier the earlier snapshot of the same engine.
     * @return the differences.
     */
    public CacheStats minus(final CacheStats earlier)
    {
        final EnumMap<StoreFallback, Long> delta = new EnumMap<>(StoreFallback.class);
        for (final StoreFallback reason : StoreFallback.values())
        {
            delta.put(reason, fallbacks.get(reason) - earlier.fallbacks.get(reason));
        }
        return new CacheStats(hitCount - earlier.hitCount, missCount - earlier.missCount,
            storeBytes - earlier.storeBytes, l2Bytes - earlier.l2Bytes, originGetCount - earlier.originGetCount,
            originBytes - earlier.originBytes,
            originErrorCount - earlier.originErrorCount, evictionCount - earlier.evictionCount, delta);
    }
}
