package dev.offcache.dataset;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The fixed pools of named daemon threads that {@link DatasetResolver} (continuations) and
 * {@link CachedDatasetCoordinator} (read-backs) each own: the rule their {@code workerThreads} setting obeys, how a
 * pool starts and how it stops.
 */
final class WorkerThreads
{
    private static final long STOP_WAIT_SECONDS = 10;

    private WorkerThreads()
    {
    }

    /**
     * Checks a {@code workerThreads} setting (from a {@code conclude()}).
     *
     * @param workerThreads the count.
     * @throws IllegalArgumentException when it is not positive.
     */
    static void requireCount(final int workerThreads)
    {
        if (workerThreads <= 0)
        {
            throw new IllegalArgumentException("workerThreads must be positive: " + workerThreads);
        }
    }

    /**
     * Starts a pool.
     *
     * @param count      how many threads.
     * @param namePrefix the threads are named {@code namePrefix1}, {@code namePrefix2}, ...
     * @return the pool; the caller owns it and stops it with {@link #stop}.
     */
    static ExecutorService start(final int count, final String namePrefix)
    {
        final AtomicInteger threadCount = new AtomicInteger();
        return Executors.newFixedThreadPool(count, runnable ->
        {
            final Thread thread = new Thread(runnable, namePrefix + threadCount.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Interrupts a pool's threads and waits (up to 10 s) for them to end; work in flight may not complete.
     *
     * @param workers the pool.
     */
    static void stop(final ExecutorService workers)
    {
        workers.shutdownNow();
        try
        {
            workers.awaitTermination(STOP_WAIT_SECONDS, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}
