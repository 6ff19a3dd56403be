package dev.offcache.server.source;

import java.util.Map;

import dev.offcache.range.engine.RangeCache;
import dev.offcache.server.tier.ObjectName;
import dev.offcache.server.tier.ObjectNames;
import dev.offcache.server.tier.SsdTier;

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

    /**
     * Hands the engine the object sizes a restarted SSD tier recorded ({@link SsdTier#objectSizes()}), so warm
     * objects are served without an origin HEAD. Names of another namespace (another origin) are skipped, and no
     * more than {@code limit} sizes are handed over (the engine's directory is bounded).
     *
     * @param sizes object name to size.
     * @param limit most sizes to hand over.
     * @return how many were handed over.
     */
    public int rememberSizes(final Map<ObjectName, Long> sizes, final int limit)
    {
        final RangeCache cache = engine;
        if (null == cache)
        {
            throw new IllegalStateException("not bound to an engine");
        }
        int remembered = 0;
        for (final Map.Entry<ObjectName, Long> entry : sizes.entrySet())
        {
            if (remembered >= limit)
            {
                break;
            }
            if (namespace.equals(entry.getKey().namespace()))
            {
                try
                {
                    cache.rememberSize(entry.getKey().objectKey(), entry.getValue());
                    remembered++;
                }
                catch (final IllegalArgumentException ex)
                {
                    // a key this engine would refuse: it is simply asked for again
                }
            }
        }
        return remembered;
    }

    @Override
    public long objectSize(final long objectId)
    {
        final RangeCache cache = engine;
        final String key = null == cache ? null : cache.objectKey(objectId);
        return null == key ? -1 : cache.sizeNow(key);
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
