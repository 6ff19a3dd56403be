package dev.offcache.dataset;

import dev.offcache.registry.state.CacheKey;

/**
 * The job that materializes (or inline-computes) a cached dataset failed; the action fails with this, its claim
 * was aborted and the key's waiters were released.
 */
public final class MaterializationFailedException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /**
     * An exception naming the key and the job.
     *
     * @param key   the dataset.
     * @param jobId the failed job.
     * @param cause why it failed.
     */
    public MaterializationFailedException(final CacheKey key, final String jobId, final Throwable cause)
    {
        super("job " + jobId + " for cached dataset " + key.sessionId() + "/" + key.cacheId() + " failed: " + cause,
            cause);
    }
}
