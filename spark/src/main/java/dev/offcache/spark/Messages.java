package dev.offcache.spark;

import java.io.Serializable;
import java.util.List;
import java.util.Map;

/**
 * What executors and the driver tell each other over Spark's plugin RPC (executor to driver only: the driver's
 * commands ride on the heartbeat replies).
 */
final class Messages
{
    private Messages()
    {
    }

    /**
     * An executor is up: where its payload server listens and where its files are.
     *
     * @param executorId the executor.
     * @param host       its host (the block manager's).
     * @param channel    its payload server's request channel.
     * @param streamId   its request stream.
     * @param pid        its process id.
     * @param directory  its own directory.
     */
    record Register(String executorId, String host, String channel, int streamId, long pid, String directory)
        implements Serializable
    {
    }

    /**
     * An executor's offcache did not start (its tasks compute cached datasets from their lineage).
     *
     * @param executorId the executor.
     * @param reason     what failed (the exception's message: paths and error codes, no secrets).
     */
    record Unavailable(String executorId, String reason) implements Serializable
    {
    }

    /**
     * An executor is alive; its counters so far (cumulative).
     *
     * @param executorId     the executor.
     * @param localReads     partitions mapped from its own files.
     * @param remoteReads    partitions fetched from other executors.
     * @param recomputes     partitions recomputed from the lineage because they could not be read.
     * @param openPartitions partitions open now.
     */
    record Heartbeat(String executorId, long localReads, long remoteReads, long recomputes, long openPartitions)
        implements Serializable
    {
    }

    /**
     * The driver's answer to a heartbeat.
     *
     * @param commands  stage deletions for this executor, in order.
     * @param executors every live executor's payload endpoint, by id.
     * @param known     whether the driver knows this executor (false: register again).
     */
    record HeartbeatReply(List<Command> commands, Map<String, Endpoint> executors, boolean known)
        implements Serializable
    {
    }

    /**
     * A payload server's address.
     *
     * @param channel  request channel.
     * @param streamId request stream.
     */
    record Endpoint(String channel, int streamId) implements Serializable
    {
    }

    /** A deletion for one executor. */
    sealed interface Command extends Serializable
    {
    }

    /**
     * Delete a job's stages except the kept ones.
     *
     * @param jobId      the job.
     * @param keepStages stage ids that stay (pinned).
     */
    record DeleteJob(String jobId, List<Integer> keepStages) implements Command
    {
    }

    /**
     * Delete one stage.
     *
     * @param jobId   the job.
     * @param stageId the stage.
     */
    record DeleteStage(String jobId, int stageId) implements Command
    {
    }

    /**
     * Delete one partition's file (a materialization attempt that lost).
     *
     * @param jobId     the job.
     * @param stageId   the stage.
     * @param partition the partition.
     */
    record DeletePartition(String jobId, int stageId, int partition) implements Command
    {
    }

    /** Delete the directories of dead executors of this host (one on the executor's host was lost). */
    record SweepDeadExecutors() implements Command
    {
    }

    /**
     * A task could not read a cached partition and recomputed it from the lineage.
     *
     * @param sessionId  the key's session.
     * @param cacheId    the key's cache id.
     * @param jobId      the materialization that failed to read.
     * @param executorId the executor that tried.
     * @param partition  the partition.
     * @param cause      why (a message, no secrets: paths and error codes).
     */
    record ReadFailure(String sessionId, String cacheId, String jobId, String executorId, int partition, String cause)
        implements Serializable
    {
    }
}
