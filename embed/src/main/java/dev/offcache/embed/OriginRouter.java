package dev.offcache.embed;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongConsumer;

import dev.offcache.range.origin.ObjectNotFoundException;
import dev.offcache.range.origin.ObjectStore;
import dev.offcache.range.origin.OriginException;
import dev.offcache.range.store.FetchClass;

/**
 * The origin of a shared cache: it routes each read, by the key's {@code scheme/authority} prefix, to a
 * {@link EngineOrigin} an adapter registered (a Hadoop {@code FileSystem} instance, an Iceberg {@code FileIO}), so one
 * cache serves every instance and every bucket in the JVM. Sizes come from the keys ({@link CacheKeys}), so the
 * router never asks for one. Only reads are routed: writes, deletes and listings are the engine's own business and
 * never reach a shared cache.
 *
 * <p>Several sources may serve one prefix (Hadoop makes a {@code FileSystem} per user and configuration); any one
 * will do, since they name the same files. The most recently registered one is asked first. A prefix with no source
 * fails the read, and the adapter then reads from its own file system (a broken cache never fails a read).
 */
public final class OriginRouter implements ObjectStore
{
    private final ConcurrentHashMap<String, CopyOnWriteArrayList<EngineOrigin>> sources = new ConcurrentHashMap<>();

    /**
     * Makes a source serve a prefix.
     *
     * @param prefix from {@link CacheKeys#prefix}.
     * @param source the source.
     */
    public void register(final String prefix, final EngineOrigin source)
    {
        sources.computeIfAbsent(prefix, (p) -> new CopyOnWriteArrayList<>()).add(0, source);
    }

    /**
     * Makes a source serve a prefix unless one already does (for adapters made per task, such as a deserialized
     * {@code FileIO}, which are never closed: registering each would keep every one alive).
     *
     * @param prefix from {@link CacheKeys#prefix}.
     * @param source the source.
     * @return true when this source was registered.
     */
    public boolean registerIfAbsent(final String prefix, final EngineOrigin source)
    {
        final CopyOnWriteArrayList<EngineOrigin> list =
            sources.computeIfAbsent(prefix, (p) -> new CopyOnWriteArrayList<>());
        synchronized (list)
        {
            if (!list.isEmpty())
            {
                return false;
            }
            list.add(source);
            return true;
        }
    }

    /**
     * Stops a source serving a prefix (its file system closed).
     *
     * @param prefix the prefix it was registered for.
     * @param source the source.
     */
    public void unregister(final String prefix, final EngineOrigin source)
    {
        final CopyOnWriteArrayList<EngineOrigin> list = sources.get(prefix);
        if (list != null)
        {
            list.remove(source);
        }
    }

    /**
     * Returns how many sources serve a prefix.
     *
     * @param prefix the prefix.
     * @return how many sources serve it.
     */
    public int sourceCount(final String prefix)
    {
        final CopyOnWriteArrayList<EngineOrigin> list = sources.get(prefix);
        return list == null ? 0 : list.size();
    }

    @Override
    public String namespace()
    {
        return "offcache-engine-adapters";
    }

    @Override
    public CompletableFuture<Long> size(final String key)
    {
        try
        {
            return CompletableFuture.completedFuture(CacheKeys.lengthOf(key));
        }
        catch (final RuntimeException ex)
        {
            return CompletableFuture.failedFuture(ex);
        }
    }

    @Override
    public CompletableFuture<Integer> read(
        final String key, final long offset, final ByteBuffer destination, final FetchClass fetchClass,
        final LongConsumer objectSize)
    {
        try
        {
            final CopyOnWriteArrayList<EngineOrigin> list = sources.get(CacheKeys.prefixOf(key));
            final EngineOrigin source = list == null || list.isEmpty() ? null : list.get(0);
            if (source == null)
            {
                return CompletableFuture.failedFuture(new ObjectNotFoundException(namespace(), key));
            }
            final long length = CacheKeys.lengthOf(key);
            if (offset >= length)
            {
                return CompletableFuture.completedFuture(0);
            }
            final int want = (int) Math.min(destination.remaining(), length - offset);
            final ByteBuffer slice = destination.slice(destination.position(), want);
            return source.read(CacheKeys.locationOf(key), length, offset, slice);
        }
        catch (final Throwable ex)
        {
            // a source's Error or sneaky checked exception fails this read, as a returned failure would
            return CompletableFuture.failedFuture(ex);
        }
    }

    @Override
    public CompletableFuture<Integer> readIfMatch(
        final String key, final long offset, final ByteBuffer destination, final String ifMatch)
    {
        return unsupported("conditional read");
    }

    @Override
    public CompletableFuture<String> version(final String key)
    {
        return unsupported("version");
    }

    @Override
    public CompletableFuture<Void> put(final String key, final ByteBuffer source)
    {
        return unsupported("put");
    }

    @Override
    public CompletableFuture<Void> delete(final String key)
    {
        return unsupported("delete");
    }

    @Override
    public CompletableFuture<List<String>> list(final String prefix)
    {
        return unsupported("list");
    }

    @Override
    public void close()
    {
        sources.clear();
    }

    private static <T> CompletableFuture<T> unsupported(final String what)
    {
        return CompletableFuture.failedFuture(new OriginException(what + " does not go through a shared engine " +
            "cache: engines write and list through their own file systems"));
    }
}
