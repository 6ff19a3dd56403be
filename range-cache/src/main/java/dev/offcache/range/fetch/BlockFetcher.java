package dev.offcache.range.fetch;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongConsumer;

import org.agrona.concurrent.UnsafeBuffer;

import dev.offcache.core.slab.BlockRef;
import dev.offcache.range.metrics.RangeMetrics;
import dev.offcache.range.metrics.ReadStatistics;
import dev.offcache.range.metrics.StoreFallback;
import dev.offcache.range.origin.BlockProgress;
import dev.offcache.range.origin.ObjectStore;
import dev.offcache.range.origin.OriginException;
import dev.offcache.range.origin.OriginTimeoutException;
import dev.offcache.range.origin.ShortReadException;
import dev.offcache.range.store.BlockStore;
import dev.offcache.range.store.FetchClass;

/**
 * Fetches missing blocks from the origin: keeps the in-flight blocks (single flight: {@link #claim} is the one way a
 * reader joins or owns a block's fetch), runs the requests that the
 * reads' {@link RunAssembler}s close (at most {@code maxRunBlocks} blocks each, one GET, or one vectored read for an
 * origin that reads several ranges at once) under the {@link FetchPermits}, and on completion offers each block to
 * the store and hands it to its waiters.
 *
 * <p>A fetch is detached from the reads that started it: a reader that gives up only stops listening. A failed,
 * short or timed-out GET fails every waiter of its blocks with the same error and stores nothing.
 *
 * <p>Memory: GETs land in {@link StagingPool} buffers, or, for an origin that reads into block buffers and a store
 * that reserves slots ({@link ObjectStore#readsBlocks}, {@link BlockStore#reserve}), straight in the store's slots,
 * each block handed on as soon as it is in. A buffer, or a slot not landed, goes back only once the origin call has
 * finished with it, even when the run timed out earlier.
 */
public final class BlockFetcher implements AutoCloseable
{
    private final ObjectStore origin;
    private final BlockStore store;
    private final RangeMetrics metrics;
    private final int blockSize;
    private final int maxRunBlocks;
    private final long timeoutNs;
    private final ScheduledExecutorService timer;
    private final StagingPool staging;
    private final FetchPermits fetchPermits;
    private final ConcurrentHashMap<Long, BlockFetch> inFlight = new ConcurrentHashMap<>();
    private final LongAdder blocksFailed = new LongAdder();
    private final LongAdder blocksPastEnd = new LongAdder();

    /**
     * Creates an instance.
     *
     * @param origin         where blocks come from.
     * @param store          where fetched blocks are offered, or {@code null} for none.
     * @param metrics        counters.
     * @param blockSize      bytes per block.
     * @param maxRunBytes    the coalescing cap of one GET.
     * @param permits        GETs in flight at most.
     * @param demandReserved permits only demand may use.
     * @param timeoutNs      deadline of one GET.
     * @param timer          runs the deadlines; not owned.
     */
    public BlockFetcher(
        final ObjectStore origin,
        final BlockStore store,
        final RangeMetrics metrics,
        final int blockSize,
        final int maxRunBytes,
        final int permits,
        final int demandReserved,
        final long timeoutNs,
        final ScheduledExecutorService timer)
    {
        this.origin = origin;
        this.store = store;
        this.metrics = metrics;
        this.blockSize = blockSize;
        this.maxRunBlocks = Math.max(1, maxRunBytes / blockSize);
        this.timeoutNs = timeoutNs;
        this.timer = timer;
        this.staging = new StagingPool(maxRunBlocks * blockSize, Math.min(4, permits));
        this.fetchPermits = new FetchPermits(permits, demandReserved, this::launch, metrics);
    }

    /**
     * Returns the fetchPermits, for inspection.
     *
     * @return the fetchPermits, for inspection.
     */
    public FetchPermits fetchPermits()
    {
        return fetchPermits;
    }

    /**
     * Returns the staging pool, for inspection.
     *
     * @return the staging pool, for inspection.
     */
    public StagingPool staging()
    {
        return staging;
    }

    /**
     * Returns the block fetches that failed (their GET failed, timed out or came back short), since start.
     *
     * @return failed block fetches.
     */
    public long blocksFailed()
    {
        return blocksFailed.sum();
    }

