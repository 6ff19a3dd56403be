package dev.offcache.perf.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MachineInfoTest
{
    @TempDir
    Path dir;

    @Test
    void readsTheFirstCpuModelAndTheMemory() throws IOException
    {
        final Path cpuinfo = Files.writeString(dir.resolve("cpuinfo"),
            "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\n\n" +
            "processor\t: 1\nmodel name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\n");
        assertEquals("Intel(R) Xeon(R) CPU @ 2.20GHz", MachineInfo.cpuModel(cpuinfo));
        final Path meminfo = Files.writeString(dir.resolve("meminfo"), "MemTotal:       16318864 kB\nMemFree: 1 kB\n");
        assertEquals("15.6 GiB", MachineInfo.memory(meminfo));
    }

    @Test
    void unknownWhereThereIsNoProc()
    {
        assertEquals("unknown", MachineInfo.cpuModel(dir.resolve("missing")));
        assertEquals("unknown", MachineInfo.memory(dir.resolve("missing")));
    }
}
