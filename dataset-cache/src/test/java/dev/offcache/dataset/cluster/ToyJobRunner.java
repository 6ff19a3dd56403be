package dev.offcache.dataset.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import dev.offcache.dataset.JobOutput;
import dev.offcache.dataset.JobRunner;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.PartitionLocation;

/**
 * The engine's job runner in the test cluster: a job has two stages on the live executors, partition {@code p} on
 * executor {@code p mod live}: stage 0 is an intermediate map output (normal job cleanup deletes it), stage 1 is
 * the cached output whose locations the job reports. Jobs run on their own thread; the future is the job's finish
 * event. A job can be held at its start ({@link #hold()}) and made to fail ({@link #failNext(int)}).
 */
final class ToyJobRunner implements JobRunner<ToyDataset>, AutoCloseable
{
    static final DatasetSchema SCHEMA = new DatasetSchema("value:int64");

    private final Supplier<List<ExecutorNode>> liveExecutors;
    private final ExecutorService jobs = Executors.newCachedThreadPool(runnable ->
    {
        final Thread thread = new Thread(runnable, "toy-job");
        thread.setDaemon(true);
        return thread;
    });
    private final AtomicInteger started = new AtomicInteger();
    private final AtomicInteger failNext = new AtomicInteger();
    private volatile CountDownLatch gate;

    ToyJobRunner(final Supplier<List<ExecutorNode>> liveExecutors)
    {
        this.liveExecutors = liveExecutors;
    }

    /**
     * Jobs submitted so far (materializations and inline computations).
     */
    int started()
    {
        return started.get();
    }

    void failNext(final int jobs)
    {
        failNext.set(jobs);
    }

    /**
     * Holds every job submitted from now on at its start until the latch is counted down.
     */
    CountDownLatch hold()
    {
        final CountDownLatch latch = new CountDownLatch(1);
        gate = latch;
        return latch;
    }

    void release()
    {
        final CountDownLatch latch = gate;
        gate = null;
        if (latch != null)
        {
            latch.countDown();
        }
    }

    public CompletableFuture<JobOutput> run(final String jobId, final ToyDataset input)
    {
        started.incrementAndGet();
        final CountDownLatch latch = gate;
        return CompletableFuture.supplyAsync(() ->
        {
            try
            {
                if (latch != null && !latch.await(30, TimeUnit.SECONDS))
                {
                    throw new IllegalStateException("job " + jobId + " held for too long");
                }
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(ex);
            }
            if (failNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0)
            {
                throw new IllegalStateException("injected failure of job " + jobId);
            }
            final List<ExecutorNode> executors = liveExecutors.get();
            final List<PartitionLocation> output = new ArrayList<>();
            for (int p = 0; p < input.partitions(); p++)
            {
                executors.get(p % executors.size()).runTask(jobId, 0, p, ~input.seed(), input.rowsPerPartition());
            }
            for (int p = 0; p < input.partitions(); p++)
            {
                output.add(executors.get(p % executors.size())
                    .runTask(jobId, 1, p, input.seed(), input.rowsPerPartition()));
            }
            return new JobOutput(SCHEMA, output);
        }, jobs);
    }

    public void close()
    {
        release();
        jobs.shutdownNow();
    }
}
