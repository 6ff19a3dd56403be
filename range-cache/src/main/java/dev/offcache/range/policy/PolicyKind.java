package dev.offcache.range.policy;

/**
 * The eviction policies a store can be built with.
 */
public enum PolicyKind
{
    /** Frequency-aware {@link WindowTinyLfuPolicy}: the default. */
    WINDOW_TINY_LFU,
    /** Recency-only {@link LruPolicy}: the baseline. */
    LRU;

    /**
     * Creates a policy of this kind.
     *
     * @param capacity the maximum number of keys.
     * @return a new single-threaded policy.
     */
    public EvictionPolicy create(final int capacity)
    {
        return this == LRU ? new LruPolicy(capacity) : new WindowTinyLfuPolicy(capacity);
    }
}
