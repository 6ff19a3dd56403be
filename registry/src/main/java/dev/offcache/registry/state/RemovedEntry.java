package dev.offcache.registry.state;

/**
 * One entry taken out of the registry, returned so the caller can unpin and delete its stages.
 *
 * @param key   the key it was stored under.
 * @param entry the entry as it was (a {@link Pending} entry has no output to delete).
 */
public record RemovedEntry(CacheKey key, CacheEntry entry)
{
}
