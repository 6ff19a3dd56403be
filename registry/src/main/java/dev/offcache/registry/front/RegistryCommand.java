package dev.offcache.registry.front;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.offcache.registry.command.CommandType;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.PartitionLocation;

/**
 * One pre-allocated ring slot. A producer fills it between {@code next()} and {@code publish()}; the registry thread
 * reads it and clears it so the ring does not keep old arguments reachable.
 */
final class RegistryCommand
{
    CommandType type;
    CacheKey key;
    String jobId;
    String id;
    DatasetSchema schema;
    List<PartitionLocation> locations;
    CompletableFuture<Object> future;

    void set(
        final CommandType type, final CacheKey key, final String jobId, final String id,
        final DatasetSchema schema, final List<PartitionLocation> locations,
        final CompletableFuture<Object> future)
    {
        this.type = type;
        this.key = key;
        this.jobId = jobId;
        this.id = id;
        this.schema = schema;
        this.locations = locations;
        this.future = future;
    }

    void clear()
    {
        set(null, null, null, null, null, null, null);
    }
}
