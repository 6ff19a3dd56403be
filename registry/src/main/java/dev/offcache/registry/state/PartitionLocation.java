package dev.offcache.registry.state;

import dev.offcache.core.shuffle.PartitionId;
import dev.offcache.core.shuffle.PartitionInfo;

/**
 * Where one partition of a materialized dataset lives, and what it holds: the executor holding the shuffle file, the
 * file, its length and the CRC32C of its data. A read-back checks the file it reads against the length and CRC the
 * registry recorded (and the file's footer against the partition), so a file replaced behind the registry's back is
 * a fetch failure, never a wrong answer.
 *
 * @param executorId  the executor that serves the file; not empty.
 * @param jobId       the job that wrote it; not empty.
 * @param stageId     the stage that wrote it; not negative.
 * @param partitionId the partition number; not negative.
 * @param path        the file path on that executor; not empty.
 * @param length      the data length in bytes; not negative.
 * @param crc32c      the CRC32C of the data as an unsigned 32-bit value, or {@link #NO_CRC} when it was not recorded
 *                    (locations journaled before CRCs were recorded): such a read checks the file against its own
 *                    footer only.
 */
public record PartitionLocation(String executorId, String jobId, int stageId, int partitionId, String path,
    long length, long crc32c)
{
    /**
     * The CRC of a location that does not record one.
     */
    public static final long NO_CRC = -1;

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
        if (crc32c != NO_CRC && (crc32c < 0 || crc32c > 0xFFFF_FFFFL))
        {
            throw new IllegalArgumentException("crc32c must be an unsigned 32-bit value or NO_CRC: " + crc32c);
        }
    }

    /**
     * A location without a recorded CRC (reads check the file against its own footer only).
     *
     * @param executorId  the executor that serves the file.
     * @param jobId       the job that wrote it.
     * @param stageId     the stage that wrote it.
     * @param partitionId the partition number.
     * @param path        the file path on that executor.
     * @param length      the data length in bytes.
     */
    public PartitionLocation(final String executorId, final String jobId, final int stageId, final int partitionId,
        final String path, final long length)
    {
        this(executorId, jobId, stageId, partitionId, path, length, NO_CRC);
    }

    /**
     * The location of a partition an executor's shuffle store committed: everything, CRC included, from what
     * {@code PartitionWriter.commit()} returned.
     *
     * @param executorId the executor whose store wrote it.
     * @param info       what the commit returned.
     * @return the location.
     */
    public static PartitionLocation of(final String executorId, final PartitionInfo info)
    {
        Ids.requireNonNull(info, "info");
        final PartitionId id = info.id();
        return new PartitionLocation(executorId, id.jobId(), id.stageId(), id.partitionId(), info.path().toString(),
            info.length(), Integer.toUnsignedLong(info.crc32c()));
    }

    /**
     * Whether the registry recorded the data's CRC32C.
     *
     * @return true unless {@link #crc32c()} is {@link #NO_CRC}.
     */
    public boolean hasCrc()
    {
        return crc32c != NO_CRC;
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

    /**
     * The shuffle store's name of this partition.
     *
     * @return the partition id.
     */
    public PartitionId partition()
    {
        return new PartitionId(jobId, stageId, partitionId);
    }
}
