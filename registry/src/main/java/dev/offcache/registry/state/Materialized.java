package dev.offcache.registry.state;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A dataset whose output is written and pinned: its schema and where every partition lives. Immutable.
 *
 * @param jobId            the job that wrote the output; not empty.
 * @param schema           the dataset schema (opaque to the registry).
 * @param locations        one entry per partition, all written by {@code jobId}; not empty, no (stage, partition)
 *                         twice. Copied into an unmodifiable list.
 * @param materializedAtMs epoch milliseconds at which the registry accepted the completion (drives the TTL).
 */
public record Materialized(String jobId, DatasetSchema schema, List<PartitionLocation> locations,
    long materializedAtMs) implements CacheEntry
{
    private static final int SMALL_LIST = 16;

    /**
     * Validates the entry: see {@link #validateLocations(String, List)}.
     *
     * @throws IllegalArgumentException naming what is wrong.
     */
    public Materialized
    {
        Ids.requireId(jobId, "jobId");
        Ids.requireNonNull(schema, "schema");
        validateLocations(jobId, locations);
        locations = List.copyOf(locations);
    }

    /**
     * Checks that a completion's locations describe one consistent output of {@code jobId}: not empty, no null
     * element, every location written by that job, and no (stage, partition) pair twice.
     *
     * @param jobId     the completing job.
     * @param locations the locations reported for it.
     * @throws IllegalArgumentException naming the first inconsistency.
     */
    public static void validateLocations(final String jobId, final List<PartitionLocation> locations)
    {
        Ids.requireNonNull(locations, "locations");
        if (locations.isEmpty())
        {
            throw new IllegalArgumentException(
                "locations must not be empty: a completion names at least one partition");
        }
        // Small lists (the common case) are checked pairwise, without allocating; larger ones through a set.
        final Set<Long> seen = locations.size() > SMALL_LIST ? new HashSet<>() : null;
        for (int i = 0; i < locations.size(); i++)
        {
            final PartitionLocation location = locations.get(i);
            if (location == null)
            {
                throw new IllegalArgumentException("locations[" + i + "] is null");
            }
            if (!location.jobId().equals(jobId))
            {
                throw new IllegalArgumentException("locations[" + i + "] was written by job " + location.jobId() +
                    ", not by the completing job " + jobId);
            }
            if (seen != null ? !seen.add(((long) location.stageId() << 32) | location.partitionId()) :
                repeatsEarlier(locations, i))
            {
                throw new IllegalArgumentException("locations[" + i + "] repeats stage " + location.stageId() +
                    " partition " + location.partitionId());
            }
        }
    }

    private static boolean repeatsEarlier(final List<PartitionLocation> locations, final int index)
    {
        final PartitionLocation location = locations.get(index);
        for (int j = 0; j < index; j++)
        {
            final PartitionLocation earlier = locations.get(j);
            if (earlier.stageId() == location.stageId() && earlier.partitionId() == location.partitionId())
            {
                return true;
            }
        }
        return false;
    }

    /**
     * Total bytes of the output, the quantity the eviction byte cap counts.
     *
     * @return the sum of the partition lengths.
     */
    public long totalBytes()
    {
        long total = 0;
        for (int i = 0, n = locations.size(); i < n; i++)
        {
            final PartitionLocation location = locations.get(i);
            total += location.length();
        }
        return total;
    }

    /**
     * The stages this entry pins.
     *
     * @return the distinct stages of its locations.
     */
    public Set<StageRef> stages()
    {
        final Set<StageRef> stages = new HashSet<>();
        for (int i = 0, n = locations.size(); i < n; i++)
        {
            final PartitionLocation location = locations.get(i);
            stages.add(location.stage());
        }
        return stages;
    }

    /**
     * Whether any partition lives on the given executor.
     *
     * @param executorId the executor.
     * @return true when at least one location names it.
     */
    public boolean usesExecutor(final String executorId)
    {
        for (int i = 0, n = locations.size(); i < n; i++)
        {
            final PartitionLocation location = locations.get(i);
            if (location.executorId().equals(executorId))
            {
                return true;
            }
        }
        return false;
    }
}
