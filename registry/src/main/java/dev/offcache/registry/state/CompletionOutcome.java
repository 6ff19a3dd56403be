package dev.offcache.registry.state;

/**
 * Result of {@code completeMaterialization}.
 */
public enum CompletionOutcome
{
    /**
     * The key was Pending for this job and is now Materialized.
     */
    PROMOTED,

    /**
     * The key is already Materialized by this same job: nothing changed (completions are idempotent).
     */
    DUPLICATE,

    /**
     * Anything else (absent, claimed by another job, materialized by another job): nothing changed, so a late
     * completion never resurrects a removed entry nor overwrites a newer claim.
     */
    STALE
}
