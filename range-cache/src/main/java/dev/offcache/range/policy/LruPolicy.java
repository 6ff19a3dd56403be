package dev.offcache.range.policy;

/**
 * Plain least-recently-used eviction over {@code long} keys: the baseline the frequency-aware policy is measured
 * against. Low-priority (prefetch) entries enter at the LRU end, so they go first unless read. Single-threaded;
 * allocates nothing after construction.
 */
public final class LruPolicy extends QueuedPolicy
{
    private static final int QUEUE = 0;

    /**
     * Creates an LRU policy.
     *
     * @param capacity the maximum number of keys, at least 1.
     */
    public LruPolicy(final int capacity)
    {
        super(capacity, 1);
    }

    /**
     * {@inheritDoc}
     */
    public void recordAccess(final long key)
    {
        final int node = queues.nodeOf(key);
        if (node != KeyQueues.NONE)
        {
            queues.moveToTail(node, QUEUE);
        }
    }

    /**
     * {@inheritDoc}
     */
    public boolean admits(final long key)
    {
        return true;
    }

    /**
     * {@inheritDoc}
     */
    public long evict()
    {
        final int node = queues.head(QUEUE);
        if (node == KeyQueues.NONE)
        {
            return NO_KEY;
        }
        final long key = queues.key(node);
        queues.delete(node);
        return key;
    }

    /**
     * {@inheritDoc}
     */
    public void add(final long key, final boolean lowPriority)
    {
        queues.insert(key, QUEUE, lowPriority);
    }
}
