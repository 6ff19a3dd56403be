package dev.offcache.range.policy;

import org.agrona.collections.Long2LongHashMap;

/**
 * A fixed pool of nodes holding {@code long} keys, threaded onto a few intrusive doubly linked LRU queues, with a
 * primitive key-to-node index: the shared storage of the policies. Nothing is allocated after construction (the
 * index is sized so that it never grows).
 *
 * <p>Each queue has a sentinel node; its {@code next} is the least recently used node (the head), its {@code prev}
 * the most recently used (the tail).
 */
final class KeyQueues
{
    static final int NONE = -1;
    static final int MAX_CAPACITY = 1 << 28;

    private final int capacity;
    private final long[] keys;
    private final int[] prev;
    private final int[] next;
    private final byte[] queueOf;
    private final int[] sizes;
    private final int[] freeNodes;
    private final Long2LongHashMap index;
    private int freeCount;

    KeyQueues(final int capacity, final int queueCount)
    {
        if (capacity < 1 || capacity > MAX_CAPACITY)
        {
            throw new IllegalArgumentException("capacity must be in [1, " + MAX_CAPACITY + "]: " + capacity);
        }
        this.capacity = capacity;
        final int nodes = capacity + queueCount;
        keys = new long[nodes];
        prev = new int[nodes];
        next = new int[nodes];
        queueOf = new byte[nodes];
        sizes = new int[queueCount];
        freeNodes = new int[capacity];
        for (int q = 0; q < queueCount; q++)
        {
            final int sentinel = capacity + q;
            prev[sentinel] = sentinel;
            next[sentinel] = sentinel;
            queueOf[sentinel] = (byte) q;
        }
        for (int i = 0; i < capacity; i++)
        {
            freeNodes[i] = capacity - 1 - i;
        }
        freeCount = capacity;
        // Load factor 0.5 and room for every key: the map never resizes, so never allocates after this.
        index = new Long2LongHashMap((int) Math.max(8, Math.min(1 << 30, capacity * 2L)), 0.65f, NONE);
    }

    int capacity()
    {
        return capacity;
    }

    int size()
    {
        return capacity - freeCount;
    }

    int size(final int queue)
    {
        return sizes[queue];
    }

    int nodeOf(final long key)
    {
        return (int) index.get(key);
    }

    long key(final int node)
    {
        return keys[node];
    }

    int queueOf(final int node)
    {
        return queueOf[node];
    }

    /**
     * The least recently used node of a queue.
     */
    int head(final int queue)
    {
        final int first = next[capacity + queue];
        return first == capacity + queue ? NONE : first;
    }

    /**
     * The node after {@code node} towards the most recently used end, or NONE.
     */
    int after(final int node)
    {
        final int n = next[node];
        return n >= capacity ? NONE : n;
    }

    int insert(final long key, final int queue, final boolean atHead)
    {
        if (key < 0)
        {
            throw new IllegalArgumentException("key must be >= 0: " + key);
        }
        if (freeCount == 0)
        {
            throw new IllegalStateException("policy is full (" + capacity + " entries): evict first");
        }
        if (index.get(key) != NONE)
        {
            throw new IllegalArgumentException("key is already resident: " + key);
        }
        final int node = freeNodes[--freeCount];
        keys[node] = key;
        index.put(key, node);
        link(node, queue, atHead);
        return node;
    }

    void delete(final int node)
    {
        unlink(node);
        index.remove(keys[node]);
        freeNodes[freeCount++] = node;
    }

    /**
     * Moves a node to the most recently used end of a queue (possibly its own).
     */
    void moveToTail(final int node, final int queue)
    {
        unlink(node);
        link(node, queue, false);
    }

    private void link(final int node, final int queue, final boolean atHead)
    {
        final int sentinel = capacity + queue;
        if (atHead)
        {
            final int first = next[sentinel];
            prev[node] = sentinel;
            next[node] = first;
            prev[first] = node;
            next[sentinel] = node;
        }
        else
        {
            final int last = prev[sentinel];
            next[node] = sentinel;
            prev[node] = last;
            next[last] = node;
            prev[sentinel] = node;
        }
        queueOf[node] = (byte) queue;
        sizes[queue]++;
    }

    private void unlink(final int node)
    {
        final int p = prev[node];
        final int n = next[node];
        next[p] = n;
        prev[n] = p;
        sizes[queueOf[node]]--;
    }
}
