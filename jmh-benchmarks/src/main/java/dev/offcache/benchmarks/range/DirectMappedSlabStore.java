package dev.offcache.benchmarks.range;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

import org.agrona.DirectBuffer;

import dev.offcache.core.slab.BlockRef;
import dev.offcache.core.slab.BlockSlab;
import dev.offcache.range.store.BlockStore;
import dev.offcache.range.store.FetchClass;

/**
 * A minimal caching {@link BlockStore} over a real {@link BlockSlab} for the miss-path benchmark: direct-mapped,
 * a colliding put evicts the occupant. A stand-in so the miss path pays its store copies; not the L1 store.
 * Memory: owns the slab; {@link #close()} releases every block and closes it.
 */
public final class DirectMappedSlabStore implements BlockStore
{
    private record Entry(long blockKey, BlockRef ref, int length)
    {
    }

    private final BlockSlab slab;
    private final AtomicReferenceArray<Entry> table;
    private final int mask;
    private final AtomicLong bytes = new AtomicLong();

    /**
     * Creates a store.
     *
     * @param capacityBytes slab capacity.
     * @param slotSize      block size.
     */
    public DirectMappedSlabStore(final long capacityBytes, final int slotSize)
    {
        slab = BlockSlab.anonymous(capacityBytes, slotSize);
        final int size = Integer.highestOneBit(Math.max(16, slab.slotCount() * 2 - 1)) << 1;
        table = new AtomicReferenceArray<>(size);
        mask = size - 1;
    }

    @Override
    public BlockRef acquire(final long blockKey)
    {
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
        final int index = index(blockKey);
        final Entry old = table.get(index);
        if (old != null && old.blockKey == blockKey)
        {
            return true;
        }
        BlockRef ref = slab.tryAllocate();
        if (ref == null && old != null && table.compareAndSet(index, old, null))
        {
            bytes.addAndGet(-old.length);
            old.ref.release();
            ref = slab.tryAllocate();
        }
        if (ref == null)
        {
            return false;
        }
        ref.buffer().putBytes(0, source, offset, length);
        ref.length(length);
        final Entry previous = table.getAndSet(index, new Entry(blockKey, ref, length));
        bytes.addAndGet(length);
        if (previous != null)
        {
            bytes.addAndGet(-previous.length);
            previous.ref.release();
        }
        return true;
    }

    @Override
    public long sizeBytes()
    {
        return bytes.get();
    }

    @Override
    public void close()
    {
        for (int i = 0; i < table.length(); i++)
        {
            final Entry entry = table.getAndSet(i, null);
            if (entry != null)
            {
                entry.ref.release();
            }
        }
        slab.close();
    }

    private int index(final long blockKey)
    {
        long h = blockKey;
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return (int) h & mask;
    }
}
