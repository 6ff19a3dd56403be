package dev.offcache.registry.front;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.offcache.registry.command.Command;
import dev.offcache.registry.command.CommandType;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.PartitionLocation;

/**
 * One pre-allocated ring slot: a {@link Command} and the future its caller waits on. A producer fills it between
 * {@code next()} and {@code publish()}; the writer reads it and clears it so the ring does not keep old arguments
 * reachable.
 */
final class RegistryCommand extends Command
{
    CompletableFuture<Object> future;

    void set(
        final CommandType type, final CacheKey key, final String jobId, final String id,
        final DatasetSchema schema, final List<PartitionLocation> locations,
        final CompletableFuture<Object> future)
    {
        arguments(type, key, jobId, id, schema, locations);
        this.future = future;
    }

    void clear()
    {
        set(null, null, null, null, null, null, null);
    }
}
