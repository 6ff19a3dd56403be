package dev.offcache.registry.api;

import dev.offcache.registry.state.CacheEntry;
import dev.offcache.registry.state.LiveExecutors;
import dev.offcache.registry.state.Materialized;
import dev.offcache.registry.state.PartitionLocation;

/**
 * How a wait on a Pending key ended: the output is ready, or the claim went away and the waiter must choose between
 * claiming the key itself and computing inline without caching.
 */
public sealed interface Resolution permits Resolution.Ready, Resolution.Released
{
    /**
     * What the waiters of a key get when its claim is promoted: the output, unless it names an executor that is no
     * longer live (waiters are never handed a dead location). Shared by the in-process and the clustered fronts.
     *
     * @param entry the promoted entry.
     * @param live  the live-executor view.
     * @return Ready, or Released with {@link Reason#EXECUTOR_LOST}.
     */
    static Resolution ofPromotion(final Materialized entry, final LiveExecutors live)
    {
        for (final PartitionLocation location : entry.locations())
        {
            if (!live.isLive(location.executorId()))
            {
                return new Released(Reason.EXECUTOR_LOST);
            }
        }
        return new Ready(entry);
    }

    /**
     * What a wait registered on a key that is not Pending resolves to at once.
     *
     * @param entry the key's (validated) entry: materialized, or null when absent.
     * @return Ready for a materialized entry, Released with {@link Reason#NOT_PENDING} otherwise.
     */
    static Resolution ofSettled(final CacheEntry entry)
    {
        return entry instanceof Materialized materialized ?
            new Ready(materialized) : new Released(Reason.NOT_PENDING);
    }

    /**
     * The claim was promoted; read the output from these locations.
     *
     * @param entry the materialized entry (its executors were live when it was handed out).
     */
    record Ready(Materialized entry) implements Resolution
    {
    }

    /**
     * The claim ended without usable output.
     *
     * @param reason why.
     */
    record Released(Reason reason) implements Resolution
    {
    }

    /**
     * Why a waiter was released without output.
     */
    enum Reason
    {
        /**
         * The materializing job aborted its claim.
         */
        ABORTED,
        /**
         * The key was invalidated while pending.
         */
        INVALIDATED,
        /**
         * The session was removed (explicitly or by idle expiry).
         */
        SESSION_REMOVED,
        /**
         * The output was promoted but names an executor that is no longer live; the entry was invalidated.
         */
        EXECUTOR_LOST,
        /**
         * The registry shut down.
         */
        SHUTDOWN,
        /**
         * The key was not pending (nor materialized) when the wait was registered.
         */
        NOT_PENDING
    }
}