    /**
     * Returns the block fetches that found their block past the object's end (asked for before the size was known),
     * since start: not failures.
     *
     * @return block fetches completed as past the end.
     */
    public long blocksPastEnd()
    {
        return blocksPastEnd.sum();
    }

    /**
     * Returns blocks in flight now.
     *
     * @return blocks in flight now.
     */
    public int inFlightBlocks()
    {
        return inFlight.size();
    }

    /**
     * Single flight, the one protocol every reader follows (a read, a stream, a size probe) for a block it did not
     * find in the store: join the block's fetch in flight, or own a new fetch. An owned fetch is looked up in the
     * store once more ({@code store}), since a fetch of the block may have finished between the reader's look and its
     * claim: the store then serves it (its waiters, and any reader that joined it meanwhile, get the block) and
     * nothing is sent. Otherwise the owned fetch is the caller's, to add to its {@link RunAssembler} at once: a block
     * others may join must be sent, never stranded.
     *
     * <p>Whatever the outcome, the waiter hears of the block exactly once ({@link BlockWaiter#onBlock},
     * {@link BlockWaiter#onBlockFailed} or {@link BlockWaiter#onBlockPastEnd}), and before it can, it is told which
     * fetch it waits on ({@link BlockWaiter#waitsOn}; told again if that fetch turns out to be over and another is
     * tried).
     *
     * @param waiter         who waits for the block.
     * @param blockKey       the store key.
     * @param blockIndex     the index in its object.
     * @param expectedLength the block's length, or -1 when the object's size is not known yet (a whole block is asked
     *                       for, cut to the object's end by the answer; the store's copy is taken at any length).
     * @param fetchClass     the reader's class: a demand reader promotes a prefetch it joins.
     * @param store          where an owned fetch looks again, and whether the fetched block is offered to the
     *                       store; null for a reader that bypasses the store.
     * @param sendRequest    for an owner that keeps runs open: asks it to send its open run now (a joiner calls it,
     *                       see {@link RunAssembler}); null otherwise.
     * @return the new fetch the caller owns and must add to its runs, or null when the waiter joined a fetch in flight
     *         or was served from the store.
     */
    public BlockFetch claim(
        final BlockWaiter waiter,
        final long blockKey,
        final long blockIndex,
        final int expectedLength,
        final FetchClass fetchClass,
        final BlockLookup store,
        final Runnable sendRequest)
    {
        final boolean demand = fetchClass == FetchClass.DEMAND;
        final int length = expectedLength < 0 ? blockSize : expectedLength;
        while (true)
        {
            final BlockFetch existing = inFlight(blockKey);
            if (existing != null)
            {
                // told before the join: the fetch may complete on another thread as soon as it is joined
                waiter.waitsOn(blockIndex, existing, false);
                if (join(existing, waiter, demand))
                {
                    return null;
                }
                // over between the look and the join: forget it (it is being forgotten) and look again
                forget(existing);
                continue;
            }
            final BlockFetch fetch = own(waiter, blockKey, blockIndex, length, fetchClass, store != null, sendRequest);
            if (fetch == null)
            {
                // another reader claimed the block meanwhile: join that one
                continue;
            }
            return null != store && servedFromStore(fetch, store, expectedLength) ? null : fetch;
        }
    }

    /**
     * Owns the fetch of a block nobody fetches, for a read-through of blocks the reader does not need (a short gap
     * one GET reads through rather than two GETs around it): the single-flight claim of {@link #claim} without the
     * join and without a second look in the store (the caller looked). When another reader claimed the block first,
     * nothing happens and the waiter hears nothing of it.
     *
     * @param waiter     told of the block (it is told it owns the fetch first, {@link BlockWaiter#waitsOn}).
     * @param blockKey   the store key.
     * @param blockIndex the index in its object.
     * @param length     the block's length.
     * @param fetchClass the reader's class.
     * @return the new fetch the caller owns and must add to its runs, or null when the block is fetched already.
     */
    public BlockFetch claimIdle(
        final BlockWaiter waiter, final long blockKey, final long blockIndex, final int length,
        final FetchClass fetchClass)
    {
        return own(waiter, blockKey, blockIndex, length, fetchClass, true, null);
    }

    /**
     * Whether a fetch of the block is in flight now (a hint: it may end, or begin, at once).
     *
     * @param blockKey the store key.
     * @return whether a fetch of the block is registered.
     */
    public boolean isFetching(final long blockKey)
    {
        return inFlight.containsKey(blockKey);
    }

