package dev.offcache.range.engine;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.function.BiConsumer;

import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import dev.offcache.core.slab.BlockRef;
import dev.offcache.range.fetch.BlockFetch;
import dev.offcache.range.fetch.BlockFetcher;
import dev.offcache.range.fetch.BlockWaiter;
import dev.offcache.range.fetch.RunAssembler;
import dev.offcache.range.metrics.StoreFallback;
import dev.offcache.range.store.BlockFile;
import dev.offcache.range.store.BlockKeys;
import dev.offcache.range.store.FetchClass;

/**
 * One response body streamed from the engine: the ranges of one object, chunk by chunk (a chunk is the part of a
 * range inside one block), handed to a {@link StreamSink} in body order on one executor (the consumer's event
 * loop), with no thread waiting anywhere.
 *
 * <p>The stream looks ahead: up to {@code readAhead} chunks past the one the sink is taking are looked up at once,
 * each after reserving its bytes from the {@link StreamCredit} (the server's response memory budget). Per chunk,
 * one lookup, counted once with its outcome: a block in the store's memory or in a file the store keeps is ready at
 * once; a block in a slower tier loads on the store's threads; a missing block joins the fetch in flight for it or
 * is owned by this stream. Owned blocks go to a {@link RunAssembler}, so contiguous missing blocks leave as one
 * origin GET of up to {@code maxCoalescedGetBytes} and several GETs of one stream run at once, within the fetch
 * budget. A run is kept open at the look-ahead's edge while other chunks are in flight (it grows as they are taken),
 * and closed as soon as it cannot grow, so a stream never waits on a request it has not sent. Ready chunks go out
 * as soon as every chunk before them has.
 *
 * <p>Threads: {@link #start()}, {@link #resume()} and {@link #cancel()} run on the executor; fetch and load
 * completions arrive on other threads, take what they need there (the staging buffer is valid only during the
 * callback), mark their slot ready and schedule the drain on the executor: one hand-off per completion burst, and
 * none for a chunk that lands behind a pending one (it could not go out yet) or while the sink is paused (its resume
 * drains).
 *
 * <p>Memory: the stream holds at most {@code readAhead} chunks (their references, open files or copies), each paid
 * for with credit; {@link #cancel()} returns them all, including those whose fetch completes later. A chunk handed
 * to the sink is the sink's (see {@link StreamSink}).
 */
public final class BlockStream
{
    private static final int EMPTY = 0;
    private static final int PENDING = 1;
    private static final int READY = 2;
    private static final int FAILED = 3;
    private static final int RELEASED = 4;
    private static final int MEMORY = 1;
    private static final int FILE = 2;
    private static final int COPY = 3;
    /** {@link #wakeOn}: every chunk that becomes ready schedules a drain. */
    private static final long WAKE_ON_ANY = -1;
    /** {@link #wakeOn}: no chunk that becomes ready schedules a drain (the sink is paused; its resume drains). */
    private static final long WAKE_ON_NONE = -2;

    private final RangeCache cache;
    private final StoreGuard guard;
    private final boolean useStore;
    private final ObjectEntry entry;
    private final long objectSize;
    private final long[] starts;
    private final long[] lengths;
    private final StreamCredit credit;
    private final Executor executor;
    private final StreamSink sink;
    private final Slot[] ring;
    private final int fillBatch;
    private final long totalChunks;
    private final int blockShift;
    /** Told the size by fetching the first blocks: those are taken from its fetches. Null when none. */
    private final SizeProbe probe;
    private static final AtomicIntegerFieldUpdater<BlockStream> SCHEDULED =
        AtomicIntegerFieldUpdater.newUpdater(BlockStream.class, "scheduled");
    private static final AtomicIntegerFieldUpdater<BlockStream> SLOTS_TO_FETCH =
        AtomicIntegerFieldUpdater.newUpdater(BlockStream.class, "slotsToFetch");

