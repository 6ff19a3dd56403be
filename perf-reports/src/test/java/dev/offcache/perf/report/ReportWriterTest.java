package dev.offcache.perf.report;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.Color;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.perf.Fixtures;
import dev.offcache.perf.TestComparison;
import dev.offcache.perf.chart.DecodedChart;
import dev.offcache.perf.chart.HorizontalBarChart;
import dev.offcache.perf.jmh.JmhResultReader;
import dev.offcache.perf.measure.MeasurementFileReader;
import dev.offcache.perf.pairing.SpeedupSpread;

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
            "java -jar benchmarks.jar -f 1 -i 3 -rf json", null, MachineInfo.current(), null, "0.50 0.40 0.30",
            JmhResultReader.read(Fixtures.path(Fixtures.REPORT)), List.of(), List.of("a note"),
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
            "offcache better | – | – | 70.00 / 150.0 | 350.0 / 900.0 | 5.00× / 6.00× |");
        assertLine("| lookup | entries=100000 | 2 | ns/op | 100.0 | 30.00 | synchronized | 110.0 | 30.00 | 1.10× | " +
            "within error | – | – | 90.00 / 200.0 | 95.00 / 220.0 | 1.06× / 1.10× |");
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
    void summaryShowsTheMeanBesideTheMedianWorstAndBestPair()
    {
        assertLine("| [core.Crc32cBenchmark](#corecrc32cbenchmark) | 0 | 0 | 0 | 0 | n/a | – | – | – | 1 |");
        assertLine("| [journal.JournalAppendBenchmark](#journaljournalappendbenchmark) | 1 | 0 | 0 | 1 | 3.00× | " +
            "3.00× append vs fileChannel | 3.00× append vs fileChannel | 3.00× append vs fileChannel | 0 |");
        assertLine("| [range.BlockReadBenchmark](#rangeblockreadbenchmark) | 1 | 1 | 0 | 0 | 2.50× | " +
            "2.50× read blockSize=1048576 vs baseline | 2.50× read blockSize=1048576 vs baseline | " +
            "2.50× read blockSize=1048576 vs baseline | 1 |");
        // sqrt(5.0 * 1.1) = 2.345; two pairs have no median, only a worst and a best.
        assertLine("| [registry.RegistryLookupBenchmark](#registryregistrylookupbenchmark) | 2 | 1 | 0 | 1 | 2.35× | " +
            "– | 1.10× lookup entries=100000 vs synchronized | 5.00× lookup entries=1000 vs synchronized | 0 |");
        // sqrt(4.0 * 0.5) = 1.414
        assertLine("| [slab.SlabAllocateBenchmark](#slabslaballocatebenchmark) | 2 | 1 | 1 | 0 | 1.41× | " +
            "– | 0.50× allocateRelease slotSize=65536 vs allocateDirect | 4.00× allocateRelease slotSize=4096 vs " +
            "allocateDirect | 0 |");
        assertLine("**2 pairs: offcache better in 1, baseline better in 1, no clear winner in 0.** Speedup: " +
            "geometric mean 1.41×, worst 0.50× (allocateRelease slotSize=65536 vs allocateDirect), best 4.00× " +
            "(allocateRelease slotSize=4096 vs allocateDirect).");
    }

    @Test
    void aMeanCarriedByOneExtremePairIsCalledOut()
    {
        // The slab suite of the committed quick report: 22.5× from one 860× pair, the median pair 6.9×.
        final SpeedupSpread spread = SpeedupSpread.of(List.of(
            TestComparison.throughput("allocateFree slotSize=4096", "direct", 6.86, 0.1, 1, 0.01),
            TestComparison.throughput("allocateFree slotSize=1048576", "direct", 860.13, 1, 1, 0.01),
            TestComparison.throughput("allocateFreeTwoThreads slotSize=4096", "direct", 0.53, 0.3, 1, 0.5),
            TestComparison.throughput("allocateFreeTwoThreads slotSize=1048576", "direct", 82.58, 90, 1, 0.9)));
        assertEquals("**4 pairs: offcache better in 2, baseline better in 0, no clear winner in 2.** Speedup: " +
            "geometric mean 22.54×, median 6.86× (allocateFree slotSize=4096 vs direct), worst 0.53× " +
            "(allocateFreeTwoThreads slotSize=4096 vs direct), best 860.13× (allocateFree slotSize=1048576 vs " +
            "direct). The mean is 3.29× off the median: it is carried by extreme pairs, read the median and the " +
            "worst pair.", ReportWriter.headline(spread));
    }

    @Test
    void headerNamesMachineCommandJvmAndMissingBenchmarks()
    {
        assertTrue(markdown.startsWith("# test report\n"), markdown);
        assertTrue(markdown.contains("> a note\n"));
        assertTrue(markdown.contains("From the repository root:\n\n```\njava -jar benchmarks.jar -f 1 -i 3 -rf json" +
            "\n```"), markdown);
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
        final ReportWriter.Written busy = ReportWriter.write(new ReportInput("busy", "x.json", null, null, machine,
            null, "1.00 2.00 3.00", JmhResultReader.read(Fixtures.path(Fixtures.REPORT)), List.of(), List.of(),
            List.of()),
            out.resolve("busy"));
        assertTrue(Files.readString(busy.markdown()).contains("**Busy machine:** a load average of 5.00 on 2 " +
            "logical CPUs"));
        final MachineInfo idle = new MachineInfo("Test CPU", 2, "1.0 GiB", "Linux", "17", "0.50 0.40 0.30");
        final ReportWriter.Written quiet = ReportWriter.write(new ReportInput("idle", "x.json", null, null, idle,
            null, "1.90 1.00 1.00", JmhResultReader.read(Fixtures.path(Fixtures.REPORT)), List.of(), List.of(),
            List.of()),
            out.resolve("idle"));
        final String md = Files.readString(quiet.markdown());
        assertFalse(md.contains("Busy machine"));
        assertTrue(md.contains("| CPU | Test CPU |"), md);
        assertTrue(md.contains("(unknown: the results file came without a run-info.json)"), md);
    }

    @Test
    void everySuiteHasASpeedupChartAndEveryModeItsScoreChart() throws IOException
    {
        assertEquals(List.of(
            "core.Crc32cBenchmark-thrpt-standalone.png",
            "journal.JournalAppendBenchmark-speedup.png",
            "journal.JournalAppendBenchmark-thrpt-pairs.png",
            "range.BlockReadBenchmark-avgt-pairs.png",
            "range.BlockReadBenchmark-avgt-standalone.png",
            "range.BlockReadBenchmark-speedup.png",
            "registry.RegistryLookupBenchmark-sample-pairs.png",
            "registry.RegistryLookupBenchmark-sample-percentiles.png",
            "registry.RegistryLookupBenchmark-speedup.png",
            "slab.SlabAllocateBenchmark-speedup.png",
            "slab.SlabAllocateBenchmark-thrpt-pairs.png"),
            written.charts().stream().map(p -> p.getFileName().toString()).sorted().toList());
        final Set<Integer> bars = Set.of(rgb(HorizontalBarChart.OURS), rgb(HorizontalBarChart.BASELINE),
            rgb(HorizontalBarChart.OURS_PALE), rgb(HorizontalBarChart.BASELINE_PALE), rgb(Color.GRAY));
        for (final Path chart : written.charts())
        {
            final byte[] bytes = Files.readAllBytes(chart);
            assertArrayEquals(PNG_SIGNATURE, Arrays.copyOf(bytes, 8), chart + " has the PNG signature");
            final DecodedChart decoded = DecodedChart.read(chart);
            assertEquals(HorizontalBarChart.WIDTH, decoded.width(), chart + " width");
            assertTrue(decoded.blankBorder(8), chart + ": nothing runs off the image");
            final String name = chart.getFileName().toString();
            final List<DecodedChart.BarRect> found = decoded.bars(bars);
            if (name.endsWith("-pairs.png") || name.endsWith("-percentiles.png"))
            {
                assertTrue(found.stream().anyMatch(b -> b.rgb() == rgb(HorizontalBarChart.OURS)), name + " ours");
                assertTrue(found.stream().anyMatch(b -> b.rgb() == rgb(HorizontalBarChart.BASELINE)),
                    name + " baseline");
            }
            assertTrue(markdown.contains("](charts/" + chart.getFileName() + ")"), chart + " is linked");
        }
        // One speedup bar per pair, coloured by its verdict: slab has a win (blue) and a loss (orange).
        final List<DecodedChart.BarRect> slab = DecodedChart.read(out.resolve("charts")
            .resolve("slab.SlabAllocateBenchmark-speedup.png")).bars(bars);
        assertEquals(List.of(rgb(HorizontalBarChart.OURS), rgb(HorizontalBarChart.BASELINE)),
            slab.stream().map(DecodedChart.BarRect::rgb).toList());
        // (the 1× line covers the first column of a bar growing right: one pixel, plus rounding)
        assertEquals(slab.get(0).length(), slab.get(1).length() * 2, 3, "log 4 is twice log 2");
        // The journal pair has no error bars: grey, no verdict.
        assertEquals(List.of(rgb(Color.GRAY)), DecodedChart.read(out.resolve("charts")
            .resolve("journal.JournalAppendBenchmark-speedup.png")).bars(bars).stream()
            .map(DecodedChart.BarRect::rgb).toList());
    }

    @Test
    void sampledTimeTablesAddPercentileSpeedups()
    {
        // p50 350 / 70 = 5.00×, p99 900 / 150 = 6.00×.
        assertTrue(markdown.lines().anyMatch(l -> l.startsWith("| lookup | entries=1000 | 2 | ns/op |") &&
            l.endsWith("| 70.00 / 150.0 | 350.0 / 900.0 | 5.00× / 6.00× |")), markdown);
    }

    @Test
    void measurementFilesGetTheirOwnSuiteInTheSameForm() throws IOException
    {
        final ReportWriter.Written report = ReportWriter.write(new ReportInput("m", null, "sh run.sh", null,
            MachineInfo.current(), null, null, List.of(),
            List.of(MeasurementFileReader.read(Fixtures.measurements(Fixtures.PARQUET))), List.of(), List.of()),
            out.resolve("measurements"));
        final String md = Files.readString(report.markdown());
        assertTrue(md.contains("1 measurement file (not JMH) · report written "), md);
        assertTrue(md.contains("- [parquet.ColumnScan](#parquetcolumnscan): `sh bench/parquet-scan.sh`\n"), md);
        assertTrue(md.contains("## parquet.ColumnScan\n\nTEST FIXTURE with invented numbers"), md);
        assertTrue(md.contains("Not JMH: measured by\n\n```\nsh bench/parquet-scan.sh\n```"), md);
        assertTrue(md.contains("| load average (1m 5m 15m) | 0.10 0.20 0.30 at the start, 0.40 0.50 0.60 at the " +
            "end |"), md);
        assertTrue(md.lines().anyMatch(("| [parquet.ColumnScan (not JMH)](#parquetcolumnscan) | 4 | 2 | 0 | 2 | " +
            "2.15× | 2.22× cold scan · scan time vs plain-fs | 1.11× cold scan · scan time vs " +
            "alluxio-local-cache | 4.00× warm scan · scan time vs alluxio-local-cache | 1 |")::equals), md);
        assertTrue(md.lines().anyMatch(("| cold scan | scan time | ms | lower | 900.0 | 850.0 – 950.0 | plain-fs | " +
            "2000.0 | 1800.0 – 2200.0 (3 runs) | 2.22× | offcache better |")::equals), md);
        assertTrue(md.lines().anyMatch(("| warm scan | origin GETs | requests | lower | 0 | – | " +
            "alluxio-local-cache | " +
            "12.00 | – | n/a | no error bars |")::equals), md);
        assertTrue(md.lines().anyMatch(("| decode floor | scan time | plain-fs-no-latency | ms | lower | 81.00 | " +
            "80.00 – 82.00 (3 runs) |")::equals), md);
        assertEquals(List.of("parquet.ColumnScan-ms-pairs.png", "parquet.ColumnScan-requests-pairs.png",
            "parquet.ColumnScan-speedup.png"),
            report.charts().stream().map(p -> p.getFileName().toString()).sorted().toList());
        final List<DecodedChart.BarRect> speedups = DecodedChart.read(out.resolve("measurements").resolve("charts")
            .resolve("parquet.ColumnScan-speedup.png")).bars(Set.of(rgb(HorizontalBarChart.OURS),
            rgb(HorizontalBarChart.OURS_PALE), rgb(HorizontalBarChart.BASELINE), rgb(Color.GRAY)));
        // 1.11× within error (pale), 2.22× and 4.00× better (blue); the zero has no bar.
        assertEquals(List.of(rgb(HorizontalBarChart.OURS_PALE), rgb(HorizontalBarChart.OURS),
            rgb(HorizontalBarChart.OURS)), speedups.stream().map(DecodedChart.BarRect::rgb).toList());
    }

    @Test
    void oldChartsAreRemovedWhenAReportIsWrittenAgain() throws IOException
    {
        final Path dir = out.resolve("again");
        final ReportInput input = new ReportInput("again", "x.json", null, null, MachineInfo.current(), null, null,
            JmhResultReader.read(Fixtures.path(Fixtures.REPORT)), List.of(), List.of(), List.of());
        ReportWriter.write(input, dir);
        final Path stale = Files.writeString(dir.resolve("charts").resolve("gone-suite-speedup.png"), "stale");
        final ReportWriter.Written again = ReportWriter.write(input, dir);
        assertFalse(Files.exists(stale));
        assertEquals(11, again.charts().size());
        assertTrue(again.charts().stream().allMatch(Files::isRegularFile));
    }

    private static int rgb(final Color colour)
    {
        return colour.getRGB() & 0xffffff;
    }

    private static void assertLine(final String line)
    {
        assertTrue(markdown.lines().anyMatch(line::equals), "report has the line\n" + line + "\n---\n" + markdown);
    }
}
