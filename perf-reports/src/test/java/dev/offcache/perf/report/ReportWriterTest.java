package dev.offcache.perf.report;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import javax.imageio.ImageIO;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.perf.Fixtures;
import dev.offcache.perf.jmh.JmhResultReader;

class ReportWriterTest
{
    private static final byte[] PNG_SIGNATURE = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

    @TempDir
    static Path out;

    private static ReportWriter.Written written;
    private static String markdown;

    @BeforeAll
    static void writeReport() throws IOException
    {
        written = ReportWriter.write(new ReportInput("test report", "report-fixture.json",
            "java -jar benchmarks.jar -f 1 -i 3 -rf json", MachineInfo.current(), null, "0.50 0.40 0.30",
            JmhResultReader.read(Fixtures.path(Fixtures.REPORT)), List.of("a note"),
            List.of("dev.offcache.benchmarks.slab.SlabAllocateBenchmark.allocateRelease",
                "dev.offcache.benchmarks.server.HttpServerBenchmark.get")), out);
        markdown = Files.readString(written.markdown(), StandardCharsets.UTF_8);
    }

    @Test
    void pairedTablesShowScoresErrorsSpeedupsVerdictsAndAllocation()
    {
        assertLine("| allocateRelease | slotSize=4096 | 1 | ops/s | 20,000,000 | 1,000,000 | allocateDirect | " +
            "5,000,000 | 250,000 | 4.00× | offcache better | 0.002 | 96.00 |");
        assertLine("| allocateRelease | slotSize=65536 | 1 | ops/s | 1,000,000 | 50,000 | allocateDirect | " +
            "2,000,000 | 100,000 | 0.50× | baseline better | 0.002 | 96.00 |");
        // The baseline measured in ms/op is shown in ours' us/op.
        assertLine("| read | blockSize=1048576 | 1 | us/op | 120.0 | 5.00 | baseline | 300.0 | 20.00 | 2.50× | " +
            "offcache better | 0.010 | 1,048,680 |");
        // Sample mode adds the percentiles; two threads.
        assertLine("| lookup | entries=1000 | 2 | ns/op | 80.00 | 10.00 | synchronized | 400.0 | 30.00 | 5.00× | " +
            "offcache better | – | – | 70.00 / 150.0 | 350.0 / 900.0 |");
        assertLine("| lookup | entries=100000 | 2 | ns/op | 100.0 | 30.00 | synchronized | 110.0 | 30.00 | 1.10× | " +
            "within error | – | – | 90.00 / 200.0 | 95.00 / 220.0 |");
        // A single iteration: a ratio, but no verdict.
        assertLine("| append | – | 1 | ops/s | 300,000 | n/a | fileChannel | 100,000 | n/a | 3.00× | no error bars | " +
            "– | – |");
    }

    @Test
    void benchmarksWithoutBaselineAreListedWithoutRatio()
    {
        assertLine("| compute | size=4096 | thrpt | 1 | 1234.5 | 10.00 | ops/ms | – |");
        assertLine("| oursWarm | blockSize=1048576 | avgt | 1 | 40.00 | 2.00 | us/op | 0.010 |");
    }

    @Test
    void summaryCountsWinnersAndAveragesSpeedups()
    {
        assertLine("| [core.Crc32cBenchmark](#corecrc32cbenchmark) | 0 | 0 | 0 | 0 | n/a | 1 |");
        assertLine("| [journal.JournalAppendBenchmark](#journaljournalappendbenchmark) | 1 | 0 | 0 | 1 | 3.00× | 0 |");
        assertLine("| [range.BlockReadBenchmark](#rangeblockreadbenchmark) | 1 | 1 | 0 | 0 | 2.50× | 1 |");
        // sqrt(5.0 * 1.1) = 2.345
        assertLine("| [registry.RegistryLookupBenchmark](#registryregistrylookupbenchmark) | 2 | 1 | 0 | 1 | " +
            "2.35× | 0 |");
        // sqrt(4.0 * 0.5) = 1.414
        assertLine("| [slab.SlabAllocateBenchmark](#slabslaballocatebenchmark) | 2 | 1 | 1 | 0 | 1.41× | 0 |");
    }