    /** The drain task, made on first use: a stream served from memory never needs it. */
    private Runnable scheduledDrain;
    /** Given to the blocks of the open run: another reader joined one, so send the run now. */
    private Runnable sendRequest;
    private volatile boolean sendRequested;
    private volatile int scheduled;
    private volatile int slotsToFetch;
    /**
     * Which chunk becoming ready schedules a drain: the one at the head (its sequence), any, or none. A chunk behind
     * a pending head cannot go out, so its arrival is not worth a hand-off to the executor; the executor narrows this
     * only between drains, and only when no run is kept open (whose sending may hang on any chunk's arrival).
     */
    private volatile long wakeOn = WAKE_ON_ANY;
    private RunAssembler runs;
    private long head;
    private long tail;
    private int cursorRange;
    private long cursorPosition;
    private boolean paused;
    private boolean awaitingCredit;
    private boolean draining;
    private boolean redrain;
    private boolean finished;
    private volatile boolean cancelled;

    BlockStream(
        final RangeCache cache,
        final ObjectEntry entry,
        final long objectSize,
        final long[] starts,
        final long[] lengths,
        final boolean bypass,
        final StreamCredit credit,
        final Executor executor,
        final StreamSink sink,
        final SizeProbe probe)
    {
        this.cache = cache;
        this.guard = cache.guard();
        this.probe = probe;
        this.useStore = !bypass && cache.store() != null;
        this.entry = entry;
        this.objectSize = objectSize;
        this.starts = starts;
        this.lengths = lengths;
        this.credit = credit;
        this.executor = executor;
        this.sink = sink;
        this.blockShift = cache.blockShift();
        long chunks = 0;
        for (int i = 0; i < starts.length; i++)
        {
            if (lengths[i] > 0)
            {
                chunks += ((starts[i] + lengths[i] - 1) >>> blockShift) - (starts[i] >>> blockShift) + 1;
            }
        }
        this.totalChunks = chunks;
        final int slots = (int) Math.max(1, Math.min(cache.readAheadBlocks(), chunks));
        this.ring = new Slot[slots];
        for (int i = 0; i < slots; i++)
        {
            ring[i] = new Slot(this);
        }
        this.fillBatch = Math.max(1, Math.min(cache.fetcher().maxRunBlocks(), slots / 2));
        cursorPosition = starts.length > 0 ? starts[0] : 0;
    }

    /**
     * Starts the stream: hands over what is ready now (hits) and starts fetching the rest. Call on the executor.
     */
    public void start()
    {
        drain();
    }

    /**
     * The sink can take chunks again (after it returned false). Call on the executor.
     */
    public void resume()
    {
        paused = false;
        drain();
    }

    /**
     * The consumer is gone: returns the credit and the chunks the stream still holds, now or when their fetches
     * complete. Fetches this stream started carry on for other readers (and fill the store). Call on the executor;
     * no sink method is called afterwards.
     */
    public void cancel()
    {
        if (finished)
        {
            return;
        }
        finished = true;
        cancelled = true;
        cleanUp();
    }

    /**
     * Whether the stream has ended (completed, failed or cancelled).
     *
     * @return whether no more chunks come.
     */
    public boolean isDone()
    {
        return finished;
    }

    private void drain()
    {
        if (draining)
        {
            redrain = true;
            return;
        }
        draining = true;
        try
        {
            do
            {
                redrain = false;
                // while the executor looks at the slots, every arrival schedules another look
                wakeOn = WAKE_ON_ANY;
                drainOnce();
                if (!finished && !redrain)
                {
                    // a flush may complete writes at once and resume the stream: that sets redrain, so loop again
                    sink.onIdle();
                }
                if (!finished && !redrain && narrowWakeUp())
                {
                    redrain = true;
                }
            }
            while (redrain && !finished);
        }
        catch (final Throwable ex)
        {
            fail(ex);
        }
        finally
        {
            draining = false;
        }
    }

    /**
     * Narrows {@link #wakeOn} to what can make the next drain deliver, then looks at the head once more: an arrival
     * that read the wider value before this write published its state before that read (both are volatile), so
     * either it scheduled a drain or this look sees it.
     *
     * @return whether the head became ready meanwhile (drain again now).
     */
    private boolean narrowWakeUp()
    {
        if (paused)
        {
            wakeOn = WAKE_ON_NONE;
            return false;
        }
        final RunAssembler open = runs;
        if (head >= tail || (open != null && open.openBlocks() > 0))
        {
            return false;
        }
        final Slot slot = ring[(int) (head % ring.length)];
        wakeOn = head;
        return slot.state != PENDING;
    }

