package dev.offcache.server.cli;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;

import com.sun.management.HotSpotDiagnosticMXBean;

/**
 * The JVM's direct-memory limit, read before the RAM tier is allocated so that a tier too large for it is refused
 * at once by name instead of failing with an {@link OutOfMemoryError} mid-start. The limit is
 * {@code -XX:MaxDirectMemorySize}, or the maximum heap size when that flag is absent (the JVM's rule).
 */
final class DirectMemory
{
    /** Left free beside the store for Netty's buffers and the I/O staging buffers. */
    static final long HEADROOM_BYTES = 64L << 20;

    private DirectMemory()
    {
    }

    /**
     * The limit in bytes.
     *
     * @return {@code -XX:MaxDirectMemorySize}, or the max heap size when it is not set.
     */
    static long limitBytes()
    {
        final HotSpotDiagnosticMXBean hotSpot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        final long flag = null == hotSpot ? 0 : Long.parseLong(hotSpot.getVMOption("MaxDirectMemorySize").getValue());
        return flag > 0 ? flag : Runtime.getRuntime().maxMemory();
    }

    /**
     * Direct memory already taken by NIO buffers.
     *
     * @return bytes.
     */
    static long usedBytes()
    {
        for (final BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class))
        {
            if ("direct".equals(pool.getName()))
            {
                return pool.getMemoryUsed();
            }
        }
        return 0;
    }

    /**
     * Refuses a store that would not fit.
     *
     * @param storeBytes the store's direct memory ({@code TieredBlockStore.Context#directMemoryBytes}).
     * @param ramMb      the {@code --ram-mb} value, for the message.
     */
    static void check(final long storeBytes, final int ramMb)
    {
        final long limit = limitBytes();
        final long used = usedBytes();
        if (storeBytes + HEADROOM_BYTES > limit - used)
        {
            throw new StartupException("--ram-mb", ramMb + " needs " + mib(storeBytes + HEADROOM_BYTES) +
                " MiB of direct memory (RAM slab, spill slots and " + mib(HEADROOM_BYTES) + " MiB for I/O), but " +
                "this JVM allows " + mib(limit) + " MiB (" + mib(used) + " MiB in use): raise " +
                "-XX:MaxDirectMemorySize in OFFCACHE_JAVA_OPTS or OFFCACHE_DIRECT_MB (the launcher sets it to the " +
                "RAM tier + 512 MiB unless OFFCACHE_JAVA_OPTS names it) or lower --ram-mb", null);
        }
    }

    private static long mib(final long bytes)
    {
        return (bytes + (1 << 20) - 1) >> 20;
    }
}
