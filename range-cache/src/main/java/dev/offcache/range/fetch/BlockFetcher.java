package dev.offcache.range.fetch;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.UnsafeBuffer;

import dev.offcache.range.metrics.RangeMetrics;
import dev.offcache.range.metrics.StoreFallback;
import dev.offcache.range.origin.ObjectStore;
import dev.offcache.range.origin.OriginException;
import dev.offcache.range.origin.OriginTimeoutException;
import dev.offcache.range.origin.ShortReadException;
import dev.offcache.range.store.BlockStore;
import dev.offcache.range.store.FetchClass;

/**
 * Fetches missing blocks from the origin: keeps the in-flight blocks (single flight), turns the blocks a read owns
 * into runs of at most {@code maxRunBlocks} contiguous blocks, one GET each, under the {@link FetchBudget}, and on
 * completion offers each block to the store and hands it to its waiters.
 *
 * <p>A fetch is detached from the reads that started it: a reader that gives up only stops listening. A failed,
 * short or timed-out GET fails every waiter of its blocks with the same error and stores nothing.
 *
 * <p>Memory: GETs land in {@link StagingPool} buffers; a buffer goes back to the pool only once the origin call
 * has finished with it, even when the run timed out earlier.
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
    private final FetchBudget budget;
    private final ConcurrentHashMap<Long, BlockFetch> inFlight = new ConcurrentHashMap<>();

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
        this.budget = new FetchBudget(permits, demandReserved, this::launch, metrics);
    }

    /**
     * Returns the budget, for inspection.
     *
     * @return the budget, for inspection.
     */
    public FetchBudget budget()
    {
        return budget;
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
     * Returns blocks in flight now.
     *
     * @return blocks in flight now.
     */
    public int inFlightBlocks()
    {
        return inFlight.size();
    }

    /**
     * The fetch of a block, if one is in flight.
     *
     * @param blockKey the store key.
     * @return the fetch or {@code null}.
     */
    public BlockFetch inFlight(final long blockKey)
    {
        return inFlight.get(blockKey);
    }

    /**
     * Registers a new fetch unless one is already in flight for the block.
     *
     * @param fetch the new fetch.
     * @return {@code null} when {@code fetch} now owns the block, else the fetch already in flight.
     */
    public BlockFetch tryOwn(final BlockFetch fetch)
    {
        return inFlight.putIfAbsent(fetch.blockKey, fetch);
    }

    /**
     * Forgets a fetch that is over, so the next reader looks in the store or fetches again.
     *
     * @param fetch the fetch.
     */
    public void forget(final BlockFetch fetch)
    {
        inFlight.remove(fetch.blockKey, fetch);
    }

    /**
     * Joins a demand reader to a block in flight, promoting its run if it is prefetch.
     *
     * @param fetch  the fetch.
     * @param waiter the reader.
     * @param demand whether the reader is demand.
     * @return false when the fetch is already over.
     */
    public boolean join(final BlockFetch fetch, final BlockWaiter waiter, final boolean demand)
    {
        if (!fetch.join(waiter))
        {
            return false;
        }
        metrics.singleFlightJoin();
        if (demand && !fetch.demand)
        {
            budget.promote(fetch);
        }
        return true;
    }

    /**
     * Starts owned blocks: splits them into runs of contiguous blocks (sorted by block index), each at most
     * {@code maxRunBlocks}, and submits each to the budget.
     *
     * @param key        the object key.
     * @param objectSize the object's size.
     * @param owned      owned fetches, sorted by block index.
     */
    public void fetch(final String key, final long objectSize, final List<BlockFetch> owned)
    {
        int start = 0;
        final int n = owned.size();
        while (start < n)
        {
            int end = start + 1;
            while (end < n && end - start < maxRunBlocks &&
                owned.get(end).blockIndex == owned.get(end - 1).blockIndex + 1)
            {
                end++;
            }
            final BlockFetch[] blocks = owned.subList(start, end).toArray(new BlockFetch[0]);
            budget.submit(new FetchRun(key, blockSize, blocks, objectSize));
            start = end;
        }
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
        final StagingPool.Staging buffer;
        try
        {
            buffer = staging.acquire();
        }
        catch (final Throwable ex)
        {
            if (run.finish())
            {
                budget.release(run);
                failRun(run, new OriginException("no staging memory for a GET of '" + run.key + "'", ex));
            }
            return;
        }
        final FetchClass startClass = budget.classOf(run);
        final long startNs = System.nanoTime();
        metrics.originGetStarted(startClass, run.blocks.length);
        CompletableFuture<Integer> io;
        try
        {
            io = origin.read(run.key, run.offset, buffer.target(run.length), startClass);
        }
        catch (final Throwable ex)
        {
            io = CompletableFuture.failedFuture(ex);
        }
        final CompletableFuture<Integer> request = io;
        final ScheduledFuture<?> deadline = timer.schedule(
            () -> onTimeout(run, startNs), timeoutNs, TimeUnit.NANOSECONDS);
        request.whenComplete((bytes, error) ->
        {
            deadline.cancel(false);
            try
            {
                onGetDone(run, buffer, bytes, error, startNs);
            }
            finally
            {
                staging.release(buffer);
            }
        });
    }

    private void onTimeout(final FetchRun run, final long startNs)
    {
        if (!run.finish())
        {
            return;
        }
        budget.release(run);
        metrics.originGetEnded(budget.classOf(run), 0, System.nanoTime() - startNs);
        metrics.originError();
        failRun(run, new OriginTimeoutException("GET of '" + run.key + "' bytes " + run.offset + "+" + run.length,
            TimeUnit.NANOSECONDS.toMillis(timeoutNs)));
        // The request is not cancelled: a cancelled future may complete while the origin still writes into the
        // staging buffer. The buffer returns to the pool only when the origin's own future completes.
    }

    private void onGetDone(
        final FetchRun run,
        final StagingPool.Staging buffer,
        final Integer bytes,
        final Throwable error,
        final long startNs)
    {
        if (!run.finish())
        {
            return;
        }
        budget.release(run);
        final FetchClass fetchClass = budget.classOf(run);
        final int received = bytes == null ? 0 : bytes;
        metrics.originGetEnded(fetchClass, received, System.nanoTime() - startNs);
        if (error != null || received != run.length)
        {
            metrics.originError();
            failRun(run, error != null ? unwrap(error, run) :
                new ShortReadException(run.key, run.offset, run.length, received));
            return;
        }
        final UnsafeBuffer view = buffer.view();
        for (int i = 0; i < run.blocks.length; i++)
        {
            final BlockFetch block = run.blocks[i];
            final int offset = i * blockSize;
            if (block.admit && store != null)
            {
                offer(block, view, offset, fetchClass);
            }
            block.complete(view, offset);
            forget(block);
        }
    }

    private void offer(final BlockFetch block, final UnsafeBuffer view, final int offset, final FetchClass fetchClass)
    {
        try
        {
            metrics.storePut(store.put(block.blockKey, view, offset, block.length, fetchClass));
        }
        catch (final Throwable ex)
        {
            metrics.fallback(StoreFallback.PUT_ERROR);
        }
    }

    private void failRun(final FetchRun run, final Throwable cause)
    {
        for (final BlockFetch block : run.blocks)
        {
            block.fail(cause);
            forget(block);
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