    /** A new fetch with its waiter, registered unless one is in flight already (then null: it never runs). */
    private BlockFetch own(
        final BlockWaiter waiter, final long blockKey, final long blockIndex, final int length,
        final FetchClass fetchClass, final boolean admit, final Runnable sendRequest)
    {
        final BlockFetch fetch = new BlockFetch(blockKey, blockIndex, length, fetchClass, admit);
        if (null != sendRequest)
        {
            // before the fetch can be joined: a joiner must be able to ask for the run to be sent
            fetch.sendRequest(sendRequest);
        }
        waiter.waitsOn(blockIndex, fetch, true);
        fetch.join(waiter);
        return tryOwn(fetch) == null ? fetch : null;
    }

    /** The second look of {@link #claim}: the store holds the block now, so it completes the fetch just claimed. */
    private boolean servedFromStore(final BlockFetch fetch, final BlockLookup store, final int expectedLength)
    {
        final BlockRef ref = store.acquire(fetch.blockKey, expectedLength);
        if (null == ref)
        {
            return false;
        }
        try
        {
            fetch.complete(ref.buffer(), 0, ref.length());
        }
        finally
        {
            ref.release();
            forget(fetch);
        }
        return true;
    }

    /** The fetch of a block, if one is in flight, else null. */
    BlockFetch inFlight(final long blockKey)
    {
        return inFlight.get(blockKey);
    }

    /** Registers a new fetch unless one is in flight for the block: null when {@code fetch} now owns it. */
    BlockFetch tryOwn(final BlockFetch fetch)
    {
        return inFlight.putIfAbsent(fetch.blockKey, fetch);
    }

    /** Forgets a fetch that is over, so the next reader looks in the store or fetches again. */
    void forget(final BlockFetch fetch)
    {
        inFlight.remove(fetch.blockKey, fetch);
    }

    /**
     * Joins a reader to a block in flight, promoting its run if the reader is demand and the run prefetch, and asking
     * its owner to send the run at once if the owner is still growing it; false when the fetch is already over.
     */
    boolean join(final BlockFetch fetch, final BlockWaiter waiter, final boolean demand)
    {
        if (!fetch.join(waiter))
        {
            return false;
        }
        metrics.singleFlightJoin();
        if (demand && !fetch.demand)
        {
            fetchPermits.promote(fetch);
        }
        final Runnable sendRequest = fetch.pendingSendRequest();
        if (sendRequest != null)
        {
            // the block waits in its owner's open run: ask the owner to send it now rather than wait for it to grow
            sendRequest.run();
        }
        return true;
    }

    /**
     * A run builder for the blocks one reader owns ({@link #claim}), which counts the origin requests it sends in the
     * reader's counters, if any (and hands them to each run, {@link FetchRun#statistics()}).
     *
     * @param key          the object key.
     * @param objectSize   the object's size, or -1 when not known yet (a cold read: whole blocks are asked for).
     * @param sizeListener told the size a cold run learns, before its blocks complete; may be null.
     * @param gatherSpans  whether one request may carry several ranges (only when the origin reads them together).
     * @param statistics   the read's counters, or null.
     * @return a new assembler, owned by the caller.
     */
    public RunAssembler assembler(
        final String key, final long objectSize, final LongConsumer sizeListener, final boolean gatherSpans,
        final ReadStatistics statistics)
    {
        return new RunAssembler(this, key, objectSize, sizeListener, gatherSpans && origin.readsVectored(),
            maxRunBlocks, statistics);
    }

    /**
     * Returns the most blocks one origin request carries ({@code maxCoalescedGetBytes / blockSize}).
     *
     * @return at least 1.
     */
    public int maxRunBlocks()
    {
        return maxRunBlocks;
    }

    int blockSize()
    {
        return blockSize;
    }

    /**
     * Submits a closed run to the fetchPermits: it starts at once if a permit is free, else queues.
     *
     * @param run the run.
     */
    void submit(final FetchRun run)
    {
        fetchPermits.submit(run);
    }

    /**
     * Frees idle staging memory. Fetches still running complete or time out on their own.
     */
    @Override
    public void close()
    {
        staging.close();
    }

