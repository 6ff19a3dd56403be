package dev.offcache.server.source;

import dev.offcache.range.engine.RangeCache;
import dev.offcache.server.tier.ObjectName;
import dev.offcache.server.tier.ObjectNames;

/**
 * The tiered store's {@link ObjectNames} backed by the engine's own interning table
 * ({@link RangeCache#objectKey(long)}), so SSD block files carry {@code (RangeCache.namespace(), objectKey)} and a
 * restarted engine, which hands out new ids, finds them again.
 *
 * <p>Lifecycle: the store is opened before the engine that owns it is built, so the engine is bound afterwards with
 * {@link #bind(RangeCache)}. Until then every id is unknown (the store neither persists nor finds a block by name);
 * the store is used only through that engine, so nothing reaches it before the bind. Holds no memory of its own.
 */
public final class EngineObjectNames implements ObjectNames
{
    private volatile RangeCache engine;
    private volatile String namespace;

    /**
     * Binds the engine whose ids this resolves; once only.
     *
     * @param cache the engine built over the store that uses this resolver.
     * @return this.
     */
    public EngineObjectNames bind(final RangeCache cache)
    {
        if (null != engine)
        {
            throw new IllegalStateException("already bound to an engine");
        }
        namespace = cache.namespace();
        engine = cache;
        return this;
    }

    @Override
    public ObjectName nameOf(final long objectId)
    {
        final RangeCache cache = engine;
        if (null == cache)
        {
            return null;
        }
        final String key = cache.objectKey(objectId);
        if (null == key)
        {
            return null;
        }
        try
        {
            return new ObjectName(namespace, key);
        }
        catch (final IllegalArgumentException ex)
        {
            // A name too long for a block file header: such blocks stay in RAM only and are never persisted.
            return null;
        }
    }
}
