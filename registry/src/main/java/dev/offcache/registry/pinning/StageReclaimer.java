package dev.offcache.registry.pinning;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.offcache.core.shuffle.ShufflePartitionStore;
import dev.offcache.registry.api.RemovalListener;
import dev.offcache.registry.state.Materialized;
import dev.offcache.registry.state.RemovedEntry;
import dev.offcache.registry.state.StageRef;

/**
 * The unpin path: receives every entry the registry removed (already unpinned in the snapshot the store's
 * {@link RegistryPinSet} reads) and deletes its stages from the shuffle store on its own thread, so file deletion
 * never stalls the registry thread. A stage another entry still uses stays (the store skips pinned stages).
 * Owns one daemon thread; {@link #close()} finishes queued deletions and stops it.
 */
public final class StageReclaimer implements RemovalListener, AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(StageReclaimer.class);

    private final ShufflePartitionStore store;
    private final ExecutorService deleter;
    private final AtomicLong stagesDeleted = new AtomicLong();
    private final AtomicLong stagesKept = new AtomicLong();

    /**
     * A reclaimer.
     *
     * @param store the store holding the stages; its pin set must be the registry's.
     */
    public StageReclaimer(final ShufflePartitionStore store)
    {
        this.store = store;
        this.deleter = Executors.newSingleThreadExecutor(runnable ->
        {
            final Thread thread = new Thread(runnable, "offcache-registry-reclaimer");
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Queues the removed entries' stages for deletion.
     *
     * @param removed entries removed in one registry batch.
     */
    public void onRemoved(final List<RemovedEntry> removed)
    {
        deleter.execute(() ->
        {
            for (final RemovedEntry entry : removed)
            {
                if (entry.entry() instanceof Materialized materialized)
                {
                    for (final StageRef stage : materialized.stages())
                    {
                        delete(stage);
                    }
                }
            }
        });
    }

    /**
     * Stages deleted so far.
     *
     * @return the count.
     */
    public long stagesDeleted()
    {
        return stagesDeleted.get();
    }

    /**
     * Stages of removed entries that stayed (still pinned by another entry, or already gone).
     *
     * @return the count.
     */
    public long stagesKept()
    {
        return stagesKept.get();
    }

    /**
     * Waits until every queued deletion ran (tests, orderly shutdown).
     *
     * @param timeoutMs how long to wait.
     * @return true when the queue drained in time.
     * @throws InterruptedException if interrupted while waiting.
     */
    public boolean awaitIdle(final long timeoutMs) throws InterruptedException
    {
        final CountDownLatch drained = new CountDownLatch(1);
        deleter.execute(drained::countDown);
        return drained.await(timeoutMs, TimeUnit.MILLISECONDS);
    }

    /**
     * Runs the queued deletions and stops the thread.
     */
    public void close()
    {
        deleter.shutdown();
        try
        {
            if (!deleter.awaitTermination(10, TimeUnit.SECONDS))
            {
                LOG.warn("stage reclaimer did not finish its queue within 10 s; remaining stages stay on disk");
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private void delete(final StageRef stage)
    {
        try
        {
            if (store.deleteStage(stage.jobId(), stage.stageId()))
            {
                stagesDeleted.incrementAndGet();
            }
            else
            {
                stagesKept.incrementAndGet();
            }
        }
        catch (final RuntimeException ex)
        {
            LOG.warn("cannot delete stage {}; it stays on disk until job cleanup", stage, ex);
        }
    }
}
