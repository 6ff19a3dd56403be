package dev.offcache.dataset;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.offcache.registry.api.RemovalListener;
import dev.offcache.registry.state.Materialized;
import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.registry.state.RemovedEntry;
import dev.offcache.registry.state.StageRef;

/**
 * Deletes shuffle stages on the executors, on its own thread so neither the registry thread nor an action waits on
 * a slow or dead executor:
 * <ul>
 *     <li>job cleanup ({@link #cleanJob}): every executor deletes the job's stages except the pinned ones;</li>
 *     <li>removals (as the registry's {@link RemovalListener}: invalidation, executor loss, session removal,
 *     eviction): each removed entry's stages are deleted on the executors its locations name, unless the stage is
 *     pinned again by then.</li>
 * </ul>
 * Hand it to {@code CacheRegistry.Context.removalListener}, then give it the registry's pin snapshot with
 * {@link #pinnedStages(Supplier)}. Owns one daemon thread; {@link #close()} finishes the queue.
 */
public final class StageCleanup implements RemovalListener, AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(StageCleanup.class);

    private final ExecutorStages executors;
    private final ExecutorService thread;
    private final AtomicLong stagesDeleted = new AtomicLong();
    private final AtomicLong jobsCleaned = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private volatile Supplier<Set<StageRef>> pinned;

    /**
     * A cleanup over the engine's executors.
     *
     * @param executors the executors' stores.
     */
    public StageCleanup(final ExecutorStages executors)
    {
        if (executors == null)
        {
            throw new IllegalArgumentException("executors must not be null");
        }
        this.executors = executors;
        this.thread = Executors.newSingleThreadExecutor(runnable ->
        {
            final Thread t = new Thread(runnable, "offcache-dataset-cleanup");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Where the pinned stages come from (the registry's snapshot). Until set, nothing is deleted.
     *
     * @param pinned the registry's {@code pinnedStages}.
     * @return this.
     */
    public StageCleanup pinnedStages(final Supplier<Set<StageRef>> pinned)
    {
        this.pinned = pinned;
        return this;
    }

    /**
     * Deletes a finished job's unpinned stages on every executor.
     *
     * @param jobId the job.
     * @return completes when every executor was asked (failures are logged and counted, not propagated).
     */
    public CompletableFuture<Void> cleanJob(final String jobId)
    {
        return CompletableFuture.runAsync(() ->
        {
            final Supplier<Set<StageRef>> pins = pinned;
            if (pins == null)
            {
                LOG.warn("job {} not cleaned: no pin snapshot yet", jobId);
                return;
            }
            final Set<StageRef> keep = new HashSet<>();
            for (final StageRef stage : pins.get())
            {
                if (stage.jobId().equals(jobId))
                {
                    keep.add(stage);
                }
            }
            for (final String executorId : executors.executorIds())
            {
                try
                {
                    executors.deleteJob(executorId, jobId, keep);
                }
                catch (final RuntimeException ex)
                {
                    failures.incrementAndGet();
                    LOG.warn("cannot clean job {} on executor {}", jobId, executorId, ex);
                }
            }
            jobsCleaned.incrementAndGet();
        }, thread);
    }

    /**
     * Queues the removed entries' stages for deletion on the executors that hold them.
     *
     * @param removed entries removed in one registry batch.
     */
    public void onRemoved(final List<RemovedEntry> removed)
    {
        thread.execute(() ->
        {
            final Supplier<Set<StageRef>> pins = pinned;
            final Set<StageRef> keep = pins == null ? null : pins.get();
            for (final RemovedEntry entry : removed)
            {
                if (entry.entry() instanceof Materialized materialized)
                {
                    final Map<String, Set<StageRef>> byExecutor = new TreeMap<>();
                    for (final PartitionLocation location : materialized.locations())
                    {
                        byExecutor.computeIfAbsent(location.executorId(), id -> new HashSet<>())
                            .add(location.stage());
                    }
                    byExecutor.forEach((executorId, stages) -> deleteStages(executorId, stages, keep));
                }
            }
        });
    }

    /**
     * Waits until everything queued so far ran (tests, orderly shutdown).
     *
     * @param timeoutMs how long to wait.
     * @return true when the queue drained in time.
     * @throws InterruptedException if interrupted.
     */
    public boolean awaitIdle(final long timeoutMs) throws InterruptedException
    {
        final CompletableFuture<Void> marker = CompletableFuture.runAsync(() ->
        {
        }, thread);
        try
        {
            marker.get(timeoutMs, TimeUnit.MILLISECONDS);
            return true;
        }
        catch (final TimeoutException | ExecutionException ex)
        {
            return false;
        }
    }

    /**
     * Stages deleted for removed entries ({@code offcache_dataset_stages_deleted_total}).
     *
     * @return the count.
     */
    public long stagesDeleted()
    {
        return stagesDeleted.get();
    }

    /**
     * Jobs cleaned ({@code offcache_dataset_jobs_cleaned_total}).
     *
     * @return the count.
     */
    public long jobsCleaned()
    {
        return jobsCleaned.get();
    }

    /**
     * Deletions that failed (executor unreachable) ({@code offcache_dataset_cleanup_failures_total}).
     *
     * @return the count.
     */
    public long failures()
    {
        return failures.get();
    }

    /**
     * Runs what is queued and stops the thread.
     */
    public void close()
    {
        thread.shutdown();
        try
        {
            if (!thread.awaitTermination(10, TimeUnit.SECONDS))
            {
                LOG.warn("dataset cleanup did not finish within 10 s; remaining stages stay on disk");
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private void deleteStages(final String executorId, final Set<StageRef> stages, final Set<StageRef> keep)
    {
        for (final StageRef stage : stages)
        {
            if (keep == null || keep.contains(stage))
            {
                continue;
            }
            try
            {
                executors.deleteStage(executorId, stage);
                stagesDeleted.incrementAndGet();
            }
            catch (final RuntimeException ex)
            {
                failures.incrementAndGet();
                // Usually the executor is gone, and its files with it: one line, the trace only when debugging.
                LOG.warn("cannot delete stage {} on executor {}: {}", stage, executorId, ex.toString());
                LOG.debug("cannot delete stage {} on executor {}", stage, executorId, ex);
            }
        }
    }
}
