package dev.offcache.range.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import dev.offcache.core.slab.BlockRef;
import dev.offcache.range.fetch.BlockFetch;
import dev.offcache.range.fetch.BlockWaiter;
import dev.offcache.range.store.BlockKeys;
import dev.offcache.range.store.FetchClass;

/**
 * One read on the slow path (some block missing): the blocks it needs, in windows of {@code windowBlocks} with at
 * most {@code windowsInFlight} windows fetching at once, so a large read never holds more than that many blocks
 * in flight. Per window: probe the store per block, join blocks already in flight, own the rest and hand them to
 * the fetcher, which coalesces them into GETs. Each block that arrives is copied into every range that overlaps it.
 *
 * <p>Memory: copies go straight from the store's slot or the fetcher's staging buffer into the caller's buffers,
 * guarded so that none happens after the caller gave up ({@link #abandon()}).
 */
final class ReadOperation implements BlockWaiter
{
    private static final int ABANDONED = 1 << 30;

    private final RangeCache cache;
    private final ObjectEntry entry;
    private final long objectSize;
    private final FetchClass fetchClass;
    private final boolean bypass;
    private final long[] positions;
    private final int[] lengths;
    private final MutableDirectBuffer[] destinations;
    private final int[] destinationOffsets;
    private final long[] blocks;
    private final int windowBlocks;
    private final int windowCount;
    private final AtomicIntegerArray pendingPerWindow;
    private final AtomicInteger windowsDone = new AtomicInteger();
    private final AtomicInteger credits;
    private final AtomicInteger wip = new AtomicInteger();
    private final AtomicInteger copies = new AtomicInteger();
    private final ReadFuture future;
    private int nextWindow;
    private volatile boolean failed;

    ReadOperation(
        final RangeCache cache,
        final ObjectEntry entry,
        final long objectSize,
        final FetchClass fetchClass,
        final boolean bypass,
        final List<RangeRequest> ranges,
        final ReadFuture future)
    {
        this.cache = cache;
        this.future = future;
        this.entry = entry;
        this.objectSize = objectSize;
        this.fetchClass = fetchClass;
        this.bypass = bypass;
        final int n = ranges.size();
        positions = new long[n];
        lengths = new int[n];
        destinations = new MutableDirectBuffer[n];
        destinationOffsets = new int[n];
        for (int i = 0; i < n; i++)
        {
            final RangeRequest range = ranges.get(i);
            positions[i] = range.position();
            lengths[i] = range.length();
            destinations[i] = range.destination();
            destinationOffsets[i] = range.destinationOffset();
        }
        blocks = blocksOf(positions, lengths, cache.blockShift());
        windowBlocks = cache.windowBlocks();
        windowCount = Math.max(1, (blocks.length + windowBlocks - 1) / windowBlocks);
        pendingPerWindow = new AtomicIntegerArray(windowCount);
        for (int w = 0; w < windowCount; w++)
        {
            pendingPerWindow.set(w, Math.min(windowBlocks, blocks.length - w * windowBlocks));
        }
        credits = new AtomicInteger(cache.windowsInFlight());
    }

    ReadFuture future()
    {
        return future;
    }

    ReadFuture start()
    {
        if (!future.attach(this))
        {
            return future;
        }
        if (blocks.length == 0)
        {
            future.succeed();
        }
        else
        {
            drain();
        }
        return future;
    }

    @Override
    public void onBlock(final long blockIndex, final DirectBuffer source, final int offset, final int length)
    {
        if (beginCopy())
        {
            try
            {
                copyBlock(blockIndex, source, offset);
            }
            finally
            {
                copies.decrementAndGet();
            }
        }
        blockDone(Arrays.binarySearch(blocks, blockIndex));
    }

    @Override
    public void onBlockFailed(final long blockIndex, final Throwable cause)
    {
        fail(cause);
    }

    /**
     * Stops all further copies into the caller's buffers and waits for any copy in progress to end.
     */
    void abandon()
    {
        int state;
        do
        {
            state = copies.get();
        }
        while ((state & ABANDONED) == 0 && !copies.compareAndSet(state, state | ABANDONED));
        while ((copies.get() & ~ABANDONED) != 0)
        {
            Thread.onSpinWait();
        }
    }

    private boolean beginCopy()
    {
        while (true)
        {
            final int state = copies.get();
            if ((state & ABANDONED) != 0)
            {
                return false;
            }
            if (copies.compareAndSet(state, state + 1))
            {
                return true;
            }
        }
    }

    private void fail(final Throwable cause)
    {
        failed = true;
        future.fail(cause);
    }

    private void blockDone(final int blockSlot)
    {
        final int window = blockSlot / windowBlocks;
        if (pendingPerWindow.decrementAndGet(window) == 0)
        {
            if (windowsDone.incrementAndGet() == windowCount)
            {
                future.succeed();
            }
            else
            {
                credits.incrementAndGet();
                drain();
            }
        }
    }

