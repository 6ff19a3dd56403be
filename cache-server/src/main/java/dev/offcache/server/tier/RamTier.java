package dev.offcache.server.tier;

import java.util.List;

import dev.offcache.core.slab.BlockRef;
import dev.offcache.core.slab.BlockSlab;
import org.agrona.collections.Long2ObjectHashMap;

/**
 * The RAM tier: off-heap slab slots indexed by packed block key, evicted least-recently-used first. At most
 * {@code residentLimit} blocks (the byte budget) are resident; the slab has a few more slots, so blocks evicted
 * but still being spilled to SSD (or read) do not stall new fills. The tier holds one reference on every
 * resident slot; an eviction hands that reference to the caller (to spill the block to SSD or release it).
 *
 * <p>One monitor guards the map and the recency list: a hit is a primitive-keyed lookup plus two pointer swaps,
 * no allocation. (A lock-free recency approximation such as CLOCK is a later refinement.)
 */
final class RamTier
{
    private static final int MAX_EVICTIONS_PER_ALLOCATION = 16;

    private final BlockSlab slab;
    private final int residentLimit;
    private final TierMetrics metrics;
    private final Long2ObjectHashMap<Node> nodes = new Long2ObjectHashMap<>();
    /** Evicted blocks on their way to SSD: still served, so there is no gap between the tiers. */
    private final Long2ObjectHashMap<Node> spilling = new Long2ObjectHashMap<>();
    private final Node head = new Node(-1, null, false);
    private long heldBytes;

    /** A resident block in the recency list; {@code head.next} is the most recently used. */
    static final class Node
    {
        final long key;
        final BlockRef ref;
        final boolean onSsd;
        Node prev;
        Node next;

        Node(final long key, final BlockRef ref, final boolean onSsd)
        {
            this.key = key;
            this.ref = ref;
            this.onSsd = onSsd;
        }
    }

    RamTier(final BlockSlab slab, final int residentLimit, final TierMetrics metrics)
    {
        this.slab = slab;
        this.residentLimit = residentLimit;
        this.metrics = metrics;
        head.prev = head;
        head.next = head;
    }

    int slotSize()
    {
        return slab.slotSize();
    }

    synchronized BlockRef acquire(final long key)
    {
        final Node node = nodes.get(key);
        if (null == node)
        {
            final Node leaving = spilling.get(key);
            return null != leaving && leaving.ref.tryRetain() ? leaving.ref : null;
        }
        if (!node.ref.tryRetain())
        {
            return null;
        }
        unlink(node);
        linkFirst(node);
        return node.ref;
    }

    synchronized boolean contains(final long key)
    {
        return nodes.containsKey(key) || spilling.containsKey(key);
    }

    synchronized boolean resident(final long key)
    {
        return nodes.containsKey(key);
    }

    /** The spill of an evicted block is over (written, failed or dropped); the caller then releases its ref. */
    synchronized void spillDone(final Node node)
    {
        spilling.remove(node.key, node);
    }

    /**
     * Takes a free slot, evicting least-recently-used blocks until one frees up (or a bounded number were evicted).
     * Evicted blocks already on SSD are released here; the others are added to {@code toSpill} with the tier's
     * reference, for the caller to spill or release outside this monitor.
     */
    synchronized BlockRef allocate(final List<Node> toSpill)
    {
        while (nodes.size() >= residentLimit && head.prev != head)
        {
            evictLeastRecent(toSpill);
        }
        BlockRef slot = slab.tryAllocate();
        int evicted = 0;
        while (null == slot && head.prev != head && evicted < MAX_EVICTIONS_PER_ALLOCATION)
        {
            evictLeastRecent(toSpill);
            evicted++;
            slot = slab.tryAllocate();
        }
        return slot;
    }

    private void evictLeastRecent(final List<Node> toSpill)
    {
        final Node victim = head.prev;
        remove(victim);
        metrics.ramEvictions.increment();
        if (victim.onSsd)
        {
            victim.ref.release();
        }
        else
        {
            spilling.put(victim.key, victim);
            toSpill.add(victim);
        }
    }

    /**
     * Makes a filled slot resident, or keeps the block already resident under that key. Either way the caller
     * gets one reader reference, and {@code slot} is owned by the tier or released.
     */
    BlockRef insert(final long key, final BlockRef slot, final boolean onSsd)
    {
        synchronized (this)
        {
            final Node existing = nodes.get(key);
            if (null == existing)
            {
                final Node node = new Node(key, slot, onSsd);
                nodes.put(key, node);
                linkFirst(node);
                heldBytes += slot.length();
                metrics.ramBytes.set(heldBytes);
                metrics.ramBlocks.set(nodes.size());
                slot.tryRetain();
                return slot;
            }
            if (existing.ref.tryRetain())
            {
                slot.release();
                return existing.ref;
            }
        }
        slot.release();
        return null;
    }

    /** Removes every block, returning the tier's references of those not yet on SSD for spilling. */
    synchronized void drainTo(final List<Node> notOnSsd)
    {
        while (head.next != head)
        {
            final Node node = head.next;
            remove(node);
            if (node.onSsd)
            {
                node.ref.release();
            }
            else
            {
                notOnSsd.add(node);
            }
        }
    }

    synchronized long heldBytes()
    {
        return heldBytes;
    }

    private void remove(final Node node)
    {
        nodes.remove(node.key);
        unlink(node);
        heldBytes -= node.ref.length();
        metrics.ramBytes.set(heldBytes);
        metrics.ramBlocks.set(nodes.size());
    }

    private void unlink(final Node node)
    {
        node.prev.next = node.next;
        node.next.prev = node.prev;
    }

    private void linkFirst(final Node node)
    {
        node.next = head.next;
        node.prev = head;
        head.next.prev = node;
        head.next = node;
    }
}
