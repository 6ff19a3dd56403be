package dev.offcache.dataset;

import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import dev.offcache.core.shuffle.ShufflePartitionStore;
import dev.offcache.registry.state.StageRef;

/**
 * {@link ExecutorStages} for executors whose shuffle stores live in this JVM (local mode, single-process engines,
 * tests): job cleanup and stage deletion call the stores directly. The stores stay owned by the caller; this holds
 * no resources.
 */
public final class LocalExecutorStages implements ExecutorStages
{
    private final Map<String, ShufflePartitionStore> stores;

    /**
     * Stages of in-process executors.
     *
     * @param stores each executor's store by executor id (copied; iteration in id order).
     */
    public LocalExecutorStages(final Map<String, ShufflePartitionStore> stores)
    {
        if (stores == null || stores.isEmpty())
        {
            throw new IllegalArgumentException("stores must name at least one executor");
        }
        this.stores = new TreeMap<>(stores);
    }

    public Collection<String> executorIds()
    {
        return stores.keySet();
    }

    public void deleteJob(final String executorId, final String jobId, final Set<StageRef> keep)
    {
        store(executorId).deleteJob(jobId, (job, stage) -> keep.contains(new StageRef(job, stage)));
    }

    public void deleteStage(final String executorId, final StageRef stage)
    {
        store(executorId).deleteStage(stage.jobId(), stage.stageId());
    }

    private ShufflePartitionStore store(final String executorId)
    {
        final ShufflePartitionStore store = stores.get(executorId);
        if (store == null)
        {
            throw new IllegalArgumentException("no local executor " + executorId);
        }
        return store;
    }
}
