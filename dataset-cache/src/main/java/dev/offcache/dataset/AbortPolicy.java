package dev.offcache.dataset;

/**
 * What an action that waited on another job's claim does when that claim is aborted (the job failed).
 */
public enum AbortPolicy
{
    /**
     * Try to claim the key and materialize it (one of the released waiters wins, the others wait again).
     */
    CLAIM_AND_MATERIALIZE,

    /**
     * Compute the input inline for this action only, without caching it (its output is deleted afterwards).
     */
    COMPUTE_INLINE
}
