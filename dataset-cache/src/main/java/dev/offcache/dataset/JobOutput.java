package dev.offcache.dataset;

import java.util.List;

import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.Ids;
import dev.offcache.registry.state.PartitionLocation;

/**
 * What a finished job reports: the schema of its output and where the output stage's partitions were written.
 *
 * @param schema    the dataset schema (opaque).
 * @param locations one per output partition, all written by the job; copied.
 */
public record JobOutput(DatasetSchema schema, List<PartitionLocation> locations)
{
    /**
     * Validates the output.
     *
     * @throws IllegalArgumentException when a field is null or there are no locations.
     */
    public JobOutput
    {
        Ids.requireNonNull(schema, "schema");
        Ids.requireNonNull(locations, "locations");
        if (locations.isEmpty())
        {
            throw new IllegalArgumentException("a job output names at least one partition");
        }
        locations = List.copyOf(locations);
    }
}
