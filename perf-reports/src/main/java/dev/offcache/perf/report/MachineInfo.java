package dev.offcache.perf.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The machine a benchmark ran on, as far as the reports need it: CPU model and count, memory, OS, JDK and the load
 * (this matters on a shared machine).
 *
 * @param cpuModel    CPU model from {@code /proc/cpuinfo}, or {@code unknown}.
 * @param logicalCpus logical CPUs the JVM sees.
 * @param memory      total memory from {@code /proc/meminfo}, or {@code unknown}.
 * @param os          OS name, version and architecture.
 * @param jdk         JDK vendor and version of the JVM that collected this information.
 * @param loadAverage the 1, 5 and 15 minute load averages, or {@code unknown}.
 */
public record MachineInfo(String cpuModel, int logicalCpus, String memory, String os, String jdk, String loadAverage)
{
    /**
     * Describes the machine this JVM runs on.
     *
     * @return the description.
     */
    public static MachineInfo current()
    {
        return new MachineInfo(cpuModel(Path.of("/proc/cpuinfo")), Runtime.getRuntime().availableProcessors(),
            memory(Path.of("/proc/meminfo")),
            System.getProperty("os.name") + " " + System.getProperty("os.version") + " (" +
                System.getProperty("os.arch") + ")",
            System.getProperty("java.vendor") + " " + System.getProperty("java.runtime.version") + " (" +
                System.getProperty("java.vm.name") + ")",
            currentLoadAverage());
    }

    /**
     * The current load averages.
     *
     * @return {@code 1m 5m 15m}, or {@code unknown} where there is no {@code /proc/loadavg}.
     */
    public static String currentLoadAverage()
    {
        final List<String> lines = lines(Path.of("/proc/loadavg"));
        if (lines.isEmpty())
        {
            return "unknown";
        }
        final String[] fields = lines.get(0).trim().split("\\s+");
        return fields.length >= 3 ? fields[0] + " " + fields[1] + " " + fields[2] : "unknown";
    }

    static String cpuModel(final Path cpuinfo)
    {
        for (final String line : lines(cpuinfo))
        {
            final int colon = line.indexOf(':');
            if (colon > 0)
            {
                final String key = line.substring(0, colon).trim();
                // x86 says "model name"; some ARM kernels only have "Hardware" or "CPU part".
                if ("model name".equals(key) || "Hardware".equals(key) || "cpu model".equals(key))
                {
                    return line.substring(colon + 1).trim();
                }
            }
        }
        return "unknown";
    }

    static String memory(final Path meminfo)
    {
        for (final String line : lines(meminfo))
        {
            if (line.startsWith("MemTotal:"))
            {
                final String[] fields = line.substring("MemTotal:".length()).trim().split("\\s+");
                try
                {
                    final double kib = Double.parseDouble(fields[0]);
                    return String.format(Locale.ROOT, "%.1f GiB", kib / (1024 * 1024));
                }
                catch (final NumberFormatException ex)
                {
                    return line.trim();
                }
            }
        }
        return "unknown";
    }

    private static List<String> lines(final Path file)
    {
        try
        {
            return Files.readAllLines(file, StandardCharsets.UTF_8);
        }
        catch (final IOException | RuntimeException ex)
        {
            return List.of();
        }
    }
}
