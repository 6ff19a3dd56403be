package dev.offcache.dataset;

import dev.offcache.transport.client.PayloadClient;

/**
 * How the read-back reaches a remote executor's payload server: the engine keeps one connected {@link PayloadClient}
 * per executor (it owns them).
 */
@FunctionalInterface
public interface RemoteExecutors
{
    /**
     * The client connected to an executor's payload server.
     *
     * @param executorId the executor.
     * @return its client, or null when the executor is unknown (read as a fetch failure).
     */
    PayloadClient clientFor(String executorId);
}
