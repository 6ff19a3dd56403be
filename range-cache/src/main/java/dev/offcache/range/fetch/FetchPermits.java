package dev.offcache.range.fetch;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import dev.offcache.range.metrics.RangeMetrics;
import dev.offcache.range.store.FetchClass;

/**
 * The priority-aware fetchPermits of origin GETs: at most {@code permits} run at once, and the last
 * {@code demandReserved} of them only for runs a demand read waits on, so prefetch can never starve demand.
 * Queued runs start in order, demand first. A demand read joining a queued or running prefetch promotes it.
 *
 * <p>The queues and counts sit under one lock: it is taken only on the miss path (submit, promote, release),
 * never on a hit.
 */
public final class FetchPermits
{
    private final int permits;
    private final int prefetchPermits;
    private final Consumer<FetchRun> launcher;
    private final RangeMetrics metrics;
    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<FetchRun> demandQueue = new ArrayDeque<>();
    private final ArrayDeque<FetchRun> prefetchQueue = new ArrayDeque<>();
    private int running;
    private int runningPrefetch;
    private int peakRunning;

    /**
     * Creates an instance.
     *
     * @param permits        GETs in flight at most.
     * @param demandReserved permits prefetch may not use.
     * @param launcher       starts a run's GET; called outside the lock; must call {@link #release(FetchRun)} once
     *                       the GET is over.
     * @param metrics        where permit waits and promotions are counted.
     */
    public FetchPermits(
        final int permits, final int demandReserved, final Consumer<FetchRun> launcher, final RangeMetrics metrics)
    {
        if (permits < 1 || demandReserved < 0 || demandReserved >= permits)
        {
            throw new IllegalArgumentException("need permits >= 1 and 0 <= demandReserved < permits: " + permits +
                ", " + demandReserved);
        }
        this.permits = permits;
        this.prefetchPermits = permits - demandReserved;
        this.launcher = launcher;
        this.metrics = metrics;
    }

    /**
     * Starts a run now if its class has a permit free, else queues it.
     *
     * @param run the run; its blocks join it here.
     */
    public void submit(final FetchRun run)
    {
        List<FetchRun> toLaunch = null;
        lock.lock();
        try
        {
            for (final BlockFetch block : run.blocks)
            {
                block.run = run;
            }
            run.fetchClass = run.anyDemand() ? FetchClass.DEMAND : FetchClass.PREFETCH;
            if (canStart(run.fetchClass))
            {
                start(run);
                toLaunch = List.of(run);
            }
            else
            {
                run.queued = true;
                (run.fetchClass == FetchClass.DEMAND ? demandQueue : prefetchQueue).addLast(run);
                metrics.permitWait();
            }
        }
        finally
        {
            lock.unlock();
        }
        launchAll(toLaunch);
    }

    /**
     * A demand read joined this block: make its run demand, wherever it is.
     *
     * @param block the block joined.
     */
    public void promote(final BlockFetch block)
    {
        List<FetchRun> toLaunch = null;
        lock.lock();
        try
        {
            block.demand = true;
            final FetchRun run = block.run;
            if (run == null || run.fetchClass != FetchClass.PREFETCH)
            {
                return;
            }
            run.fetchClass = FetchClass.DEMAND;
            metrics.promotion();
            if (run.queued)
            {
                prefetchQueue.remove(run);
                demandQueue.addLast(run);
            }
            else
            {
                // Running: it now counts as demand, which frees a prefetch permit.
                returnPrefetchPermit(run);
            }
            toLaunch = drainQueues();
        }
        finally
        {
            lock.unlock();
        }
        launchAll(toLaunch);
    }

    /**
     * A run's GET is over (done, failed or timed out): free its permit and start what waits.
     *
     * @param run the run.
     */
    public void release(final FetchRun run)
    {
        final List<FetchRun> toLaunch;
        lock.lock();
        try
        {
            running--;
            returnPrefetchPermit(run);
            toLaunch = drainQueues();
        }
        finally
        {
            lock.unlock();
        }
        launchAll(toLaunch);
    }

    /** A run that holds a prefetch permit gives it back (under the lock). */
    private void returnPrefetchPermit(final FetchRun run)
    {
        if (run.holdsPrefetchPermit)
        {
            run.holdsPrefetchPermit = false;
            runningPrefetch--;
        }
    }

    /**
     * The current class of a run.
     *
     * @param run the run.
     * @return demand or prefetch.
     */
    public FetchClass classOf(final FetchRun run)
    {
        lock.lock();
        try
        {
            return run.fetchClass;
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * Returns gETs running now.
     *
     * @return GETs running now.
     */
    public int running()
    {
        lock.lock();
        try
        {
            return running;
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * Returns the most GETs that ever ran at once.
     *
     * @return the most GETs that ever ran at once.
     */
    public int peakRunning()
    {
        lock.lock();
        try
        {
            return peakRunning;
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * Returns runs waiting for a permit.
     *
     * @return runs waiting for a permit.
     */
    public int queued()
    {
        lock.lock();
        try
        {
            return demandQueue.size() + prefetchQueue.size();
        }
        finally
        {
            lock.unlock();
        }
    }

    private boolean canStart(final FetchClass fetchClass)
    {
        return running < permits && (fetchClass == FetchClass.DEMAND || runningPrefetch < prefetchPermits);
    }

    private void start(final FetchRun run)
    {
        run.queued = false;
        running++;
        peakRunning = Math.max(peakRunning, running);
        if (run.fetchClass == FetchClass.PREFETCH)
        {
            run.holdsPrefetchPermit = true;
            runningPrefetch++;
        }
    }

    private List<FetchRun> drainQueues()
    {
        List<FetchRun> toLaunch = null;
        while (!demandQueue.isEmpty() && canStart(FetchClass.DEMAND))
        {
            toLaunch = add(toLaunch, demandQueue.pollFirst());
        }
        while (!prefetchQueue.isEmpty() && canStart(FetchClass.PREFETCH))
        {
            toLaunch = add(toLaunch, prefetchQueue.pollFirst());
        }
        return toLaunch;
    }

    private List<FetchRun> add(final List<FetchRun> list, final FetchRun run)
    {
        start(run);
        final List<FetchRun> out = list == null ? new ArrayList<>(2) : list;
        out.add(run);
        return out;
    }

    private void launchAll(final List<FetchRun> runs)
    {
        if (runs != null)
        {
            for (final FetchRun run : runs)
            {
                launcher.accept(run);
            }
        }
    }
}