    private void launch(final FetchRun run)
    {
        final SlotLanding landing = landingFor(run, fetchPermits.classOf(run));
        StagingPool.Staging buffer = null;
        if (null == landing)
        {
            try
            {
                buffer = staging.acquire();
            }
            catch (final Throwable ex)
            {
                if (run.finish())
                {
                    fetchPermits.release(run);
                    failRun(run, new OriginException("no staging memory for a GET of '" + run.key + "'", ex), 0);
                }
                return;
            }
        }
        final StagingPool.Staging staged = buffer;
        final FetchClass startClass = fetchPermits.classOf(run);
        final long startNs = System.nanoTime();
        metrics.originGetStarted(startClass, run.blocks.length);
        CompletableFuture<int[]> io;
        try
        {
            io = null == landing ? request(run, staged, startClass) :
                origin.readBlocks(run.key, run.offset, landing.targets, startClass, run, landing)
                    .thenApply((bytes) -> new int[] {bytes == null ? 0 : bytes});
        }
        catch (final Throwable ex)
        {
            io = CompletableFuture.failedFuture(ex);
        }
        final CompletableFuture<int[]> request = io;
        final ScheduledFuture<?> deadline = scheduleDeadline(run, landing, startNs);
        request.whenComplete((bytes, error) ->
        {
            if (null != deadline)
            {
                deadline.cancel(false);
            }
            try
            {
                onGetDone(run, null == staged ? null : staged.view(), landing, bytes, error, startNs);
            }
            finally
            {
                if (null != staged)
                {
                    staging.release(staged);
                }
                else
                {
                    landing.releaseUnlanded();
                }
            }
        });
    }

    /**
     * The run's deadline, or null once the engine has closed its timer: a run a released permit starts after the
     * close must still reach its completion below, which ends its waiters and returns its buffer, and the closed
     * origin ends the call by itself.
     */
    private ScheduledFuture<?> scheduleDeadline(final FetchRun run, final SlotLanding landing, final long startNs)
    {
        try
        {
            return timer.schedule(() -> onTimeout(run, landing, startNs), timeoutNs, TimeUnit.NANOSECONDS);
        }
        catch (final RejectedExecutionException ex)
        {
            return null;
        }
    }

    /**
     * Slots of the store for a run's blocks, so the origin's answer lands in them with no staging copy and each
     * block goes on as soon as its bytes are in; null (stage it) unless the origin reads into block buffers, the run
     * is one span, every block is to be stored and the store gives a slot for each.
     */
    private SlotLanding landingFor(final FetchRun run, final FetchClass fetchClass)
    {
        if (null == store || run.spanCount() != 1 || !origin.readsBlocks())
        {
            return null;
        }
        for (final BlockFetch block : run.blocks)
        {
            if (!block.admit)
            {
                return null;
            }
        }
        final BlockRef[] slots = new BlockRef[run.blocks.length];
        final ByteBuffer[] targets = new ByteBuffer[run.blocks.length];
        try
        {
            for (int i = 0; i < slots.length; i++)
            {
                slots[i] = store.reserve(run.blocks[i].blockKey, fetchClass);
                if (null == slots[i])
                {
                    releaseAll(slots);
                    return null;
                }
                final long blockStart = run.blocks[i].blockIndex * (long) blockSize;
                final int asked = run.objectSize < 0 ? blockSize :
                    (int) Math.min(blockSize, run.objectSize - blockStart);
                targets[i] = slots[i].byteBuffer().limit(asked);
            }
        }
        catch (final RuntimeException ex)
        {
            releaseAll(slots);
            metrics.fallback(StoreFallback.PUT_ERROR);
            return null;
        }
        return new SlotLanding(run, slots, targets, fetchClass);
    }

    private static void releaseAll(final BlockRef[] slots)
    {
        for (int i = 0; i < slots.length; i++)
        {
            if (null != slots[i])
            {
                slots[i].release();
                slots[i] = null;
            }
        }
    }

    /** The bytes of a block of an object of {@code size} bytes ({@code size} known), 0 past its end. */
    private int blockLengthIn(final BlockFetch block, final long size)
    {
        return (int) Math.max(0, Math.min(blockSize, size - block.blockIndex * (long) blockSize));
    }

