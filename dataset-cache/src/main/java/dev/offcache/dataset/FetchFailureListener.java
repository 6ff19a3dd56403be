package dev.offcache.dataset;

import dev.offcache.registry.state.PartitionLocation;

/**
 * The engine's hook on read-back failures: told of every partition a read-back could not read (a local file missing,
 * damaged or not the one recorded; a remote executor unreachable, its connection lost, a fetch timed out, an error
 * frame), for example to mark the executor suspect and stop placing tasks there before its loss is confirmed.
 * Called on the reading thread before the coordinator invalidates the entry; must be quick and must not throw
 * (what it throws is logged and ignored). A remote failure's cause is usually a
 * {@link dev.offcache.transport.client.FetchException} whose {@code errorCode()} tells what happened.
 */
@FunctionalInterface
public interface FetchFailureListener
{
    /**
     * Does nothing.
     */
    FetchFailureListener NONE = (location, cause) ->
    {
    };

    /**
     * One partition could not be read.
     *
     * @param location the partition and the executor it was read from.
     * @param cause    why.
     */
    void onFetchFailure(PartitionLocation location, Throwable cause);
}
