package dev.offcache.dataset;

import dev.offcache.registry.state.DatasetSchema;

/**
 * The engine's read of a cached dataset (the query above the cached node): it is called once every partition is
 * available, so it never sees a partial dataset.
 *
 * @param <R> the action's result type.
 */
@FunctionalInterface
public interface OutputReader<R>
{
    /**
     * Computes the action's result from the dataset.
     *
     * @param schema     the dataset schema.
     * @param partitions every partition, in location order; valid only during the call.
     * @return the result.
     */
    R read(DatasetSchema schema, PartitionViews partitions);
}
