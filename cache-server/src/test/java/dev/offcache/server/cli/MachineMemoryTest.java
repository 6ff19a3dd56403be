package dev.offcache.server.cli;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The machine's memory as {@link MachineMemory} reads it from a container's files: {@code /proc/meminfo}, the
 * process's cgroup (v2 {@code memory.max} of its group and parents, v1 {@code memory.limit_in_bytes}), no limit, and
 * the refusal's message for each.
 */
class MachineMemoryTest
{
    private static final long GIB = 1L << 30;

    @TempDir
    Path tmp;

    private MachineMemory machine(final String cgroupLine) throws Exception
    {
        final Path proc = Files.createDirectories(tmp.resolve("proc").resolve("self"));
        Files.writeString(tmp.resolve("proc").resolve("meminfo"), "MemTotal:       16777216 kB\nMemFree: 1 kB\n");
        Files.writeString(proc.resolve("cgroup"), cgroupLine + "\n");
        return new MachineMemory(tmp.resolve("proc"), tmp.resolve("sys"));
    }

    private void write(final String path, final String value) throws Exception
    {
        final Path file = tmp.resolve("sys").resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, value + "\n");
    }

    @Test
    void cgroupV2TakesTheLowestLimitOfTheGroupAndItsParents() throws Exception
    {
        final MachineMemory machine = machine("0::/kubepods/pod1/container");
        write("kubepods/memory.max", "max");
        write("kubepods/pod1/memory.max", Long.toString(4 * GIB));
        write("kubepods/pod1/container/memory.max", Long.toString(6 * GIB));
        assertEquals(16 * GIB, machine.physicalBytes());
        assertEquals(4 * GIB, machine.cgroupLimitBytes());

        machine.check(3 * GIB, 3072);
        final StartupException refused = assertThrows(StartupException.class, () -> machine.check(4 * GIB, 4096));
        assertEquals("--ram-mb (env OFFCACHE_RAM_MB): 4096 needs 4352 MiB of memory (RAM slab and spill slots 4096 " +
            "MiB + 256 MiB for the heap, the JVM and I/O), but this container's memory limit (cgroup) is 4096 MiB: " +
            "lower --ram-mb", refused.getMessage());
    }

    @Test
    void cgroupV1ReadsTheMemoryControllersLimit() throws Exception
    {
        final MachineMemory machine = machine("4:memory:/docker/abc\n3:cpu,cpuacct:/docker/abc");
        write("memory/docker/abc/memory.limit_in_bytes", Long.toString(2 * GIB));
        write("memory/memory.limit_in_bytes", "9223372036854771712");
        assertEquals(2 * GIB, machine.cgroupLimitBytes());
    }

    @Test
    void withoutALimitThePhysicalMemoryBounds() throws Exception
    {
        final MachineMemory machine = machine("0::/");
        write("memory.max", "max");
        assertEquals(-1, machine.cgroupLimitBytes());
        machine.check(15 * GIB, 15 * 1024);
        final StartupException refused = assertThrows(StartupException.class, () -> machine.check(16 * GIB,
            16 * 1024));
        assertTrue(refused.getMessage().contains("but this machine has 16384 MiB of physical memory: lower --ram-mb"),
            refused.getMessage());
        // a limit above the physical memory is not the bound
        write("memory.max", Long.toString(64 * GIB));
        assertTrue(assertThrows(StartupException.class, () -> machine.check(16 * GIB, 16 * 1024)).getMessage()
            .contains("physical memory"));
    }
}
