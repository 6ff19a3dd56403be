package dev.offcache.range.store;

/**
 * Optional for a {@link BlockStore}: how many blocks it has evicted, so the engine can publish
 * {@code offcache_range_evictions_total} next to its own counters. A store that does not implement it reports none.
 */
public interface EvictionStats
{
    /**
     * Blocks evicted since the store was created.
     *
     * @return the running count.
     */
    long evictionCount();
}
