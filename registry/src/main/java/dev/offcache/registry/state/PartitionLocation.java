package dev.offcache.registry.state;

/**
 * Where one partition of a materialized dataset lives: the executor holding the shuffle file and the file itself.
 *
 * @param executorId the executor that serves the file; not empty.
 * @param jobId      the job that wrote it; not empty.
 * @param stageId    the stage that wrote it; not negative.
 * @param partitionId the partition number; not negative.
 * @param path       the file path on that executor; not empty.
 * @param length     the file length in bytes; not negative.
 */
public record PartitionLocation(String executorId, String jobId, int stageId, int partitionId, String path,
    long length)
{
    /**
     * Validates every field.
     *
     * @throws IllegalArgumentException naming the first bad field.
     */
    public PartitionLocation
    {
        Ids.requireId(executorId, "executorId");
        Ids.requireId(jobId, "jobId");
        Ids.requireId(path, "path");
        if (stageId < 0)
        {
            throw new IllegalArgumentException("stageId must not be negative: " + stageId);
        }
        if (partitionId < 0)
        {
            throw new IllegalArgumentException("partitionId must not be negative: " + partitionId);
        }
        if (length < 0)
        {
            throw new IllegalArgumentException("length must not be negative: " + length);
        }
    }

    /**
     * The stage this partition belongs to.
     *
     * @return the stage reference.
     */
    public StageRef stage()
    {
        return new StageRef(jobId, stageId);
    }
}