    private void drainOnce()
    {
        while (!finished)
        {
            final int delivered = deliver();
            if (finished)
            {
                return;
            }
            if (slotsToFetch > 0)
            {
                fetchReturnedSlots();
            }
            if (sendRequested)
            {
                closeRun(false);
            }
            final boolean filled = fill();
            if (delivered == 0 && !filled)
            {
                return;
            }
        }
    }

    /** Hands ready chunks to the sink in order; returns how many. */
    private int deliver()
    {
        int delivered = 0;
        while (!paused && head < tail && !finished)
        {
            final Slot slot = ring[(int) (head % ring.length)];
            final int state = slot.state;
            if (state == PENDING)
            {
                break;
            }
            if (state == FAILED)
            {
                fail(slot.error);
                return delivered;
            }
            head++;
            delivered++;
            final int range = slot.range;
            final long position = slot.position;
            final int offset = slot.offsetInBlock;
            final int length = slot.length;
            final int kind = slot.kind;
            final BlockRef ref = slot.ref;
            final BlockFile file = slot.file;
            final ByteBuffer copy = slot.copy;
            slot.clear();
            final boolean more;
            if (kind == MEMORY)
            {
                more = sink.onMemory(range, position, ref, offset, length);
            }
            else if (kind == FILE)
            {
                more = sink.onFile(range, position, file, offset, length);
            }
            else
            {
                more = sink.onCopy(range, position, copy);
            }
            if (!more)
            {
                paused = true;
            }
        }
        if (!finished && head == totalChunks && head == tail)
        {
            finished = true;
            sink.onComplete();
        }
        return delivered;
    }

    /**
     * Takes the next chunks into the look-ahead; returns whether it took any. The look-ahead exists to start fetches
     * early, so it never runs ahead of a sink that cannot take more: nothing is taken while the sink is paused, and
     * taking stops at a chunk that is ready to go out at once (a hit with nothing pending before it), which the drain
     * hands over before it takes the next. A stalled reader of cached data thus holds no more than the sink took.
     */
    private boolean fill()
    {
        if (paused)
        {
            closeRun(true);
            return false;
        }
        // Refill in batches of up to one GET's worth: a sink that takes one chunk at a time (a slow reader) then
        // still gets whole runs fetched behind it rather than one block per GET.
        final long remaining = totalChunks - tail;
        if (remaining > 0 && ring.length - (tail - head) < Math.min(fillBatch, remaining))
        {
            closeRun(true);
            return false;
        }
        final long tailBefore = tail;
        boolean ringFull = false;
        while (!finished && cursorRange < starts.length)
        {
            final long rangeEnd = starts[cursorRange] + lengths[cursorRange];
            if (cursorPosition >= rangeEnd)
            {
                cursorRange++;
                if (cursorRange < starts.length)
                {
                    cursorPosition = starts[cursorRange];
                }
                continue;
            }
            if (tail - head >= ring.length)
            {
                ringFull = true;
                break;
            }
            final long blockIndex = cursorPosition >>> blockShift;
            final long blockStart = blockIndex << blockShift;
            final int length = (int) (Math.min(rangeEnd, blockStart + cache.blockSize()) - cursorPosition);
            if (!credit.tryReserve(length))
            {
                if (!awaitingCredit)
                {
                    awaitingCredit = true;
                    // rare (the budget is exhausted): a wake-up that hops back onto the executor
                    credit.await(() -> execute(this::onCreditAvailable));
                }
                break;
            }
            final Slot slot = ring[(int) (tail % ring.length)];
            slot.seq = tail;
            tail++;
            slot.range = cursorRange;
            slot.position = cursorPosition;
            slot.offsetInBlock = (int) (cursorPosition - blockStart);
            slot.length = length;
            slot.blockIndex = blockIndex;
            slot.blockKey = BlockKeys.pack(entry.id, blockIndex);
            slot.blockLength = cache.blockLength(blockIndex, objectSize);
            cursorPosition += length;
            resolve(slot);
            if (slot.state != PENDING && nothingPendingBefore(tail - 1))
            {
                break;
            }
        }
        closeRun(ringFull);
        return tail != tailBefore;
    }

