package dev.offcache.dataset;

import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.Materialized;

/**
 * What {@link DatasetResolver#resolve} answers for one action: a materialization to read back, or "compute it from
 * the lineage" (nothing cached for this action).
 */
public sealed interface Resolved
{
    /**
     * How the answer came about.
     */
    enum Source
    {
        /** The registry had it, on live executors: no job ran. */
        HIT,
        /** This call claimed the key and its job materialized it. */
        MATERIALIZED,
        /** Another action's job materialized it while this one waited on the registry's notification. */
        WAITED,
        /**
         * This call's job finished after its claim was removed (session teardown, invalidation): the output is not
         * pinned or registered. Only a single-process engine's coordinator asks for it (it reads the output once,
         * then deletes the job); {@link DatasetResolver#resolve} answers {@link Uncached} instead.
         */
        STALE
    }

    /**
     * The key's pinned output: read it back; a partition that cannot be read is reported with
     * {@link DatasetResolver#readFailed(CacheKey, String)} (the conditional invalidate).
     *
     * @param key    the key.
     * @param entry  the schema and the locations of every partition, in partition order.
     * @param source how it came about.
     */
    record Cached(CacheKey key, Materialized entry, Source source) implements Resolved
    {
    }

    /**
     * Nothing cached for this action: the engine computes the input from its lineage.
     *
     * @param key    the key.
     * @param reason why (the session is being removed, the claim it waited on was aborted under
     *               {@link AbortPolicy#COMPUTE_INLINE}, the completion came back stale, too many rounds).
     */
    record Uncached(CacheKey key, String reason) implements Resolved
    {
    }
}
