package dev.offcache.range.testing;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

import org.agrona.DirectBuffer;

import dev.offcache.core.slab.BlockRef;
import dev.offcache.core.slab.BlockSlab;
import dev.offcache.range.store.BlockKeys;
import dev.offcache.range.store.BlockStore;
import dev.offcache.range.store.EvictionStats;
import dev.offcache.range.store.FetchClass;

/**
 * A small test-scope store over a real {@link BlockSlab}: direct-mapped (one entry per hashed index, a colliding
 * put evicts the occupant), so acquire allocates nothing. Not RamBlockStore; just enough of a caching store to test
 * the engine against, with an optional fault switch.
 */
public final class SlabBlockStore implements BlockStore, EvictionStats
{
    private record Entry(long blockKey, BlockRef ref, int length)
    {
    }

    private final BlockSlab slab;
    private final AtomicReferenceArray<Entry> table;
    private final int mask;
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong evictions = new AtomicLong();
    private volatile boolean failing;
    private volatile boolean slowerTier;
    private final java.util.Set<Long> loaded = java.util.concurrent.ConcurrentHashMap.newKeySet();

    public SlabBlockStore(final long capacityBytes, final int slotSize)
    {
        slab = BlockSlab.anonymous(capacityBytes, slotSize);
        final int size = Integer.highestOneBit(Math.max(16, slab.slotCount() * 2 - 1)) << 1;
        table = new AtomicReferenceArray<>(size);
        mask = size - 1;
    }

    public void failing(final boolean failing)
    {
        this.failing = failing;
    }

    public BlockSlab slab()
    {
        return slab;
    }

    /**
     * Pretends every block lives in a slower tier: not in memory, but loaded on another thread by {@link #loadAsync}.
     */
    public void slowerTier(final boolean slower)
    {
        this.slowerTier = slower;
        loaded.clear();
    }

    @Override
    public BlockRef acquireInMemory(final long blockKey)
    {
        return slowerTier && !loaded.contains(blockKey) ? null : acquire(blockKey);
    }

    @Override
    public CompletableFuture<Boolean> loadAsync(final long blockKey)
    {
        if (!slowerTier)
        {
            return null;
        }
        final BlockRef ref = acquire(blockKey);
        if (ref == null)
        {
            return null;
        }
        ref.release();
        // "loaded" on another thread: from then on the memory lookup finds it
        return CompletableFuture.supplyAsync(() ->
        {
            loaded.add(blockKey);
            return true;
        });
    }

    @Override
    public BlockRef acquire(final long blockKey)
    {
        if (failing)
        {
            throw new IllegalStateException("store failure injected by the test");
        }
        final Entry entry = table.get(index(blockKey));
        if (entry != null && entry.blockKey == blockKey && entry.ref.tryRetain())
        {
            return entry.ref;
        }
        return null;
    }

    @Override
    public boolean put(
        final long blockKey, final DirectBuffer source, final int offset, final int length, final FetchClass fetchClass)
    {
        if (failing)
        {
            throw new IllegalStateException("store failure injected by the test");
        }
        final int index = index(blockKey);
        Entry old = table.get(index);
        if (old != null && old.blockKey == blockKey)
        {
            return true;
        }
        BlockRef ref = slab.tryAllocate();
        if (ref == null && old != null && table.compareAndSet(index, old, null))
        {
            evict(old);
            old = null;
            ref = slab.tryAllocate();
        }
        if (ref == null)
        {
            return false;
        }
        ref.buffer().putBytes(0, source, offset, length);
        ref.length(length);
        final Entry entry = new Entry(blockKey, ref, length);
        final Entry previous = table.getAndSet(index, entry);
        bytes.addAndGet(length);
        if (previous != null)
        {
            evict(previous);
        }
        return true;
    }

    @Override
    public long sizeBytes()
    {
        return bytes.get();
    }

    @Override
    public long evictionCount()
    {
        return evictions.get();
    }

    @Override
    public void close()
    {
        for (int i = 0; i < table.length(); i++)
        {
            final Entry entry = table.getAndSet(i, null);
            if (entry != null)
            {
                bytes.addAndGet(-entry.length);
                entry.ref.release();
            }
        }
        slab.close();
    }

    private void evict(final Entry entry)
    {
        bytes.addAndGet(-entry.length);
        evictions.incrementAndGet();
        entry.ref.release();
    }

    private int index(final long blockKey)
    {
        // The blocks of one object take consecutive entries from a hashed start, so an object's own blocks never
        // collide (up to the table size) whatever its id: ids come from a process-wide sequence, so they depend on
        // which tests ran before, and a fully hashed index made small single-object tests collide now and then.
        final long start = (BlockKeys.objectId(blockKey) * 0x9E3779B97F4A7C15L) >>> 40;
        return (int) (start + BlockKeys.blockIndex(blockKey)) & mask;
    }
}