    /**
     * Hands a block landed in a slot to the store and its waiters: the store takes the slot, and the waiters read it
     * under a reference of the fetcher's own, since the store may evict it at once.
     */
    private void land(final BlockFetch block, final BlockRef slot, final int length, final FetchClass fetchClass)
    {
        slot.length(length);
        slot.tryRetain();
        try
        {
            offer(block, slot, null, 0, length, fetchClass);
            block.complete(slot.buffer(), 0, length);
        }
        finally
        {
            slot.release();
        }
        forget(block);
    }

    /**
     * One GET landing in store slots, one per block, told of each filled block on the origin's thread: a block
     * whose bytes are all in (the object's size known, so its length is) is stored and handed on at once, in order;
     * whatever is left waits for the answer's end ({@link #onGetDone}). Slots not landed are released only when the
     * origin's call is over, even after a timeout, since the origin may still write into them.
     */
    private final class SlotLanding implements BlockProgress
    {
        final FetchRun run;
        final BlockRef[] slots;
        final ByteBuffer[] targets;
        final FetchClass fetchClass;
        /** Blocks landed so far, a prefix of the run; written on the origin's thread. */
        volatile int landed;

        SlotLanding(final FetchRun run, final BlockRef[] slots, final ByteBuffer[] targets, final FetchClass fetchClass)
        {
            this.run = run;
            this.slots = slots;
            this.targets = targets;
            this.fetchClass = fetchClass;
        }

        @Override
        public void filled(final int index, final int bytes)
        {
            final long size = run.objectSize >= 0 ? run.objectSize : run.reportedSize();
            if (index != landed || size < 0 || run.isFinished())
            {
                // out of order, the size not told yet, or timed out: the end of the answer sorts it out
                return;
            }
            final BlockFetch block = run.blocks[index];
            final int expected = blockLengthIn(block, size);
            if (expected == 0 || bytes != expected)
            {
                return;
            }
            final BlockRef slot = slots[index];
            slots[index] = null;
            landed = index + 1;
            land(block, slot, bytes, fetchClass);
        }

        /** The slot of a block not landed yet, now the caller's. */
        BlockRef take(final int index)
        {
            final BlockRef slot = slots[index];
            slots[index] = null;
            return slot;
        }

        void releaseUnlanded()
        {
            releaseAll(slots);
        }
    }

    /** One origin request for the run: a GET of its one span, or one vectored read of all its spans. */
    private CompletableFuture<int[]> request(
        final FetchRun run, final StagingPool.Staging buffer, final FetchClass startClass)
    {
        final int spans = run.spanCount();
        if (spans == 1)
        {
            return origin.read(run.key, run.offset, buffer.target(run.length), startClass, run)
                .thenApply((bytes) -> new int[] {bytes == null ? 0 : bytes});
        }
        final ByteBuffer[] targets = new ByteBuffer[spans];
        int at = 0;
        for (int i = 0; i < spans; i++)
        {
            targets[i] = buffer.target(at, run.spanLengths[i]);
            at += run.spanLengths[i];
        }
        return origin.readVectored(run.key, run.spanOffsets.clone(), targets, startClass, run);
    }

    private void onTimeout(final FetchRun run, final SlotLanding landing, final long startNs)
    {
        if (!run.finish())
        {
            return;
        }
        fetchPermits.release(run);
        metrics.originGetEnded(fetchPermits.classOf(run), 0, System.nanoTime() - startNs);
        metrics.originError();
        // blocks landed before the deadline were handed on already; a block landing now hears of the finish
        failRun(run, new OriginTimeoutException("GET of '" + run.key + "' bytes " + run.offset + "+" + run.length,
            TimeUnit.NANOSECONDS.toMillis(timeoutNs)), null == landing ? 0 : landing.landed);
        // The request is not cancelled: a cancelled future may complete while the origin still writes into the
        // staging buffer. The buffer returns to the pool only when the origin's own future completes.
    }