    private boolean nothingPendingBefore(final long seq)
    {
        for (long at = head; at < seq; at++)
        {
            if (ring[(int) (at % ring.length)].state == PENDING)
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Submits the open run unless it may still grow: the look-ahead is full and room is coming, because the sink is
     * paused (its writes complete and resume it), the chunk at the head is ready to go out, or a chunk outside the open
     * run is still being fetched or loaded. Another reader that joins a block of the open run asks for it to be sent
     * at once ({@link BlockFetch#sendRequest}), so no one else ever waits on this stream's reader; and a run that
     * every pending chunk waits on is never kept.
     */
    private void closeRun(final boolean ringFull)
    {
        final RunAssembler open = runs;
        if (open == null || open.openBlocks() == 0)
        {
            return;
        }
        if (ringFull && !finished && !sendRequested)
        {
            if (paused || (head < tail && ring[(int) (head % ring.length)].state != PENDING))
            {
                return;
            }
            for (long seq = head; seq < tail; seq++)
            {
                final Slot slot = ring[(int) (seq % ring.length)];
                final boolean loading = slot.fetch == null && !slot.needsFetch;
                if (slot.state == PENDING && (loading || !open.holds(slot.fetch)))
                {
                    return;
                }
            }
        }
        sendRequested = false;
        open.submit();
    }

    private void resolve(final Slot slot)
    {
        final RangeCache engine = cache;
        engine.metrics().blockRequest();
        if (runs != null && runs.openBlocks() > 0 && !runs.wouldExtend(slot.blockIndex))
        {
            runs.submit();
        }
        if (probe != null && takeProbed(slot))
        {
            return;
        }
        if (useStore && fromStore(slot, false))
        {
            return;
        }
        engine.metrics().blockMiss();
        fetch(slot);
    }

    /**
     * Serves the slot from the store if it holds the block: in memory, as a file, or once loaded from SSD.
     *
     * @param countedMiss the slot was counted as a miss already (a probed block): count no hit for it.
     * @return false when the store does not hold the block (fetch it).
     */
    private boolean fromStore(final Slot slot, final boolean countedMiss)
    {
        final RangeCache engine = cache;
        final BlockRef ref = guard.acquireInMemory(slot.blockKey, slot.blockLength);
        if (ref != null)
        {
            if (!countedMiss)
            {
                engine.metrics().blockHit(slot.length);
            }
            slot.ready(MEMORY, ref, null, null);
            return true;
        }
        final BlockFile file = guard.openFile(slot.blockKey, slot.blockLength);
        if (file != null)
        {
            if (!countedMiss)
            {
                engine.metrics().blockHit(slot.length);
                engine.metrics().fileHit();
            }
            slot.ready(FILE, null, file, null);
            return true;
        }
        final CompletableFuture<Boolean> load = guard.loadAsync(slot.blockKey);
        if (load != null)
        {
            slot.countedMiss = countedMiss;
            slot.fetch = null;
            slot.state = PENDING;
            load.whenComplete(slot);
            return true;
        }
        return false;
    }

    /**
     * A block the size probe fetched (or joined) for this stream: a miss, taken from that fetch, or, when it is over
     * already, from the store; fetched again only when the store did not keep it (or the fetch failed).
     *
     * @return false when the probe did not fetch the slot's block (look it up as any other).
     */
    private boolean takeProbed(final Slot slot)
    {
        final BlockFetch probed = probe.fetchOf(entry, slot.blockIndex);
        if (probed == null || !useStore)
        {
            return false;
        }
        cache.metrics().blockMiss();
        slot.fetch = probed;
        slot.state = PENDING;
        if (probed.join(slot))
        {
            return true;
        }
        slot.fetch = null;
        slot.state = EMPTY;
        // the whole lookup, SSD load included: a block evicted from a small RAM tier since the probe's fetch must
        // not go to the origin again (EngineSourceTest's single-flight count)
        if (!fromStore(slot, true))
        {
            fetch(slot);
        }
        return true;
    }

    /** Single flight ({@link BlockFetcher#claim}): joins the block's fetch in flight, or owns one for the open run. */
    private void fetch(final Slot slot)
    {
        if (sendRequest == null)
        {
            sendRequest = this::onSendRequested;
        }
        // the second look after a claim is in memory only (not counted: it is the same lookup)
        final BlockFetch owned = cache.fetcher().claim(slot, slot.blockKey, slot.blockIndex, slot.blockLength,
            FetchClass.DEMAND, useStore ? guard.memory : null, sendRequest);
        if (owned != null)
        {
            runs().add(owned);
        }
    }

    private RunAssembler runs()
    {
        if (runs == null)
        {
            runs = cache.fetcher().assembler(entry.key, objectSize, null, false, null);
        }
        return runs;
    }

    /** Slots whose load from a slower tier found nothing: fetch them now (on the executor, which owns the runs). */
    private void fetchReturnedSlots()
    {
        for (long seq = head; seq < tail && slotsToFetch > 0; seq++)
        {
            final Slot slot = ring[(int) (seq % ring.length)];
            if (slot.state == PENDING && slot.needsFetch)
            {
                slot.needsFetch = false;
                SLOTS_TO_FETCH.decrementAndGet(this);
                if (runs != null && runs.openBlocks() > 0 && !runs.wouldExtend(slot.blockIndex))
                {
                    runs.submit();
                }
                fetch(slot);
            }
        }
    }

    /** A fetch delivered a slot's block (any thread; the bytes are valid only during this call). */
    private void onFetched(final Slot slot, final DirectBuffer source, final int offset, final int length)
    {
        if (cancelled)
        {
            slot.state = RELEASED;
            return;
        }
        final BlockRef ref = useStore ? guard.acquireInMemory(slot.blockKey, length) : null;
        if (ref != null)
        {
            slot.ref = ref;
            slot.kind = MEMORY;
        }
        else
        {
            // the store did not keep the block (declined, or evicted at once): copy the chunk for the sink
            final ByteBuffer copy = ByteBuffer.allocateDirect(slot.length);
            new UnsafeBuffer(copy).putBytes(0, source, offset + slot.offsetInBlock, slot.length);
            slot.copy = copy;
            slot.kind = COPY;
        }
        publish(slot);
    }

    /** A load from a slower tier finished (on the store's thread): look again, in memory or in a file. */
    private void onLoaded(final Slot slot, final Boolean available, final Throwable error)
    {
        if (error != null)
        {
            cache.metrics().fallback(StoreFallback.STORE_ERROR);
        }
        final boolean countedMiss = slot.countedMiss;
        slot.countedMiss = false;
        if (error == null && Boolean.TRUE.equals(available) && !cancelled)
        {
            final BlockFile file = guard.openFile(slot.blockKey, slot.blockLength);
            final BlockRef ref = file == null ? guard.acquireInMemory(slot.blockKey, slot.blockLength) : null;
            if (file != null || ref != null)
            {
                if (!countedMiss)
                {
                    cache.metrics().blockHit(slot.length);
                    cache.metrics().loadedHit();
                }
                slot.kind = file != null ? FILE : MEMORY;
                slot.file = file;
                slot.ref = ref;
                publish(slot);
                return;
            }
        }
        if (cancelled)
        {
            slot.state = RELEASED;
            return;
        }
        if (!countedMiss)
        {
            cache.metrics().blockMiss();
        }
        slot.needsFetch = true;
        SLOTS_TO_FETCH.incrementAndGet(this);
        schedule();
    }

    private void onFetchFailed(final Slot slot, final Throwable cause)
    {
        slot.error = cause;
        slot.state = FAILED;
        schedule();
    }

    private void publish(final Slot slot)
    {
        slot.state = READY;
        if (cancelled)
        {
            slot.reclaim();
            return;
        }
        final long wake = wakeOn;
        if (wake == WAKE_ON_ANY || wake == slot.seq)
        {
            schedule();
        }
    }

    private void schedule()
    {
        if (SCHEDULED.compareAndSet(this, 0, 1))
        {
            Runnable task = scheduledDrain;
            if (task == null)
            {
                // only the thread that won the flag gets here, so one task is made, once
                task = this::runScheduled;
                scheduledDrain = task;
            }
            execute(task);
        }
    }

    private void execute(final Runnable task)
    {
        try
        {
            executor.execute(task);
        }
        catch (final RejectedExecutionException ex)
        {
            // the consumer's executor is shutting down (its channel is closed): nothing will take the chunks
            cancelled = true;
            for (final Slot slot : ring)
            {
                slot.reclaim();
            }
        }
    }

    /** Another reader joined a block of the open run (any thread). */
    private void onSendRequested()
    {
        sendRequested = true;
        schedule();
    }

    private void runScheduled()
    {
        scheduled = 0;
        drain();
    }

    private void onCreditAvailable()
    {
        awaitingCredit = false;
        drain();
    }

    private void fail(final Throwable error)
    {
        if (finished)
        {
            return;
        }
        finished = true;
        cancelled = true;
        try
        {
            sink.onError(error);
        }
        finally
        {
            cleanUp();
        }
    }

    /** Returns the credit of every chunk not handed over and releases what is ready; late arrivals release theirs. */
    private void cleanUp()
    {
        long unpaid = 0;
        for (long seq = head; seq < tail; seq++)
        {
            final Slot slot = ring[(int) (seq % ring.length)];
            unpaid += slot.length;
            slot.reclaim();
        }
        head = tail;
        if (unpaid > 0)
        {
            credit.release(unpaid);
        }
        if (runs != null)
        {
            // owned blocks others may join: they must be fetched, not stranded
            runs.submit();
        }
    }

    /**
     * One chunk in the look-ahead: what it is, and, once ready, what holds its bytes. Written by the executor while
     * {@code EMPTY}; by a fetch or load callback while {@code PENDING}; its {@code state} publishes the rest.
     */
    private static final class Slot implements BlockWaiter, BiConsumer<Boolean, Throwable>
    {
        private static final AtomicIntegerFieldUpdater<Slot> STATE =
            AtomicIntegerFieldUpdater.newUpdater(Slot.class, "state");

        final BlockStream stream;
        /** The chunk's place in the body: written before its lookup, so every callback of that lookup sees it. */
        long seq;
        int range;
        long position;
        int offsetInBlock;
        int length;
        long blockIndex;
        long blockKey;
        int blockLength;
        BlockFetch fetch;
        boolean needsFetch;
        /** Counted as a miss already (a probed block loaded from SSD): its load counts nothing more. */
        boolean countedMiss;
        volatile int state = EMPTY;
        int kind;
        BlockRef ref;
        BlockFile file;
        ByteBuffer copy;
        Throwable error;

        Slot(final BlockStream stream)
        {
            this.stream = stream;
        }

        void ready(final int readyKind, final BlockRef readyRef, final BlockFile readyFile, final ByteBuffer bytes)
        {
            kind = readyKind;
            ref = readyRef;
            file = readyFile;
            copy = bytes;
            state = READY;
        }

        void clear()
        {
            ref = null;
            file = null;
            copy = null;
            fetch = null;
            error = null;
            kind = 0;
            state = EMPTY;
        }

        /** Releases what a ready slot holds, once, whoever gets here first (the cancel sweep or a late callback). */
        void reclaim()
        {
            if (STATE.compareAndSet(this, READY, RELEASED))
            {
                if (ref != null)
                {
                    ref.release();
                }
                if (file != null)
                {
                    file.release();
                }
                if (copy != null)
                {
                    BufferUtil.free(copy);
                }
                ref = null;
                file = null;
                copy = null;
            }
        }

        /** Single flight tells the fetch the slot waits on before the slot can hear of it. */
        @Override
        public void waitsOn(final long index, final BlockFetch blockFetch, final boolean owner)
        {
            fetch = blockFetch;
            state = PENDING;
        }

        @Override
        public void onBlock(final long index, final DirectBuffer source, final int offset, final int blockBytes)
        {
            stream.onFetched(this, source, offset, blockBytes);
        }

        @Override
        public void onBlockFailed(final long index, final Throwable cause)
        {
            stream.onFetchFailed(this, cause);
        }

        /** A load from a slower tier completed. */
        @Override
        public void accept(final Boolean available, final Throwable error)
        {
            stream.onLoaded(this, available, error);
        }
    }
}
