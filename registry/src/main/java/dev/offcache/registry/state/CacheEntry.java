package dev.offcache.registry.state;

/**
 * What the registry holds for one {@link CacheKey}: a claim being materialized, or the materialized output.
 */
public sealed interface CacheEntry permits Pending, Materialized
{
    /**
     * The job that owns the claim or wrote the output.
     *
     * @return the job id.
     */
    String jobId();
}
