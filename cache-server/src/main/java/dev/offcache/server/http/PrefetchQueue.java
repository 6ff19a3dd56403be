package dev.offcache.server.http;

import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;

import dev.offcache.range.engine.ByteRange;
import dev.offcache.range.engine.RangeCache;
import dev.offcache.server.log.RateLimitedWarning;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bounded queue behind {@code POST /prefetch}: {@link #offer} never blocks (a full queue drops the request and
 * says so), and a few worker threads warm the blocks through the engine at prefetch priority, one request at a time
 * each. {@link #close()} stops the workers and discards what is still queued; a worker that outlives its join may
 * still write counters (the HTTP front's, and the tiers' through the engine), so their owner frees them only once
 * {@link #workersStopped()}.
 */
public final class PrefetchQueue implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(PrefetchQueue.class);
    private static final RateLimitedWarning FAILURES = new RateLimitedWarning(LOG);
    /** How long {@link #close()} waits for each worker: 5 s. */
    static final long JOIN_TIMEOUT_MS = 5_000;

    private final ArrayBlockingQueue<Request> queue;
    private final RangeCache engine;
    private final HttpMetrics metrics;
    private final Thread[] workers;
    private final long joinTimeoutMs;
    private volatile boolean running = true;

    /**
     * One line of a prefetch request: warm these ranges of this object.
     *
     * @param key    a validated key.
     * @param ranges {@code [start, end)} pairs inside the object.
     */
    public record Request(String key, List<long[]> ranges)
    {
    }

    /**
     * Starts the workers.
     *
     * @param capacity requests that may wait.
     * @param threads  worker threads.
     * @param engine   where to warm (not owned).
     * @param metrics  where to count.
     */
    public PrefetchQueue(final int capacity, final int threads, final RangeCache engine, final HttpMetrics metrics)
    {
        this(capacity, threads, engine, metrics, JOIN_TIMEOUT_MS);
    }

    /** The same with another join timeout at close (tests of a worker that outlives it). */
    PrefetchQueue(final int capacity, final int threads, final RangeCache engine, final HttpMetrics metrics,
        final long joinTimeoutMs)
    {
        this.joinTimeoutMs = joinTimeoutMs;
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.engine = engine;
        this.metrics = metrics;
        this.workers = new Thread[threads];
        for (int i = 0; i < threads; i++)
        {
            workers[i] = new Thread(this::run, "offcache-prefetch-" + i);
            workers[i].setDaemon(true);
            workers[i].start();
        }
    }

    /**
     * Enqueues a request unless the queue is full.
     *
     * @param request the request.
     * @return whether it was queued.
     */
    public boolean offer(final Request request)
    {
        return running && queue.offer(request);
    }

    /**
     * Requests waiting now.
     *
     * @return the queue's size.
     */
    public int queued()
    {
        return queue.size();
    }

    private void run()
    {
        while (running)
        {
            final Request request;
            try
            {
                request = queue.poll(100, TimeUnit.MILLISECONDS);
            }
            catch (final InterruptedException ex)
            {
                return;
            }
            if (null == request)
            {
                continue;
            }
            try
            {
                for (final long[] range : request.ranges())
                {
                    if (!running)
                    {
                        return;
                    }
                    if (range[1] > range[0])
                    {
                        engine.prefetch(request.key(), List.of(new ByteRange(range[0], range[1] - range[0])))
                            .get(60, TimeUnit.SECONDS);
                    }
                }
                metrics.prefetchOutcome(true);
            }
            catch (final InterruptedException ex)
            {
                return;
            }
            catch (final Exception ex)
            {
                metrics.prefetchOutcome(false);
                FAILURES.warn("prefetch of {} failed: {}", request.key(), ex.toString());
            }
        }
    }

    /**
     * Stops the workers: discards what is queued, interrupts them and waits up to the join timeout (5 s) for each.
     * Idempotent.
     */
    @Override
    public void close()
    {
        running = false;
        queue.clear();
        for (final Thread worker : workers)
        {
            worker.interrupt();
        }
        for (final Thread worker : workers)
        {
            try
            {
                worker.join(joinTimeoutMs);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * Whether every worker has ended: after {@link #close()}, false only when one outlived its join, and then the
     * counters it may write must stay mapped.
     *
     * @return true when no worker can write a counter any more.
     */
    public boolean workersStopped()
    {
        for (final Thread worker : workers)
        {
            if (worker.isAlive())
            {
                return false;
            }
        }
        return true;
    }
}
