package dev.offcache.range.fetch;

import java.util.concurrent.atomic.AtomicBoolean;

import dev.offcache.range.store.FetchClass;

/**
 * Contiguous missing blocks of one object fetched by one origin GET. Its class is demand when any block has a
 * demand waiter; it can be promoted while queued or running.
 */
public final class FetchRun
{
    final String key;
    final long offset;
    final int length;
    final BlockFetch[] blocks;
    final int blockSize;
    /** Guarded by the budget lock. */
    FetchClass fetchClass;
    /** Guarded by the budget lock: whether it counts against the prefetch permits. */
    boolean holdsPrefetchPermit;
    /** Guarded by the budget lock. */
    boolean queued;
    private final AtomicBoolean finished = new AtomicBoolean();

    FetchRun(final String key, final int blockSize, final BlockFetch[] blocks, final long objectSize)
    {
        this.key = key;
        this.blockSize = blockSize;
        this.blocks = blocks;
        this.offset = blocks[0].blockIndex * (long) blockSize;
        final long end = Math.min(objectSize, (blocks[blocks.length - 1].blockIndex + 1) * (long) blockSize);
        this.length = (int) (end - offset);
    }

    /**
     * Returns the object key.
     *
     * @return the object key.
     */
    public String key()
    {
        return key;
    }

    /**
     * Returns the first byte fetched.
     *
     * @return the first byte fetched.
     */
    public long offset()
    {
        return offset;
    }

    /**
     * Returns the bytes fetched.
     *
     * @return the bytes fetched.
     */
    public int length()
    {
        return length;
    }

    /**
     * Returns the blocks carried.
     *
     * @return the blocks carried.
     */
    public int blockCount()
    {
        return blocks.length;
    }

    boolean finish()
    {
        return finished.compareAndSet(false, true);
    }

    boolean anyDemand()
    {
        for (final BlockFetch block : blocks)
        {
            if (block.demand)
            {
                return true;
            }
        }
        return false;
    }
}
