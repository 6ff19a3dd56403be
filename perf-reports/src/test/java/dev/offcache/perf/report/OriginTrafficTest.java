package dev.offcache.perf.report;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.offcache.perf.jmh.JmhResultReader;
import dev.offcache.perf.pairing.Pairing;
import dev.offcache.perf.pairing.SuiteResults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The committed full run's Parquet scan suite, read from its raw JSON: the origin traffic table has a row per
 * implementation and cache state with the exact counts per scan (origin GETs, KiB, metadata calls divided by the
 * scans counted), beside the time; the markdown carries it in that suite and in no suite without counters.
 */
class OriginTrafficTest
{
    private static final Path COMMITTED = Path.of("results/latest/jmh-result.json");

    @Test
    void theParquetScanRowsAreTheCountsPerScan() throws Exception
    {
        final List<SuiteResults> suites = Pairing.pair(JmhResultReader.read(COMMITTED));
        final OriginTraffic scan = OriginTraffic.of(suite(suites, "engine.ParquetScanBenchmark"));
        assertNotNull(scan);
        assertEquals(List.of("metadataCalls", "originGets", "originKib"), scan.counters(), "in the JSON's order");
        assertEquals(8, scan.rows().size(), "offcache and 3 baselines, warm and cold");
        final OriginTraffic.Row oursCold = row(scan, "offcache", "cache=cold");
        assertEquals(1213, oursCold.operations());
        assertEquals(Map.of("originGets", 2426.0 / 1213, "originKib", 5420897.0 / 1213, "metadataCalls", 0.0),
            oursCold.perOp());
        assertEquals(Map.of("originGets", 0.0, "originKib", 0.0, "metadataCalls", 0.0),
            row(scan, "offcache", "cache=warm").perOp());
        assertEquals(1.0, row(scan, "alluxio", "cache=warm").perOp().get("metadataCalls"),
            "Alluxio asks the origin for the status at every open, warm too");
        assertEquals(5.0, row(scan, "plain", "cache=cold").perOp().get("originGets"));
        assertEquals(23.07, oursCold.time().score(), 0.005);

        assertNull(OriginTraffic.of(suite(suites, "slab.SlotAllocationBenchmark")), "no counters, no table");
        final OriginTraffic miss = OriginTraffic.of(suite(suites, "range.RangeMissPathBenchmark"));
        assertEquals(List.of("originGets"), miss.counters());
        miss.rows().forEach(r -> assertEquals(1.0, r.perOp().get("originGets"), r + ": one GET per cold read"));
    }

    @Test
    void theReportShowsTheTableInTheScanSuiteOnly(@org.junit.jupiter.api.io.TempDir final Path out) throws Exception
    {
        final ReportWriter.Written written = ReportWriter.write(new ReportInput("traffic", COMMITTED.toString(), null,
            null, MachineInfo.current(), null, null, JmhResultReader.read(COMMITTED), List.of(), List.of(), List.of()),
            out);
        final String md = java.nio.file.Files.readString(written.markdown());
        final int scan = md.indexOf("## engine.ParquetScanBenchmark");
        final int next = md.indexOf("\n## ", scan + 1);
        final String section = md.substring(scan, next);
        assertTrue(section.contains("### Origin traffic per scan, beside the time"), section);
        assertTrue(section.contains("| offcache | blockKib=256, cache=cold, fileMiB=8, latencyMs=5 | 23.07 ms/op | " +
            "1.71 | 0 | 2.00 | 4469.0 | 1213 |"), section);
        assertEquals(3, md.split("### Origin traffic", -1).length - 1, "the scan, the range engine's miss path and " +
            "the L2 client's cold read count their origin traffic");
        assertTrue(md.contains("### Origin traffic per operation, beside the time"), "RangeMissPath counts ops");
        assertTrue(md.contains("### Origin traffic (totals over the measurement iterations), beside the time"),
            "L2ColdRead (single shot) counts no operations");
    }

    private static SuiteResults suite(final List<SuiteResults> suites, final String name)
    {
        return suites.stream().filter(s -> s.shortName().equals(name)).findFirst().orElseThrow();
    }

    private static OriginTraffic.Row row(final OriginTraffic traffic, final String impl, final String param)
    {
        return traffic.rows().stream().filter(r -> r.impl().equals(impl) && r.params().contains(param)).findFirst()
            .orElseThrow(() -> new AssertionError(impl + " " + param + " in " + traffic.rows()));
    }
}
