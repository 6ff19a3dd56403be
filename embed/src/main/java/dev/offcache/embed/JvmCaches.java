package dev.offcache.embed;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The JVM's shared engine caches, one per distinct {@link CacheSettings}: every Hadoop {@code FileSystem} and
 * Iceberg {@code FileIO} instance with the same settings gets the same {@link SharedCache}, whatever bucket or user
 * it serves. Made on first use (after {@link JvmFlags#check()}), kept until the JVM exits (a shutdown hook closes
 * them), since the engine creates and drops adapter instances far more often than the cache should be rebuilt.
 */
public final class JvmCaches
{
    private static final ConcurrentHashMap<CacheSettings, SharedCache> CACHES = new ConcurrentHashMap<>();
    private static volatile boolean hookInstalled;

    private JvmCaches()
    {
    }

    /**
     * The shared cache for some settings, made on first use.
     *
     * @param settings the settings.
     * @return the cache, the same instance for equal settings.
     * @throws IllegalStateException when the JVM lacks a required flag ({@link JvmFlags}).
     */
    public static SharedCache get(final CacheSettings settings)
    {
        final SharedCache existing = CACHES.get(settings);
        if (existing != null)
        {
            return existing;
        }
        JvmFlags.check();
        installHook();
        return CACHES.computeIfAbsent(settings, SharedCache::new);
    }

    /**
     * Returns how many shared caches this JVM holds.
     *
     * @return how many shared caches this JVM holds.
     */
    public static int count()
    {
        return CACHES.size();
    }

    /**
     * Closes and forgets every shared cache (tests, and the shutdown hook); adapters opened before keep failing over
     * to their own file systems, later ones make new caches.
     */
    public static void closeAll()
    {
        final List<SharedCache> all = new ArrayList<>(CACHES.values());
        CACHES.clear();
        RuntimeException failure = null;
        for (final SharedCache cache : all)
        {
            try
            {
                cache.close();
            }
            catch (final RuntimeException ex)
            {
                if (failure == null)
                {
                    failure = ex;
                }
                else
                {
                    failure.addSuppressed(ex);
                }
            }
        }
        if (failure != null)
        {
            throw failure;
        }
    }

    private static synchronized void installHook()
    {
        if (!hookInstalled)
        {
            Runtime.getRuntime().addShutdownHook(new Thread(JvmCaches::closeAll, "offcache-shared-cache-close"));
            hookInstalled = true;
        }
    }
}
