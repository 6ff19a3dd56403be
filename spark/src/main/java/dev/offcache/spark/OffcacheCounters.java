package dev.offcache.spark;

/**
 * What offcache did in one application so far, read on the driver ({@link OffcacheDatasets#counters}). Read counts of
 * executors in other JVMs are as of their last heartbeat.
 *
 * @param actions             actions that resolved a cached node.
 * @param materializationJobs Spark jobs run to materialize a node (one per miss that claimed its key).
 * @param hits                resolves answered from the registry, no job.
 * @param waits               resolves that waited for another action's materialization.
 * @param failedJobs          materialization jobs that failed (the action then computed from the lineage).
 * @param localReads          partitions mapped from the reading executor's own files.
 * @param remoteReads         partitions fetched over Aeron from the executor holding them.
 * @param invalidations       entries removed: read failures, uncache, session drops, lost executors.
 * @param recomputes          partitions a task could not read and recomputed from the lineage.
 * @param uncached            actions that computed a node from its lineage (offcache could not serve it).
 * @param openPartitions      partitions open now (mapped or fetched, not yet released).
 * @param adoptedPartitions   partitions a materialization copied from the files a lost executor's peers still held,
 *                            instead of computing them ({@link Salvage}).
 */
public record OffcacheCounters(long actions, long materializationJobs, long hits, long waits, long failedJobs,
    long localReads, long remoteReads, long invalidations, long recomputes, long uncached, long openPartitions,
    long adoptedPartitions)
{
    /**
     * Resolves that found no usable entry and claimed the key.
     *
     * @return the misses (equal to the materialization jobs).
     */
    public long misses()
    {
        return materializationJobs;
    }
}
