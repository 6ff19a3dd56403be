package dev.offcache.perf.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.perf.Fixtures;
import dev.offcache.perf.jmh.JmhResultReader;

class ResultComparisonTest
{
    @TempDir
    Path out;

    private final List<Change> changes = ResultComparison.compare(
        JmhResultReader.read(Fixtures.path(Fixtures.COMPARE_BASELINE)),
        JmhResultReader.read(Fixtures.path(Fixtures.COMPARE_CANDIDATE)));

    @Test
    void flagsTheRegressionAndOnlyTheRegression()
    {
        final Map<String, Change> byMethod = new LinkedHashMap<>();
        changes.forEach(c -> byMethod.put((c.baseline() != null ? c.baseline() : c.candidate()).method(), c));

        // 1000 ± 50 -> 700 ± 40 ops/s: [660, 740] is below [950, 1050].
        assertEquals(ChangeVerdict.REGRESSION, byMethod.get("regressed").verdict());
        assertEquals(-30.0, byMethod.get("regressed").changePercent(), 1e-9);
        // 1000 ± 200 -> 900 ± 150: worse, but the intervals overlap.
        assertEquals(ChangeVerdict.WITHIN_ERROR, byMethod.get("noisy").verdict());
        // 100 ± 5 -> 60 ± 5 us/op.
        assertEquals(ChangeVerdict.IMPROVEMENT, byMethod.get("faster").verdict());
        assertEquals(-40.0, byMethod.get("faster").changePercent(), 1e-9);
        assertEquals(ChangeVerdict.WITHIN_ERROR, byMethod.get("slowerWithinError").verdict());
        // Halved, but a single iteration has no error bars: shown, not judged.
        assertEquals(ChangeVerdict.NO_ERROR_BARS, byMethod.get("singleIteration").verdict());
        assertEquals(-50.0, byMethod.get("singleIteration").changePercent(), 1e-9);
        // 100 us/op -> 0.1 ms/op is no change at all.
        assertEquals(ChangeVerdict.WITHIN_ERROR, byMethod.get("unitChanged").verdict());
        assertEquals(0.0, byMethod.get("unitChanged").changePercent(), 1e-9);
        // Same speed within error, but 0 -> 64 B/op.
        assertEquals(ChangeVerdict.WITHIN_ERROR, byMethod.get("allocates").verdict());
        assertTrue(byMethod.get("allocates").allocationRegression());
        assertEquals(ChangeVerdict.REMOVED, byMethod.get("removed").verdict());
        assertEquals(ChangeVerdict.ADDED, byMethod.get("added").verdict());

        assertEquals(List.of("regressed", "allocates"),
            changes.stream().filter(Change::flagged).map(c -> c.baseline().method()).toList());
        assertEquals(1, changes.stream().filter(c -> c.verdict() == ChangeVerdict.REGRESSION).count());
        assertFalse(byMethod.get("regressed").allocationRegression());
    }

    @Test
    void comparingAResultSetWithItselfFlagsNothing()
    {
        final List<Change> same = ResultComparison.compare(
            JmhResultReader.read(Fixtures.path(Fixtures.COMPARE_CANDIDATE)),
            JmhResultReader.read(Fixtures.path(Fixtures.COMPARE_CANDIDATE)));
        assertEquals(8, same.size());
        assertTrue(same.stream().noneMatch(Change::flagged));
    }

    @Test
    void markdownListsTheFlaggedFirstAndEveryChange() throws IOException
    {
        final Path file = CompareWriter.write("a.json", "b.json", changes, List.of(), out);
        final String md = Files.readString(file, StandardCharsets.UTF_8);
        assertTrue(md.contains("## 2 flagged\n\n" +
            "- `compare.CompareBenchmark.regressed [thrpt, 1 thr]`: REGRESSION 1000.0 → 700.0 ops/s (-30.0%)\n" +
            "- `compare.CompareBenchmark.allocates [avgt, 1 thr, size=64]`: ALLOC REGRESSION **0 → 64.00**\n"), md);
        assertTrue(md.lines().anyMatch(("| compare.CompareBenchmark.regressed | – | thrpt | 1 | ops/s | 1000.0 | " +
            "50.00 | 700.0 | 40.00 | -30.0% | **REGRESSION** | 0 → 0 |")::equals), md);
        assertTrue(md.lines().anyMatch(("| compare.CompareBenchmark.unitChanged | – | avgt | 1 | us/op | 100.0 | " +
            "5.00 | 100.0 | 5.00 | +0.0% | within error | 0 → 0 |")::equals), md);
        assertTrue(md.lines().anyMatch(("| compare.CompareBenchmark.added | – | thrpt | 1 | ops/s | – | – | 20.00 | " +
            "1.00 | n/a | added | – |")::equals), md);
        assertEquals(1, md.lines().filter(l -> l.contains("**REGRESSION**")).count());
    }
}
