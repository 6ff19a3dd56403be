package dev.offcache.range.policy;

/**
 * What the policies over {@link KeyQueues} share: the queues, and the answers read straight from them (capacity,
 * size, membership). Not thread-safe, as the policies are not: their store drives them from one thread at a time.
 */
abstract class QueuedPolicy implements EvictionPolicy
{
    /** The keys the policy tracks, in its queues. */
    final KeyQueues queues;

    QueuedPolicy(final int capacity, final int queueCount)
    {
        queues = new KeyQueues(capacity, queueCount);
    }

    /**
     * {@inheritDoc}
     */
    public int capacity()
    {
        return queues.capacity();
    }

    /**
     * {@inheritDoc}
     */
    public int size()
    {
        return queues.size();
    }

    /**
     * {@inheritDoc}
     */
    public boolean contains(final long key)
    {
        return queues.nodeOf(key) != KeyQueues.NONE;
    }

    /**
     * {@inheritDoc}
     */
    public boolean remove(final long key)
    {
        final int node = queues.nodeOf(key);
        if (node == KeyQueues.NONE)
        {
            return false;
        }
        queues.delete(node);
        return true;
    }
}