    private void onGetDone(
        final FetchRun run,
        final UnsafeBuffer view,
        final SlotLanding landing,
        final int[] bytes,
        final Throwable error,
        final long startNs)
    {
        if (!run.finish())
        {
            return;
        }
        fetchPermits.release(run);
        final FetchClass fetchClass = fetchPermits.classOf(run);
        final int landed = null == landing ? 0 : landing.landed;
        final int spans = run.spanCount();
        long received = 0;
        if (bytes != null)
        {
            for (final int n : bytes)
            {
                received += n;
            }
        }
        metrics.originGetEnded(fetchClass, received, System.nanoTime() - startNs);
        if (error != null || bytes == null || bytes.length != spans)
        {
            metrics.originError();
            failRun(run, error != null ? unwrap(error, run) :
                new OriginException("vectored read of '" + run.key + "' answered " +
                    (bytes == null ? "nothing" : bytes.length + " of " + spans + " ranges")), landed);
            return;
        }
        final long size = run.objectSize >= 0 ? run.objectSize : learnedSize(run, bytes);
        for (int i = 0; i < spans; i++)
        {
            final int expected = size < 0 ? run.spanLengths[i] :
                (int) Math.max(0, Math.min(run.spanLengths[i], size - run.spanOffsets[i]));
            if (bytes[i] != expected && !(size < 0 && bytes[i] == 0))
            {
                metrics.originError();
                failRun(run, new ShortReadException(run.key, run.spanOffsets[i], expected, bytes[i]), landed);
                return;
            }
        }
        if (run.objectSize < 0 && size >= 0)
        {
            // told already when the answer's headers carried it (FetchRun.accept)
            run.tellSize(size);
        }
        int at = 0;
        for (int span = 0; span < spans; span++)
        {
            final int first = run.spanFirst[span];
            final int last = span + 1 < spans ? run.spanFirst[span + 1] : run.blocks.length;
            for (int i = Math.max(first, landed); i < last; i++)
            {
                final BlockFetch block = run.blocks[i];
                final long blockStart = block.blockIndex * (long) blockSize;
                final int blockLength = size >= 0 ? (int) Math.max(0, Math.min(blockSize, size - blockStart)) :
                    (bytes[span] == 0 ? 0 : blockSize);
                final int offset = at + (i - first) * blockSize;
                if (blockLength == 0)
                {
                    // asked for before the size was known: no failure, nothing allocated (a probe's open range)
                    blocksPastEnd.increment();
                    block.completePastEnd(size);
                }
                else if (null != landing)
                {
                    land(block, landing.take(i), blockLength, fetchClass);
                    continue;
                }
                else
                {
                    if (block.admit && store != null)
                    {
                        offer(block, null, view, offset, blockLength, fetchClass);
                    }
                    block.complete(view, offset, blockLength);
                }
                forget(block);
            }
            at += run.spanLengths[span];
        }
    }

    /**
     * The size a run of an object of unknown size learned: the one its answer reported, else where a short span
     * ended (a read is short only where the object ends), else unknown (-1: every span came back whole, so every
     * block is whole too).
     */
    private static long learnedSize(final FetchRun run, final int[] bytes)
    {
        final long reported = run.reportedSize();
        if (reported >= 0)
        {
            return reported;
        }
        for (int i = 0; i < bytes.length; i++)
        {
            if (bytes[i] > 0 && bytes[i] < run.spanLengths[i])
            {
                return run.spanOffsets[i] + bytes[i];
            }
        }
        return -1;
    }

    /**
     * Offers a block to the store: its landed slot ({@link BlockStore#commit}, which takes the slot) or else its bytes
     * in a staging view ({@link BlockStore#put}). A store that throws costs only the fallback count: the block is
     * still handed to its waiters.
     */
    private void offer(
        final BlockFetch block,
        final BlockRef slot,
        final UnsafeBuffer view,
        final int offset,
        final int length,
        final FetchClass fetchClass)
    {
        try
        {
            metrics.storePut(null != slot ? store.commit(block.blockKey, slot, fetchClass) :
                store.put(block.blockKey, view, offset, length, fetchClass));
        }
        catch (final Throwable ex)
        {
            metrics.fallback(StoreFallback.PUT_ERROR);
        }
    }

    /** Fails the run's blocks from {@code from} on (those before it were landed and handed on already). */
    private void failRun(final FetchRun run, final Throwable cause, final int from)
    {
        blocksFailed.add(run.blocks.length - from);
        for (int i = from; i < run.blocks.length; i++)
        {
            run.blocks[i].fail(cause);
            forget(run.blocks[i]);
        }
    }

    private static Throwable unwrap(final Throwable error, final FetchRun run)
    {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) &&
            cause.getCause() != null)
        {
            cause = cause.getCause();
        }
        if (cause instanceof RuntimeException)
        {
            return cause;
        }
        return new OriginException(
            "GET of '" + run.key + "' bytes " + run.offset + "+" + run.length + " failed", cause);
    }
}
