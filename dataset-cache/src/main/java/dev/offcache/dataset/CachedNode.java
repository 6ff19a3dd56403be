package dev.offcache.dataset;

import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.Ids;

/**
 * The cached node of a plan ({@code df.cache()}): the key the registry knows it by and its input subplan (the
 * lineage), which is run as its own job on a miss or computed inline when caching is not possible.
 *
 * @param key   the {@code (sessionId, cacheId)} key.
 * @param input the engine's subplan that produces the dataset; opaque to the coordinator.
 * @param <P>   the engine's plan type.
 */
public record CachedNode<P>(CacheKey key, P input)
{
    /**
     * Validates the node.
     *
     * @throws IllegalArgumentException when the key or the input is null.
     */
    public CachedNode
    {
        Ids.requireNonNull(key, "key");
        Ids.requireNonNull(input, "input");
    }
}