    private void drain()
    {
        if (wip.getAndIncrement() != 0)
        {
            return;
        }
        int missed = 1;
        do
        {
            while (!failed && !future.isDone() && nextWindow < windowCount && credits.get() > 0)
            {
                credits.decrementAndGet();
                final int window = nextWindow++;
                try
                {
                    startWindow(window);
                }
                catch (final Throwable ex)
                {
                    fail(ex);
                }
            }
            missed = wip.addAndGet(-missed);
        }
        while (missed != 0);
    }

    private void startWindow(final int window)
    {
        final int from = window * windowBlocks;
        final int to = Math.min(blocks.length, from + windowBlocks);
        List<BlockFetch> owned = null;
        for (int i = from; i < to; i++)
        {
            final BlockFetch fetch = resolve(blocks[i], i);
            if (fetch != null)
            {
                if (owned == null)
                {
                    owned = new ArrayList<>(to - i);
                }
                owned.add(fetch);
            }
        }
        if (owned != null)
        {
            cache.fetcher().fetch(entry.key, objectSize, owned);
        }
    }

    /**
     * Serves a block from the store, joins its fetch in flight, or owns a new fetch (returned).
     */
    private BlockFetch resolve(final long blockIndex, final int blockSlot)
    {
        final long blockKey = BlockKeys.pack(entry.id, blockIndex);
        final int blockLength = cache.blockLength(blockIndex, objectSize);
        cache.metrics().blockRequest();
        boolean counted = false;
        while (true)
        {
            if (!bypass && serveFromStore(blockKey, blockIndex, blockLength, blockSlot, !counted))
            {
                return null;
            }
            if (!counted)
            {
                cache.metrics().blockMiss();
                counted = true;
            }
            final BlockFetch existing = cache.fetcher().inFlight(blockKey);
            if (existing != null)
            {
                if (cache.fetcher().join(existing, this, fetchClass == FetchClass.DEMAND))
                {
                    return null;
                }
                cache.fetcher().forget(existing);
                continue;
            }
            final BlockFetch fetch = new BlockFetch(blockKey, blockIndex, blockLength, fetchClass, !bypass);
            fetch.join(this);
            if (cache.fetcher().tryOwn(fetch) != null)
            {
                continue;
            }
            // A fetch of this block may have finished between our probe and our claim: look once more.
            if (!bypass)
            {
                final BlockRef ref = cache.acquire(blockKey, blockLength);
                if (ref != null)
                {
                    try
                    {
                        fetch.complete(ref.buffer(), 0);
                    }
                    finally
                    {
                        ref.release();
                        cache.fetcher().forget(fetch);
                    }
                    return null;
                }
            }
            return fetch;
        }
    }

    private boolean serveFromStore(
        final long blockKey, final long blockIndex, final int blockLength, final int blockSlot, final boolean count)
    {
        final BlockRef ref = cache.acquire(blockKey, blockLength);
        if (ref == null)
        {
            return false;
        }
        try
        {
            if (beginCopy())
            {
                try
                {
                    copyBlock(blockIndex, ref.buffer(), 0);
                }
                finally
                {
                    copies.decrementAndGet();
                }
            }
        }
        finally
        {
            ref.release();
        }
        if (count)
        {
            cache.metrics().blockHit();
        }
        blockDone(blockSlot);
        return true;
    }

    private void copyBlock(final long blockIndex, final DirectBuffer source, final int offset)
    {
        final long blockStart = blockIndex << cache.blockShift();
        final long blockEnd = Math.min(objectSize, blockStart + cache.blockSize());
        for (int i = 0; i < positions.length; i++)
        {
            final MutableDirectBuffer destination = destinations[i];
            if (destination == null)
            {
                continue;
            }
            final long start = Math.max(positions[i], blockStart);
            final long end = Math.min(positions[i] + lengths[i], blockEnd);
            if (start < end)
            {
                destination.putBytes(
                    destinationOffsets[i] + (int) (start - positions[i]),
                    source,
                    offset + (int) (start - blockStart),
                    (int) (end - start));
            }
        }
    }

    private static long[] blocksOf(final long[] positions, final int[] lengths, final int blockShift)
    {
        int count = 0;
        for (int i = 0; i < positions.length; i++)
        {
            if (lengths[i] > 0)
            {
                count += (int) (((positions[i] + lengths[i] - 1) >>> blockShift) - (positions[i] >>> blockShift) + 1);
            }
        }
        final long[] all = new long[count];
        int k = 0;
        for (int i = 0; i < positions.length; i++)
        {
            if (lengths[i] > 0)
            {
                for (long b = positions[i] >>> blockShift, last = (positions[i] + lengths[i] - 1) >>> blockShift;
                    b <= last; b++)
                {
                    all[k++] = b;
                }
            }
        }
        Arrays.sort(all);
        int unique = 0;
        for (int i = 0; i < all.length; i++)
        {
            if (i == 0 || all[i] != all[i - 1])
            {
                all[unique++] = all[i];
            }
        }
        return Arrays.copyOf(all, unique);
    }
}
