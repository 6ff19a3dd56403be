package dev.offcache.registry.state;

/**
 * A key claimed by one job that is materializing it.
 *
 * @param jobId the job holding the claim; not empty.
 */
public record Pending(String jobId) implements CacheEntry
{
    /**
     * Validates the job id.
     *
     * @throws IllegalArgumentException when it is null or empty.
     */
    public Pending
    {
        Ids.requireId(jobId, "jobId");
    }
}
