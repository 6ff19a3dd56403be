package dev.offcache.registry.front;

import dev.offcache.registry.state.Materialized;

/**
 * How a wait on a Pending key ended: the output is ready, or the claim went away and the waiter must choose between
 * claiming the key itself and computing inline without caching.
 */
public sealed interface Resolution permits Resolution.Ready, Resolution.Released
{
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
