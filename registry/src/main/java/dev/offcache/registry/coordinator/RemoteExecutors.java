package dev.offcache.registry.coordinator;

import dev.offcache.transport.client.BlockClient;

/**
 * How the read-back reaches a remote executor's block server: the engine keeps one connected {@link BlockClient}
 * per executor (it owns them).
 */
@FunctionalInterface
public interface RemoteExecutors
{
    /**
     * The client connected to an executor's block server.
     *
     * @param executorId the executor.
     * @return its client, or null when the executor is unknown (read as a fetch failure).
     */
    BlockClient clientFor(String executorId);
}
