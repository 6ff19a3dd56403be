package dev.offcache.registry.api;

import java.util.concurrent.CompletableFuture;

import dev.offcache.registry.state.Materialized;

/**
 * The answer to an action that needs a cached dataset ({@link AsyncCacheRegistry#acquire}): read it, build it, or wait
 * for the job that is building it.
 */
public sealed interface Acquisition permits Acquisition.Hit, Acquisition.Claimed, Acquisition.Wait
{
    /**
     * The dataset is materialized on live executors.
     *
     * @param entry where to read it.
     */
    record Hit(Materialized entry) implements Acquisition
    {
    }

    /**
     * The caller's job now owns the key: materialize, then complete or abort.
     */
    record Claimed() implements Acquisition
    {
    }

    /**
     * Another job is materializing the key.
     *
     * @param pendingJobId the job holding the claim.
     * @param resolution   completes when that claim is promoted or goes away; never polled.
     */
    record Wait(String pendingJobId, CompletableFuture<Resolution> resolution) implements Acquisition
    {
    }
}
