package dev.offcache.dataset.cluster;

import java.util.Set;

import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.registry.state.StageRef;

/**
 * The scheduler's handle on one executor of the test cluster, in this JVM or in a child JVM.
 */
interface ExecutorNode extends AutoCloseable
{
    String id();

    /**
     * Where its payload server takes requests.
     */
    String requestChannel();

    int requestStreamId();

    /**
     * Runs one toy task: writes partition {@code partitionId} of the seed's dataset as {@code jobId/stageId}.
     */
    PartitionLocation runTask(String jobId, int stageId, int partitionId, long seed, int rows);

    /**
     * Whether the executor still runs (what the job runner's placement sees).
     */
    boolean isAlive();

    int deleteJob(String jobId, Set<StageRef> keep);

    boolean deleteStage(StageRef stage);

    boolean stageExists(String jobId, int stageId);

    /**
     * Whether the job's directory is still there.
     */
    boolean jobExists(String jobId);

    /**
     * SIGKILL (child JVM) or stop serving (in process).
     */
    void kill();

    void close();
}
