package dev.offcache.registry.pinning;

import java.util.Set;
import java.util.function.Consumer;

import dev.offcache.core.shuffle.PinSet;
import dev.offcache.registry.state.StageRef;

/**
 * The shuffle store's view of the registry's pinned stages: subscribe it with
 * {@code CacheRegistry.Context.pinListener(pins)} and hand it to {@code new ShufflePartitionStore(workDir, pins)}, so
 * stage and job cleanup skip every stage a materialized entry uses.
 *
 * <p>Until the registry publishes its first snapshot (right after recovery) every stage reads as pinned, so a cleanup
 * that runs while the registry is still starting can never delete cached output. Reads are one volatile load and a
 * hash lookup; the snapshot is immutable.
 */
public final class RegistryPinSet implements PinSet, Consumer<Set<StageRef>>
{
    private volatile Set<StageRef> stages;

    /**
     * Whether cleanup must keep the stage.
     *
     * @param jobId   the job.
     * @param stageId the stage.
     * @return true when a materialized entry uses it, or before the registry published its first snapshot.
     */
    public boolean isPinned(final String jobId, final int stageId)
    {
        final Set<StageRef> current = stages;
        return current == null || current.contains(new StageRef(jobId, stageId));
    }

    /**
     * Takes a new snapshot from the registry thread.
     *
     * @param stages the immutable pinned set.
     */
    public void accept(final Set<StageRef> stages)
    {
        this.stages = stages;
    }
}