    @Test
    void headerNamesMachineCommandJvmAndMissingBenchmarks()
    {
        assertTrue(markdown.startsWith("# test report\n"), markdown);
        assertTrue(markdown.contains("> a note\n"));
        assertTrue(markdown.contains("```\njava -jar benchmarks.jar -f 1 -i 3 -rf json\n```"));
        assertLine("| CPU | " + MachineInfo.current().cpuModel() + " |");
        assertLine("| logical CPUs | " + Runtime.getRuntime().availableProcessors() + " |");
        assertLine("| benchmark JVM | JDK 17.0.15, OpenJDK 64-Bit Server VM 17.0.15+6-Debian-1deb12u1 |");
        assertTrue(markdown.contains("| load average (1m 5m 15m) | "), markdown);
        assertTrue(markdown.contains(" at the start, 0.50 0.40 0.30 at the end |"), markdown);
        assertTrue(markdown.contains("## Benchmarks without a result\n"));
        assertTrue(markdown.contains("- `dev.offcache.benchmarks.server.HttpServerBenchmark.get`\n"));
        assertFalse(markdown.contains("- `dev.offcache.benchmarks.slab.SlabAllocateBenchmark.allocateRelease`"));
        if (Files.exists(Path.of("/proc/cpuinfo")))
        {
            assertNotEquals("unknown", MachineInfo.current().cpuModel());
        }
    }

    @Test
    void aLoadAboveTheCpuCountIsCalledOut() throws IOException
    {
        final MachineInfo machine = new MachineInfo("Test CPU", 2, "1.0 GiB", "Linux", "17", "5.00 4.00 3.00");
        final ReportWriter.Written busy = ReportWriter.write(new ReportInput("busy", "x.json", null, machine, null,
            "1.00 2.00 3.00", JmhResultReader.read(Fixtures.path(Fixtures.REPORT)), List.of(), List.of()),
            out.resolve("busy"));
        assertTrue(Files.readString(busy.markdown()).contains("**Busy machine:** a load average of 5.00 on 2 " +
            "logical CPUs"));
        final MachineInfo idle = new MachineInfo("Test CPU", 2, "1.0 GiB", "Linux", "17", "0.50 0.40 0.30");
        final ReportWriter.Written quiet = ReportWriter.write(new ReportInput("idle", "x.json", null, idle, null,
            "1.90 1.00 1.00", JmhResultReader.read(Fixtures.path(Fixtures.REPORT)), List.of(), List.of()),
            out.resolve("idle"));
        final String md = Files.readString(quiet.markdown());
        assertFalse(md.contains("Busy machine"));
        assertTrue(md.contains("| CPU | Test CPU |"), md);
        assertTrue(md.contains("(unknown: the results file came without a run-info.json)"), md);
    }

    @Test
    void chartsAreValidPngsWithBothSeriesDrawnAndLinkedFromTheReport() throws IOException
    {
        assertEquals(List.of(
            "journal.JournalAppendBenchmark-thrpt-pairs.png",
            "range.BlockReadBenchmark-avgt-pairs.png",
            "range.BlockReadBenchmark-avgt-standalone.png",
            "registry.RegistryLookupBenchmark-sample-pairs.png",
            "slab.SlabAllocateBenchmark-thrpt-pairs.png",
            "core.Crc32cBenchmark-thrpt-standalone.png").stream().sorted().toList(),
            written.charts().stream().map(p -> p.getFileName().toString()).sorted().toList());
        for (final Path chart : written.charts())
        {
            final byte[] bytes = Files.readAllBytes(chart);
            assertArrayEquals(PNG_SIGNATURE, Arrays.copyOf(bytes, 8), chart + " has the PNG signature");
            final BufferedImage image = ImageIO.read(new ByteArrayInputStream(bytes));
            assertNotNull(image, chart + " decodes");
            assertTrue(image.getWidth() >= 1000 && image.getHeight() >= 600, chart + " size");
            assertTrue(containsColour(image, 0x1f77b4), chart + " has the offcache bars");
            if (chart.getFileName().toString().endsWith("-pairs.png"))
            {
                assertTrue(containsColour(image, 0xff7f0e), chart + " has the baseline bars");
            }
            assertTrue(markdown.contains("](charts/" + chart.getFileName() + ")"), chart + " is linked");
        }
    }

    private static boolean containsColour(final BufferedImage image, final int rgb)
    {
        for (int y = 0; y < image.getHeight(); y++)
        {
            for (int x = 0; x < image.getWidth(); x++)
            {
                if ((image.getRGB(x, y) & 0xffffff) == rgb)
                {
                    return true;
                }
            }
        }
        return false;
    }

    private static void assertLine(final String line)
    {
        assertTrue(markdown.lines().anyMatch(line::equals), "report has the line\n" + line + "\n---\n" + markdown);
    }
}
