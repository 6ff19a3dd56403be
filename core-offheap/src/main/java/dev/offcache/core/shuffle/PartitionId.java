package dev.offcache.core.shuffle;

/**
 * Names one shuffle partition: the output of partition {@code partitionId} of stage {@code stageId} of job
 * {@code jobId}. Validated on construction, because the job id becomes a directory name under the store's work
 * directory: it must be 1 to {@value #MAX_JOB_ID_LENGTH} characters of {@code [A-Za-z0-9._-]}, must not start
 * with {@code '.'} (the store keeps its temporary files hidden) and must not contain {@code ".."}. Stage and
 * partition ids are non-negative.
 *
 * @param jobId       the job that wrote the partition.
 * @param stageId     the stage within the job.
 * @param partitionId the partition within the stage.
 */
public record PartitionId(String jobId, int stageId, int partitionId) implements Comparable<PartitionId>
{
    /**
     * Longest accepted job id, in characters.
     */
    public static final int MAX_JOB_ID_LENGTH = 128;

    /**
     * Validates the ids.
     *
     * @throws IllegalArgumentException naming the bad id and why it was refused.
     */
    public PartitionId
    {
        validateJobId(jobId);
        validateStageId(stageId);
        if (partitionId < 0)
        {
            throw new IllegalArgumentException("partitionId must be >= 0: " + partitionId);
        }
    }

    /**
     * Checks a job id against the rules above.
     *
     * @param jobId to check.
     * @return the job id, for chaining.
     * @throws IllegalArgumentException naming the job id and what was wrong with it.
     */
    public static String validateJobId(final String jobId)
    {
        if (jobId == null)
        {
            throw new IllegalArgumentException("jobId must not be null");
        }
        final int length = jobId.length();
        if (length == 0)
        {
            throw new IllegalArgumentException("jobId must not be empty");
        }
        if (length > MAX_JOB_ID_LENGTH)
        {
            throw new IllegalArgumentException(
                "jobId is " + length + " characters, longer than the limit of " + MAX_JOB_ID_LENGTH);
        }
        for (int i = 0; i < length; i++)
        {
            final char c = jobId.charAt(i);
            if (!isAllowed(c))
            {
                throw new IllegalArgumentException(
                    "jobId " + printable(jobId) + " has a forbidden character " + describe(c) + " at index " + i +
                    " (allowed: A-Z a-z 0-9 . _ -)");
            }
        }
        if (jobId.charAt(0) == '.')
        {
            throw new IllegalArgumentException("jobId must not start with '.': " + printable(jobId));
        }
        if (jobId.contains(".."))
        {
            throw new IllegalArgumentException("jobId must not contain \"..\": " + printable(jobId));
        }
        return jobId;
    }

    /**
     * Checks a stage id.
     *
     * @param stageId to check.
     * @return the stage id, for chaining.
     * @throws IllegalArgumentException if it is negative.
     */
    public static int validateStageId(final int stageId)
    {
        if (stageId < 0)
        {
            throw new IllegalArgumentException("stageId must be >= 0: " + stageId);
        }
        return stageId;
    }

    /**
     * Orders by job id, then stage, then partition, so listings read naturally.
     *
     * @param other to compare with.
     * @return the usual comparison result.
     */
    @Override
    public int compareTo(final PartitionId other)
    {
        int result = jobId.compareTo(other.jobId);
        if (result == 0)
        {
            result = Integer.compare(stageId, other.stageId);
        }
        if (result == 0)
        {
            result = Integer.compare(partitionId, other.partitionId);
        }
        return result;
    }

    @Override
    public String toString()
    {
        return jobId + "/" + stageId + "/" + partitionId;
    }

    private static boolean isAllowed(final char c)
    {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            c == '.' || c == '_' || c == '-';
    }

    private static String describe(final char c)
    {
        return (c < 0x20 || c == 0x7f || c > 0x7e) ? String.format("U+%04X", (int) c) : "'" + c + "'";
    }

    private static String printable(final String jobId)
    {
        final StringBuilder sb = new StringBuilder(jobId.length() + 2).append('"');
        for (int i = 0; i < jobId.length(); i++)
        {
            final char c = jobId.charAt(i);
            if (c < 0x20 || c == 0x7f)
            {
                sb.append(String.format("\\u%04x", (int) c));
            }
            else
            {
                sb.append(c);
            }
        }
        return sb.append('"').toString();
    }
}
