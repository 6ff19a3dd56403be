package dev.offcache.range.engine;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import dev.offcache.core.slab.BlockRef;
import dev.offcache.range.fetch.BlockFetch;
import dev.offcache.range.fetch.BlockFetcher;
import dev.offcache.range.fetch.BlockWaiter;
import dev.offcache.range.fetch.RunAssembler;
import dev.offcache.range.metrics.ReadStatistics;
import dev.offcache.range.store.BlockKeys;
import dev.offcache.range.store.FetchClass;

/**
 * One read on the slow path (some block missing): the blocks it needs, in block order, at most {@code readAhead}
 * of them started and not yet done, so a large read never holds more than that many blocks in flight. Per block:
 * probe the store, join the block's fetch in flight, or own a new fetch; owned blocks go to a {@link RunAssembler},
 * which cuts them into origin requests only at the coalescing cap and at blocks the read did not own, never at the
 * read-ahead's edge (a run waits there while other blocks of the read are still in flight, then grows). With
 * {@code coalesceGapBytes}, a short gap of blocks the read does not want, and nobody holds or fetches, joins the run
 * before the next owned block, so one GET reads through it ({@link #readThroughGap}). Each block that arrives is
 * copied into every range that overlaps it.
 *
 * <p>A read of an object whose size is not known yet (a cold read through an origin whose answers report sizes)
 * starts without it: its blocks are asked for whole, the first answer tells the size, and the ranges are checked
 * against it before anything is copied.
 *
 * <p>With a caller's {@link ReadStatistics}, the read also counts its own hits, misses, joins, origin requests and
 * bytes there, each before the future completes.
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
    private final int readAhead;
    private final int gapBlocks;
    private final boolean gatherSpans;
    private final boolean[] owned;
    private final AtomicInteger ownedInFlight = new AtomicInteger();
    private final AtomicInteger started = new AtomicInteger();
    private final AtomicInteger done = new AtomicInteger();
    private final AtomicInteger wip = new AtomicInteger();
    private final AtomicInteger copies = new AtomicInteger();
    private final ReadFuture future;
    /** The caller's counters, or null. */
    private final ReadStatistics stats;
    /** With counters: the blocks whose fetch this read joined (counted when they arrive, before the read ends). */
    private final boolean[] joined;
    private RunAssembler runs;
    private int next;
    private volatile boolean failed;
    private volatile boolean rangesChecked;

    ReadOperation(
        final RangeCache cache,
        final ObjectEntry entry,
        final long objectSize,
        final FetchClass fetchClass,
        final boolean bypass,
        final List<RangeRequest> ranges,
        final ReadFuture future,
        final ReadStatistics stats)
    {
        this.cache = cache;
        this.stats = stats;
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
        owned = new boolean[blocks.length];
        joined = stats == null ? null : new boolean[blocks.length];
        readAhead = cache.readAheadBlocks();
        gapBlocks = bypass ? 0 : cache.gapBlocks();
        gatherSpans = n > 1;
        rangesChecked = objectSize >= 0;
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
            if (checkRanges())
            {
                future.succeed();
            }
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
        final int slot = Arrays.binarySearch(blocks, blockIndex);
        final boolean gap = ownedDone(slot);
        if (stats != null)
        {
            if (gap || owned[slot])
            {
                stats.originBytes(length);
            }
            else if (joined[slot])
            {
                stats.joined();
            }
        }
        if (gap)
        {
            return;
        }
        if (checkRanges() && beginCopy())
        {
            try
            {
                final long copied = copyBlock(blockIndex, source, offset, length);
                if (stats != null)
                {
                    stats.missBytes(copied);
                }
            }
            finally
            {
                copies.decrementAndGet();
            }
        }
        blockDone();
    }

    @Override
    public void onBlockFailed(final long blockIndex, final Throwable cause)
    {
        if (!ownedDone(Arrays.binarySearch(blocks, blockIndex)))
        {
            fail(cause);
        }
        // the open run may have been kept for this request: it is sent now, or its blocks (which other reads may
        // have joined) would stay in flight with no request for them
        drain();
    }

    /**
     * Counts an owned block's request as no longer in flight.
     *
     * @param slot the block's index in {@link #blocks}, negative for a block the read does not want.
     * @return whether the block was a gap block read through, which the read does not want.
     */
    private boolean ownedDone(final int slot)
    {
        if (slot < 0 || owned[slot])
        {
            ownedInFlight.decrementAndGet();
        }
        return slot < 0;
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

    private void blockDone()
    {
        if (done.incrementAndGet() == blocks.length)
        {
            if (checkRanges())
            {
                future.succeed();
            }
        }
        else
        {
            drain();
        }
    }

    /**
     * For a read that started without the object's size: once the size is known, checks every range against it
     * (once). A range past the end fails the read before anything more is copied.
     *
     * @return false when the read failed on its ranges.
     */
    private boolean checkRanges()
    {
        if (rangesChecked)
        {
            return !failed;
        }
        final long size = entry.size;
        if (size < 0)
        {
            return !failed;
        }
        rangesChecked = true;
        for (int i = 0; i < positions.length; i++)
        {
            if (positions[i] + lengths[i] > size)
            {
                fail(new IllegalArgumentException("range [" + positions[i] + ", " + (positions[i] + lengths[i]) +
                    ") is past the end of '" + entry.key + "' (" + size + " bytes)"));
                return false;
            }
        }
        return !failed;
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
            while (!failed && !future.isDone() && next < blocks.length && started.get() - done.get() < readAhead)
            {
                final int slot = next++;
                started.incrementAndGet();
                try
                {
                    final BlockFetch mine = resolve(slot);
                    if (mine != null)
                    {
                        // marked before the run can be sent, so its completion always finds the mark
                        owned[slot] = true;
                        final RunAssembler assembler = runs();
                        if (gapBlocks > 0 && slot > 0)
                        {
                            readThroughGap(assembler, blocks[slot - 1] + 1, blocks[slot]);
                        }
                        ownedInFlight.addAndGet(assembler.add(mine));
                    }
                }
                catch (final Throwable ex)
                {
                    fail(ex);
                }
            }
            final RunAssembler open = runs;
            // Keep a run open at the read-ahead's edge only while a run this read sent is in flight: it completes,
            // makes room, and the open run grows. Anything else (the last block, a failure, only joined blocks
            // pending) closes it, so no block waits for a request that would never be sent.
            if (open != null && open.openBlocks() > 0 && (next == blocks.length || failed || future.isDone() ||
                ownedInFlight.get() == 0))
            {
                try
                {
                    ownedInFlight.addAndGet(open.submit());
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

    /**
     * Gap read-through ({@code coalesceGapBytes}): when the open run ends right before a gap of at most
     * {@code gapBlocks} blocks this read does not want, and the gap plus the next owned block still fit the run, the
     * gap's blocks join the run so one GET reads through them instead of a second GET being sent for the next block.
     * Only when none of them is held or in flight (reading one again would cost bytes and save nothing). Gap blocks
     * are stored like any fetched block; this read waits on them only to count its requests in flight (nothing is
     * copied from them, see {@link #onBlock}). A gap where runs already jump over blocks (one request carries several
     * spans) or where the run would reach the cap first is left alone: no GET would be saved.
     *
     * @param assembler the read's runs.
     * @param from      the first block after the previous wanted block.
     * @param to        the owned block about to be added.
     */
    private void readThroughGap(final RunAssembler assembler, final long from, final long to)
    {
        final long gap = to - from;
        if (gap <= 0 || gap > gapBlocks || assembler.openEnd() != from || gap >= assembler.room() ||
            assembler.gathersSpans())
        {
            return;
        }
        for (long b = from; b < to; b++)
        {
            final long blockKey = BlockKeys.pack(entry.id, b);
            if (cache.guard().contains(blockKey) || cache.fetcher().isFetching(blockKey))
            {
                return;
            }
        }
        for (long b = from; b < to; b++)
        {
            // a gap block is never an object's last block: a full block, whether the size is known or not
            final BlockFetch fetch = cache.fetcher().claimIdle(this, BlockKeys.pack(entry.id, b), b, cache.blockSize(),
                fetchClass);
            if (fetch == null)
            {
                // another read claimed it since the check: the run ends here and the next block starts a new one
                return;
            }
            ownedInFlight.addAndGet(assembler.add(fetch));
        }
    }

    private RunAssembler runs()
    {
        if (runs == null)
        {
            runs = cache.fetcher().assembler(entry.key, objectSize,
                objectSize < 0 ? (size) -> cache.learnedSize(entry, size) : null, gatherSpans, stats);
        }
        return runs;
    }

    /**
     * Serves a block from the store, or else hands it to single flight ({@link BlockFetcher#claim}): joins its fetch
     * in flight, or owns a new fetch (returned).
     */
    private BlockFetch resolve(final int slot)
    {
        final long blockIndex = blocks[slot];
        final long blockKey = BlockKeys.pack(entry.id, blockIndex);
        // -1: the object's size is not known yet; a cached block is then taken at whatever length it has
        final int blockLength = objectSize < 0 ? -1 : cache.blockLength(blockIndex, objectSize);
        cache.metrics().blockRequest();
        if (!bypass && serveFromStore(blockKey, blockIndex, blockLength))
        {
            return null;
        }
        cache.metrics().blockMiss();
        if (stats != null)
        {
            stats.miss();
        }
        return cache.fetcher().claim(this, blockKey, blockIndex, blockLength, fetchClass,
            bypass ? null : cache.guard().anyTier, null);
    }

    /** With counters: which blocks this read joined (counted when they arrive, see {@link #onBlock}). */
    @Override
    public void waitsOn(final long blockIndex, final BlockFetch fetch, final boolean owner)
    {
        if (joined != null)
        {
            final int slot = Arrays.binarySearch(blocks, blockIndex);
            if (slot >= 0)
            {
                joined[slot] = !owner;
            }
        }
    }

    private boolean serveFromStore(final long blockKey, final long blockIndex, final int blockLength)
    {
        if (fetchClass == FetchClass.PREFETCH)
        {
            // A prefetch copies nothing out: ask whether the block is held, so a tiered store does not promote it.
            if (!cache.guard().contains(blockKey))
            {
                return false;
            }
            cache.metrics().blockHit(0);
            blockDone();
            return true;
        }
        final BlockRef ref = cache.guard().acquire(blockKey, blockLength);
        if (ref == null)
        {
            return false;
        }
        long copied = 0;
        try
        {
            if (checkRanges() && beginCopy())
            {
                try
                {
                    copied = copyBlock(blockIndex, ref.buffer(), 0, ref.length());
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
        cache.metrics().blockHit(copied);
        if (stats != null)
        {
            stats.hits(1, copied);
        }
        blockDone();
        return true;
    }

    /** Copies a block into every range it overlaps; returns the bytes copied. */
    private long copyBlock(final long blockIndex, final DirectBuffer source, final int offset, final int length)
    {
        final long blockStart = blockIndex << cache.blockShift();
        final long blockEnd = blockStart + length;
        long copied = 0;
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
                copied += end - start;
            }
        }
        return copied;
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
