package dev.offcache.range.metrics;

import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/**
 * Registers a range-cache engine's {@link RangeCacheMXBean} with the platform MBean server under a stable name,
 * {@code dev.offcache:type=RangeCache,name=<name>}, chosen by the owner (the L2 server uses its listen address), so
 * dashboards and alerts keep working across restarts.
 */
public final class CacheStatsMXBeans
{
    private CacheStatsMXBeans()
    {
    }

    /** A registered bean; closing it unregisters it (once; later closes do nothing). */
    public interface Registration extends AutoCloseable
    {
        /**
         * The name the bean is registered under.
         *
         * @return the object name.
         */
        ObjectName objectName();

        @Override
        void close();
    }

    /**
     * The object name for a cache name.
     *
     * @param name the owner's name for the cache, any characters.
     * @return {@code dev.offcache:type=RangeCache,name="<name>"}.
     */
    public static ObjectName objectName(final String name)
    {
        try
        {
            return new ObjectName("dev.offcache:type=RangeCache,name=" + ObjectName.quote(name));
        }
        catch (final MalformedObjectNameException ex)
        {
            throw new IllegalArgumentException("not usable as an MBean name: " + name, ex);
        }
    }

    /**
     * Registers the statistics of a cache.
     *
     * @param name  the cache's name.
     * @param stats reads a fresh snapshot ({@code cache::stats}).
     * @return unregisters the bean when closed.
     * @throws IllegalStateException when the name is taken or the server refuses the bean.
     */
    public static Registration register(final String name, final Supplier<CacheStats> stats)
    {
        final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        final ObjectName objectName = objectName(name);
        try
        {
            server.registerMBean(new Bean(stats), objectName);
        }
        catch (final JMException ex)
        {
            throw new IllegalStateException("cannot register " + objectName + ": " + ex.getMessage(), ex);
        }
        return new Registration()
        {
            @Override
            public ObjectName objectName()
            {
                return objectName;
            }

            @Override
            public void close()
            {
                try
                {
                    if (server.isRegistered(objectName))
                    {
                        server.unregisterMBean(objectName);
                    }
                }
                catch (final JMException ex)
                {
                    throw new IllegalStateException("cannot unregister " + objectName + ": " + ex.getMessage(), ex);
                }
            }
        };
    }

    /** The bean: each getter reads one snapshot. */
    private record Bean(Supplier<CacheStats> stats) implements RangeCacheMXBean
    {
        @Override
        public long getHitCount()
        {
            return stats.get().hitCount();
        }

        @Override
        public long getMissCount()
        {
            return stats.get().missCount();
        }

        @Override
        public double getHitRate()
        {
            return stats.get().hitRate();
        }

        @Override
        public long getStoreBytes()
        {
            return stats.get().storeBytes();
        }

        @Override
        public long getL2Bytes()
        {
            return stats.get().l2Bytes();
        }

        @Override
        public long getObjectStoreBytes()
        {
            return stats.get().objectStoreBytes();
        }

        @Override
        public long getOriginGetCount()
        {
            return stats.get().originGetCount();
        }

        @Override
        public long getOriginBytes()
        {
            return stats.get().originBytes();
        }

        @Override
        public long getOriginErrorCount()
        {
            return stats.get().originErrorCount();
        }

        @Override
        public long getEvictionCount()
        {
            return stats.get().evictionCount();
        }

        @Override
        public Map<String, Long> getFallbacks()
        {
            final Map<String, Long> byLabel = new LinkedHashMap<>();
            stats.get().fallbacks().forEach((reason, count) -> byLabel.put(reason.label(), count));
            return byLabel;
        }
    }
}
