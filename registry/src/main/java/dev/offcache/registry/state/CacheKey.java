package dev.offcache.registry.state;

/**
 * Identity of one cached dataset: the session that created it and the per-{@code cache()}-call id.
 *
 * @param sessionId the owning session; not empty.
 * @param cacheId   the id minted by one {@code cache()} call; not empty.
 */
public record CacheKey(String sessionId, String cacheId)
{
    /**
     * Validates both ids.
     *
     * @throws IllegalArgumentException when either id is null or empty.
     */
    public CacheKey
    {
        Ids.requireId(sessionId, "sessionId");
        Ids.requireId(cacheId, "cacheId");
    }
}
