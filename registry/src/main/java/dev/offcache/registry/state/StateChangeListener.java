package dev.offcache.registry.state;

/**
 * Receives every accepted change of a {@link CacheStateMachine}, in order, on the thread that made it. The durable
 * backend journals them; the Disruptor front uses them to wake waiters and collect removed entries.
 */
public interface StateChangeListener
{
    /**
     * A listener that ignores everything.
     */
    StateChangeListener NONE = new StateChangeListener()
    {
    };

    /**
     * A key was claimed.
     *
     * @param key   the key.
     * @param entry the new pending entry.
     */
    default void onClaimed(final CacheKey key, final Pending entry)
    {
    }

    /**
     * A pending key was promoted.
     *
     * @param key   the key.
     * @param entry the new materialized entry.
     */
    default void onPromoted(final CacheKey key, final Materialized entry)
    {
    }

    /**
     * An entry was removed (abort, invalidation, executor loss, session removal, eviction, failed validation).
     *
     * @param key     the key.
     * @param removed the entry as it was.
     */
    default void onRemoved(final CacheKey key, final CacheEntry removed)
    {
    }
}
