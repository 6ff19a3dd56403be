package dev.offcache.dataset;

import java.nio.ByteBuffer;

import dev.offcache.core.counters.CounterTypes;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;

/**
 * What the coordinator did, as Agrona counters named by their metric names ({@code offcache_dataset_<what>_total}),
 * so a {@code CountersReader} over the same buffers reads them from outside. The counters live in the manager's
 * buffers; {@link #close()} frees their slots.
 */
public final class ReadBackCounters implements AutoCloseable
{
    final AtomicCounter actions;
    final AtomicCounter hits;
    final AtomicCounter waits;
    final AtomicCounter materializationJobs;
    final AtomicCounter failedJobs;
    final AtomicCounter inlineComputations;
    final AtomicCounter fetchFailures;
    final AtomicCounter rematerializations;
    final AtomicCounter localPartitionReads;
    final AtomicCounter remotePartitionReads;
    final AtomicCounter localBytes;
    final AtomicCounter remoteBytes;

    /**
     * Counters in a private manager of their own (readable in this process only).
     */
    public ReadBackCounters()
    {
        this(privateManager());
    }

    /**
     * Counters allocated in the given manager under their metric names (type {@link CounterTypes#DATASET}); a
     * manager over a file-backed buffer makes them readable from other processes.
     *
     * @param manager where to allocate them; owned by the caller.
     */
    public ReadBackCounters(final CountersManager manager)
    {
        actions = manager.newCounter("offcache_dataset_actions_total", CounterTypes.DATASET);
        hits = manager.newCounter("offcache_dataset_hits_total", CounterTypes.DATASET);
        waits = manager.newCounter("offcache_dataset_waits_total", CounterTypes.DATASET);
        materializationJobs = manager.newCounter("offcache_dataset_materialization_jobs_total", CounterTypes.DATASET);
        failedJobs = manager.newCounter("offcache_dataset_failed_jobs_total", CounterTypes.DATASET);
        inlineComputations = manager.newCounter("offcache_dataset_inline_computations_total", CounterTypes.DATASET);
        fetchFailures = manager.newCounter("offcache_dataset_fetch_failures_total", CounterTypes.DATASET);
        rematerializations = manager.newCounter("offcache_dataset_rematerializations_total", CounterTypes.DATASET);
        localPartitionReads = manager.newCounter("offcache_dataset_partitions_read_local_total", CounterTypes.DATASET);
        remotePartitionReads =
            manager.newCounter("offcache_dataset_partitions_read_remote_total", CounterTypes.DATASET);
        localBytes = manager.newCounter("offcache_dataset_read_local_bytes_total", CounterTypes.DATASET);
        remoteBytes = manager.newCounter("offcache_dataset_read_remote_bytes_total", CounterTypes.DATASET);
    }

    /**
     * Actions started ({@code offcache_dataset_actions_total}).
     *
     * @return the count.
     */
    public long actions()
    {
        return actions.get();
    }

    /**
     * Acquisitions that found the dataset materialized on live executors ({@code offcache_dataset_hits_total}).
     *
     * @return the count.
     */
    public long hits()
    {
        return hits.get();
    }

    /**
     * Acquisitions that waited on another job's claim ({@code offcache_dataset_waits_total}).
     *
     * @return the count.
     */
    public long waits()
    {
        return waits.get();
    }

    /**
     * Materialization jobs submitted ({@code offcache_dataset_materialization_jobs_total}).
     *
     * @return the count.
     */
    public long materializationJobs()
    {
        return materializationJobs.get();
    }

    /**
     * Jobs (materialization or inline) that failed ({@code offcache_dataset_failed_jobs_total}).
     *
     * @return the count.
     */
    public long failedJobs()
    {
        return failedJobs.get();
    }

    /**
     * Inputs computed inline without caching ({@code offcache_dataset_inline_computations_total}).
     *
     * @return the count.
     */
    public long inlineComputations()
    {
        return inlineComputations.get();
    }

    /**
     * Read-backs that failed on a partition ({@code offcache_dataset_fetch_failures_total}).
     *
     * @return the count.
     */
    public long fetchFailures()
    {
        return fetchFailures.get();
    }

    /**
     * Entries invalidated after a fetch failure and retried ({@code offcache_dataset_rematerializations_total}).
     *
     * @return the count.
     */
    public long rematerializations()
    {
        return rematerializations.get();
    }

    /**
     * Partitions read through a local mapping ({@code offcache_dataset_partitions_read_local_total}).
     *
     * @return the count.
     */
    public long localPartitionReads()
    {
        return localPartitionReads.get();
    }

    /**
     * Partitions fetched over Aeron ({@code offcache_dataset_partitions_read_remote_total}).
     *
     * @return the count.
     */
    public long remotePartitionReads()
    {
        return remotePartitionReads.get();
    }

    /**
     * Bytes read locally ({@code offcache_dataset_read_local_bytes_total}).
     *
     * @return the count.
     */
    public long localBytes()
    {
        return localBytes.get();
    }

    /**
     * Bytes fetched over Aeron ({@code offcache_dataset_read_remote_bytes_total}).
     *
     * @return the count.
     */
    public long remoteBytes()
    {
        return remoteBytes.get();
    }

    /**
     * Frees the counters' slots in their manager.
     */
    public void close()
    {
        actions.close();
        hits.close();
        waits.close();
        materializationJobs.close();
        failedJobs.close();
        inlineComputations.close();
        fetchFailures.close();
        rematerializations.close();
        localPartitionReads.close();
        remotePartitionReads.close();
        localBytes.close();
        remoteBytes.close();
    }

    /**
     * One line with every counter, for logs and failure messages.
     *
     * @return the counters.
     */
    private static CountersManager privateManager()
    {
        return new CountersManager(
            new UnsafeBuffer(ByteBuffer.allocateDirect(16 * CountersReader.METADATA_LENGTH)),
            new UnsafeBuffer(ByteBuffer.allocateDirect(16 * CountersReader.COUNTER_LENGTH)));
    }

    public String toString()
    {
        return "actions=" + actions.get() + " hits=" + hits.get() + " waits=" + waits.get() + " jobs=" +
            materializationJobs.get() + " failedJobs=" + failedJobs.get() + " inline=" + inlineComputations.get() +
            " fetchFailures=" + fetchFailures.get() + " rematerializations=" + rematerializations.get() + " local=" +
            localPartitionReads.get() + " remote=" + remotePartitionReads.get();
    }
}
