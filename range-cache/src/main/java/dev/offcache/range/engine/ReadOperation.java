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
            cache.fetcher().fetch(entry.key, objectSize,
                bypass || cache.gapBlocks() == 0 || owned.size() < 2 ? owned : throughGaps(owned));
        }
    }

    /**
     * The owned fetches plus, between two of them that no other wanted block separates, the gap's blocks when the
     * gap is at most {@code gapBlocks} long and none of its blocks is held or in flight: one GET then reads the gap
     * instead of a second GET being sent. Gap blocks have no waiter (nothing is copied from them); they are stored
     * like any fetched block, and a reader that wants one later joins or hits it.
     */
    private List<BlockFetch> throughGaps(final List<BlockFetch> owned)
    {
        List<BlockFetch> filled = null;
        for (int i = 1; i < owned.size(); i++)
        {
            final long from = owned.get(i - 1).blockIndex() + 1;
            final long to = owned.get(i).blockIndex();
            if (to > from && to - from <= cache.gapBlocks() && gapIsFree(from, to))
            {
                if (filled == null)
                {
                    filled = new ArrayList<>(owned.subList(0, i));
                }
                for (long b = from; b < to; b++)
                {
                    final BlockFetch gap = new BlockFetch(BlockKeys.pack(entry.id, b), b,
                        cache.blockLength(b, objectSize), fetchClass, true);
                    // Another read may claim a gap block between the check and here: the run then splits there.
                    if (cache.fetcher().tryOwn(gap) == null)
                    {
                        filled.add(gap);
                    }
                }
            }
            if (filled != null)
            {
                filled.add(owned.get(i));
            }
        }
        return filled == null ? owned : filled;
    }

    /** Whether no block in [from, to) is wanted by this read, held, or being fetched. */
    private boolean gapIsFree(final long from, final long to)
    {
        final int at = Arrays.binarySearch(blocks, from);
        final int insertion = at >= 0 ? at : -at - 1;
        if (insertion < blocks.length && blocks[insertion] < to)
        {
            return false;
        }
        for (long b = from; b < to; b++)
        {
            final long blockKey = BlockKeys.pack(entry.id, b);
            if (cache.contains(blockKey) || cache.fetcher().inFlight(blockKey) != null)
            {
                return false;
            }
        }
        return true;
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
        if (fetchClass == FetchClass.PREFETCH)
        {
            // A prefetch copies nothing out: ask whether the block is held, so a tiered store does not promote it.
            if (!cache.contains(blockKey))
            {
                return false;
            }
            if (count)
            {
                cache.metrics().blockHit();
            }
            blockDone(blockSlot);
            return true;
        }
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
