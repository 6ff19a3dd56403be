package dev.offcache.dataset;

import java.util.Collection;
import java.util.Set;

import dev.offcache.registry.state.StageRef;

/**
 * The engine's cleanup hooks on its executors' shuffle stores. Calls may block (they reach other processes); the
 * coordinator makes them from its own threads.
 */
public interface ExecutorStages
{
    /**
     * The executors that may hold a job's stages (job cleanup visits each).
     *
     * @return the live executor ids.
     */
    Collection<String> executorIds();

    /**
     * Deletes a job's stages on one executor except the pinned ones ({@code ShufflePartitionStore.deleteJob} with a
     * pin set built from {@code keep}).
     *
     * @param executorId the executor.
     * @param jobId      the finished job.
     * @param keep       the registry's pinned stages at the time of the call.
     */
    void deleteJob(String executorId, String jobId, Set<StageRef> keep);

    /**
     * Deletes one (no longer pinned) stage on one executor.
     *
     * @param executorId the executor holding some of the stage's partitions.
     * @param stage      the stage.
     */
    void deleteStage(String executorId, StageRef stage);
}
