package dev.offcache.server.cli;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import com.sun.management.OperatingSystemMXBean;

/**
 * The memory the machine gives this process, read before the RAM tier is allocated so that a tier that cannot fit
 * is refused at once by name instead of being pre-touched until the machine (or the container) runs out: the
 * physical memory ({@code MemTotal} of {@code /proc/meminfo}) and the memory limit of the process's cgroup, version
 * 2 ({@code memory.max} of its group and every parent) or 1 ({@code memory.limit_in_bytes}), whichever is lower.
 * The roots are parameters so a test can give a container's files.
 */
final class MachineMemory
{
    /**
     * What the server takes beside the RAM tier's direct memory, as measured under load (docs/cache-server.md,
     * "Memory": peak RSS = RAM tier + 220–233 MiB with 1 MiB blocks), rounded up: heap, the JVM's own, staging
     * buffers and Netty's pool.
     */
    static final long OVERHEAD_BYTES = 256L << 20;

    /** A cgroup v1 limit at or above this is "no limit" (the kernel's page-rounded {@code Long.MAX_VALUE}). */
    private static final long UNLIMITED = 1L << 62;

    private final Path proc;
    private final Path cgroupRoot;

    /**
     * This machine's files.
     */
    MachineMemory()
    {
        this(Path.of("/proc"), Path.of("/sys/fs/cgroup"));
    }

    /**
     * Files under other roots.
     *
     * @param proc       where {@code meminfo} and {@code self/cgroup} are.
     * @param cgroupRoot where the cgroup file systems are mounted.
     */
    MachineMemory(final Path proc, final Path cgroupRoot)
    {
        this.proc = proc;
        this.cgroupRoot = cgroupRoot;
    }

    /**
     * The physical memory.
     *
     * @return bytes; the JVM's view when {@code /proc/meminfo} cannot be read.
     */
    long physicalBytes()
    {
        try
        {
            for (final String line : Files.readAllLines(proc.resolve("meminfo"), StandardCharsets.US_ASCII))
            {
                if (line.startsWith("MemTotal:"))
                {
                    return Long.parseLong(line.substring("MemTotal:".length()).replace("kB", "").trim()) << 10;
                }
            }
        }
        catch (final IOException | NumberFormatException ex)
        {
            // below
        }
        return ManagementFactory.getPlatformMXBean(OperatingSystemMXBean.class).getTotalMemorySize();
    }

    /**
     * The lowest memory limit of this process's cgroup and its parents.
     *
     * @return bytes, or -1 when there is none (or no cgroup file to read).
     */
    long cgroupLimitBytes()
    {
        final List<String> groups;
        try
        {
            groups = Files.readAllLines(proc.resolve("self").resolve("cgroup"), StandardCharsets.US_ASCII);
        }
        catch (final IOException ex)
        {
            return -1;
        }
        long lowest = -1;
        for (final String line : groups)
        {
            final String[] fields = line.split(":", 3);
            if (fields.length < 3)
            {
                continue;
            }
            if ("0".equals(fields[0]) && fields[1].isEmpty())
            {
                lowest = lower(lowest, lowestOnTheWay(cgroupRoot, fields[2], "memory.max"));
            }
            else if (List.of(fields[1].split(",")).contains("memory"))
            {
                lowest = lower(lowest, lowestOnTheWay(cgroupRoot.resolve("memory"), fields[2],
                    "memory.limit_in_bytes"));
            }
        }
        return lowest;
    }

    /** The lowest limit in the group's file and its parents' up to the mount's root (a container sees its own). */
    private static long lowestOnTheWay(final Path mount, final String group, final String file)
    {
        long lowest = -1;
        Path dir = mount.resolve(group.replaceFirst("^/+", ""));
        while (null != dir && dir.startsWith(mount))
        {
            lowest = lower(lowest, limitIn(dir.resolve(file)));
            dir = dir.getParent();
        }
        return lowest;
    }

    private static long limitIn(final Path file)
    {
        try
        {
            final String value = Files.readString(file, StandardCharsets.US_ASCII).trim();
            if ("max".equals(value))
            {
                return -1;
            }
            final long bytes = Long.parseLong(value);
            return bytes >= UNLIMITED ? -1 : bytes;
        }
        catch (final IOException | NumberFormatException ex)
        {
            return -1;
        }
    }

    private static long lower(final long a, final long b)
    {
        return a < 0 ? b : b < 0 ? a : Math.min(a, b);
    }

    /**
     * Refuses a RAM tier that, with {@link #OVERHEAD_BYTES}, needs more than the physical memory or the cgroup's
     * limit.
     *
     * @param storeBytes the store's direct memory ({@code TieredBlockStore.Context#directMemoryBytes}).
     * @param ramMb      the {@code --ram-mb} value, for the message.
     */
    void check(final long storeBytes, final int ramMb)
    {
        final long needed = storeBytes + OVERHEAD_BYTES;
        final long physical = physicalBytes();
        final long limit = cgroupLimitBytes();
        final boolean container = limit >= 0 && limit < physical;
        final long available = container ? limit : physical;
        if (needed > available)
        {
            throw new StartupException("--ram-mb", ramMb + " needs " + mib(needed) + " MiB of memory (RAM slab and " +
                "spill slots " + mib(storeBytes) + " MiB + " + mib(OVERHEAD_BYTES) + " MiB for the heap, the JVM " +
                "and I/O), but " + (container ? "this container's memory limit (cgroup) is " + mib(available) +
                " MiB" : "this machine has " + mib(available) + " MiB of physical memory") + ": lower --ram-mb", null);
        }
    }

    private static long mib(final long bytes)
    {
        return (bytes + (1 << 20) - 1) >> 20;
    }
}
