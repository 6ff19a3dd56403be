package dev.offcache.registry.coordinator;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What the coordinator did, for tests, benchmarks and metrics export. Names as exported:
 * {@code offcache_dataset_<what>_total}. Thread-safe, no memory to own.
 */
public final class ReadBackCounters
{
    final AtomicLong actions = new AtomicLong();
    final AtomicLong hits = new AtomicLong();
    final AtomicLong waits = new AtomicLong();
    final AtomicLong materializationJobs = new AtomicLong();
    final AtomicLong failedJobs = new AtomicLong();
    final AtomicLong inlineComputations = new AtomicLong();
    final AtomicLong fetchFailures = new AtomicLong();
    final AtomicLong rematerializations = new AtomicLong();
    final AtomicLong localPartitionReads = new AtomicLong();
    final AtomicLong remotePartitionReads = new AtomicLong();
    final AtomicLong localBytes = new AtomicLong();
    final AtomicLong remoteBytes = new AtomicLong();

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
     * One line with every counter, for logs and failure messages.
     *
     * @return the counters.
     */
    public String toString()
    {
        return "actions=" + actions + " hits=" + hits + " waits=" + waits + " jobs=" + materializationJobs +
            " failedJobs=" + failedJobs + " inline=" + inlineComputations + " fetchFailures=" + fetchFailures +
            " rematerializations=" + rematerializations + " local=" + localPartitionReads + " remote=" +
            remotePartitionReads;
    }
}
