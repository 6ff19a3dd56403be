package dev.offcache.core.shuffle;

/**
 * Which stages the store must keep when a stage or job is deleted: the cached-dataset registry pins the stages
 * whose output backs a cached dataset. Pins are per {@code (jobId, stageId)} because shuffle output is written and
 * deleted per stage, and a cached stage is often an intermediate one. Called on the deleting thread; an
 * implementation must be safe to call from any thread.
 */
@FunctionalInterface
public interface PinSet
{
    /**
     * Pins nothing: every stage may be deleted.
     */
    PinSet NONE = (jobId, stageId) -> false;

    /**
     * Whether a stage must survive deletion.
     *
     * @param jobId   of the stage.
     * @param stageId of the stage.
     * @return true to keep the stage's files.
     */
    boolean isPinned(String jobId, int stageId);
}
