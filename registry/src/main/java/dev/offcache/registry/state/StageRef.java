package dev.offcache.registry.state;

/**
 * One shuffle stage, the unit that is pinned, unpinned and deleted.
 *
 * @param jobId   the job that wrote the stage; not empty.
 * @param stageId the stage within that job; not negative.
 */
public record StageRef(String jobId, int stageId)
{
    /**
     * Validates the ids.
     *
     * @throws IllegalArgumentException when the job id is null or empty or the stage id negative.
     */
    public StageRef
    {
        Ids.requireId(jobId, "jobId");
        if (stageId < 0)
        {
            throw new IllegalArgumentException("stageId must not be negative: " + stageId);
        }
    }
}
