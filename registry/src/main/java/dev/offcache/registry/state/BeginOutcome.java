package dev.offcache.registry.state;

/**
 * Result of {@code beginMaterialization}: exactly one caller at a time gets {@link Claimed}.
 */
public sealed interface BeginOutcome permits BeginOutcome.Claimed, BeginOutcome.AlreadyPending,
    BeginOutcome.AlreadyMaterialized
{
    /**
     * The shared {@link Claimed} instance.
     */
    Claimed CLAIMED = new Claimed();

    /**
     * The caller's job now owns the key and must complete or abort it.
     */
    record Claimed() implements BeginOutcome
    {
    }

    /**
     * Another (or the same) job already holds the claim.
     *
     * @param jobId the job holding the claim.
     */
    record AlreadyPending(String jobId) implements BeginOutcome
    {
    }

    /**
     * The key is already materialized (and its executors were live when checked).
     *
     * @param entry the materialized entry.
     */
    record AlreadyMaterialized(Materialized entry) implements BeginOutcome
    {
    }
}
