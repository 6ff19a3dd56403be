package dev.offcache.registry.state;

/**
 * The scheduler's view of which executors are alive, consulted on every read of a materialized entry so that a hit
 * never names a dead executor. Implementations must be safe to call from the registry's thread.
 */
@FunctionalInterface
public interface LiveExecutors
{
    /**
     * A view in which every executor is alive (no validation).
     */
    LiveExecutors ALL = executorId -> true;

    /**
     * Whether the executor is alive.
     *
     * @param executorId the executor id.
     * @return true when it is alive.
     */
    boolean isLive(String executorId);
}
