package dev.offcache.registry.state;

/**
 * Result of {@code abortMaterialization}.
 */
public enum AbortOutcome
{
    /**
     * The key was Pending for this job; the claim is cleared and waiters are released.
     */
    ABORTED,

    /**
     * The key was not Pending for this job (absent, another job's claim, or materialized): nothing changed.
     */
    STALE
}
