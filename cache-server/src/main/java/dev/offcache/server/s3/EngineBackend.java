package dev.offcache.server.s3;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.offcache.range.engine.ByteRange;
import dev.offcache.range.engine.RangeCache;
import dev.offcache.range.origin.ObjectInfo;
import dev.offcache.server.tier.ObjectName;
import dev.offcache.server.tier.TieredBlockStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bucket backend of the L2 server: object metadata from the engine ({@link RangeCache#statAsync}, one origin
 * HEAD per object version, remembered with its size), listings and probes from the engine's origin, and pass-through
 * writes that go to the origin through the engine (which forgets the key), drop the old version's SSD blocks, and
 * then warm the SSD tier with the new object, as the L2 client's write-time warming does. Thread-safe; owns
 * nothing.
 */
public final class EngineBackend extends OriginBackend
{
    private static final Logger LOG = LoggerFactory.getLogger(EngineBackend.class);

    private final RangeCache cache;
    private final TieredBlockStore tiers;

    /**
     * A backend over an engine.
     *
     * @param cache the engine (its origin serves listings and probes).
     * @param tiers the engine's tiered store, whose SSD blocks of a rewritten object are dropped, or {@code null}.
     */
    public EngineBackend(final RangeCache cache, final TieredBlockStore tiers)
    {
        super(cache.origin());
        this.cache = cache;
        this.tiers = tiers;
    }

    @Override
    public CompletableFuture<ObjectInfo> stat(final String key)
    {
        return cache.statAsync(key);
    }

    @Override
    public CompletableFuture<ObjectInfo> put(final String key, final ByteBuffer bytes)
    {
        // dropped before (so no reader meanwhile takes the old bytes for current) and after (so none it stored stays)
        forgetOnSsd(key);
        return cache.put(key, bytes).thenCompose((v) ->
        {
            forgetOnSsd(key);
            return cache.statAsync(key);
        }).thenApply((info) ->
        {
            if (info.size() > 0)
            {
                cache.prefetch(key, List.of(new ByteRange(0, info.size()))).whenComplete((done, error) ->
                {
                    if (null != error)
                    {
                        LOG.debug("warming {} after a pass-through write failed: {}", key, error.toString());
                    }
                });
            }
            return info;
        });
    }

    @Override
    public CompletableFuture<Void> delete(final String key)
    {
        forgetOnSsd(key);
        return cache.delete(key).thenRun(() -> forgetOnSsd(key));
    }

    private void forgetOnSsd(final String key)
    {
        if (null != tiers)
        {
            tiers.ssd().removeObject(new ObjectName(cache.namespace(), key));
        }
    }
}
