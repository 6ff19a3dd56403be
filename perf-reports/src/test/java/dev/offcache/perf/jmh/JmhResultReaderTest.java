package dev.offcache.perf.jmh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.perf.Fixtures;

class JmhResultReaderTest
{
    @TempDir
    Path dir;

    @Test
    void readsEveryFieldTheReportsUse()
    {
        final List<JmhResult> results = JmhResultReader.read(Fixtures.path(Fixtures.REPORT));
        assertEquals(14, results.size());

        final JmhResult first = results.get(0);
        assertEquals("dev.offcache.benchmarks.slab.SlabAllocateBenchmark.allocateRelease", first.benchmark());
        assertEquals("dev.offcache.benchmarks.slab.SlabAllocateBenchmark", first.suite());
        assertEquals("allocateRelease", first.method());
        assertEquals("thrpt", first.mode());
        assertEquals(1, first.threads());
        assertEquals(Map.of("impl", "offcache", "slotSize", "4096"), first.params());
        assertEquals(2.0e7, first.primary().score());
        assertEquals(1.0e6, first.primary().error());
        assertEquals(1.9e7, first.primary().lower());
        assertEquals(2.1e7, first.primary().upper());
        assertEquals("ops/s", first.primary().unit());
        assertEquals(0.002, first.allocationPerOp().score());
        assertEquals("B/op", first.allocationPerOp().unit());
        assertEquals("1.37", first.environment().jmhVersion());
        assertEquals("17.0.15", first.environment().jdkVersion());
        assertEquals("3 x 1 s", first.environment().measurement());

        final JmhResult sample = results.get(7);
        assertEquals("sample", sample.mode());
        assertEquals(2, sample.threads());
        assertEquals(150.0, sample.primary().percentile("99.0"));

        final JmhResult single = results.get(12);
        assertTrue(Double.isNaN(single.primary().error()), "JMH's \"NaN\" string is NaN");
        assertFalse(single.primary().hasErrorBars());
        assertTrue(results.get(11).params().containsKey("size"));
    }

    @Test
    void readsARealJmhRunWithGcProfiler()
    {
        final List<JmhResult> results = JmhResultReader.read(Fixtures.path(Fixtures.CAPTURED_SLAB));
        assertEquals(8, results.size());
        for (final JmhResult result : results)
        {
            assertEquals("dev.offcache.benchmarks.slab.SlotAllocationBenchmark", result.suite());
            assertEquals("thrpt", result.mode());
            assertEquals("ops/us", result.primary().unit());
            assertTrue(result.primary().hasErrorBars(), result.key());
            assertEquals("B/op", result.allocationPerOp().unit());
            assertTrue(result.params().containsKey("slotSize"));
            assertEquals("3 x 1 s", result.environment().measurement());
        }
        final JmhResult slab = results.get(4);
        assertEquals("slabAllocateFree", slab.method());
        assertEquals(3.1326, slab.primary().score(), 1e-4);
        assertEquals(72.0, slab.allocationPerOp().score(), 0.01);
        assertEquals(2, results.get(6).threads());
    }

    @Test
    void stripsTheMiddleDotOfOlderJmhSecondaryMetricNames() throws IOException
    {
        final Path file = dir.resolve("old.json");
        Files.writeString(file, "[{\"benchmark\":\"a.B.c\",\"mode\":\"avgt\",\"primaryMetric\":{\"score\":1.5," +
            "\"scoreError\":0.1,\"scoreConfidence\":[1.4,1.6],\"scoreUnit\":\"us/op\"},\"secondaryMetrics\":" +
            "{\"\u00b7gc.alloc.rate.norm\":{\"score\":24.0,\"scoreError\":\"NaN\"," +
            "\"scoreConfidence\":[\"NaN\",\"NaN\"]," +
            "\"scoreUnit\":\"B/op\"}}}]");
        final JmhResult result = JmhResultReader.read(file).get(0);
        assertEquals(24.0, result.allocationPerOp().score());
        assertEquals(Map.of(), result.params());
    }

    @Test
    void missingFileIsNamed()
    {
        final Path file = dir.resolve("nope.json");
        final ResultFileException ex = assertThrows(ResultFileException.class, () -> JmhResultReader.read(file));
        assertEquals(file + ": no such file", ex.getMessage());
    }

    @Test
    void emptyFileSaysThereAreNoResults() throws IOException
    {
        final Path file = Files.writeString(dir.resolve("empty.json"), "");
        final ResultFileException ex = assertThrows(ResultFileException.class, () -> JmhResultReader.read(file));
        assertTrue(ex.getMessage().startsWith(file + ": is empty: no JMH results"), ex.getMessage());
    }

    @Test
    void malformedJsonNamesTheLine() throws IOException
    {
        final Path file = Files.writeString(dir.resolve("bad.json"), "[\n  {\"benchmark\" : \"a.B.c\",\n  oops\n]");
        final ResultFileException ex = assertThrows(ResultFileException.class, () -> JmhResultReader.read(file));
        assertTrue(ex.getMessage().startsWith(file + ": is not valid JSON: "), ex.getMessage());
        assertTrue(ex.getMessage().contains("at line 3"), ex.getMessage());
    }

    @Test
    void jsonThatIsNotJmhResultsIsRefused() throws IOException
    {
        final Path object = Files.writeString(dir.resolve("object.json"), "{\"benchmark\":\"a.B.c\"}");
        assertTrue(assertThrows(ResultFileException.class, () -> JmhResultReader.read(object)).getMessage()
            .contains("expected a JSON array of results"));

        final Path emptyArray = Files.writeString(dir.resolve("array.json"), "[]");
        assertTrue(assertThrows(ResultFileException.class, () -> JmhResultReader.read(emptyArray)).getMessage()
            .contains("empty array"));

        final Path noPrimary = Files.writeString(dir.resolve("noprimary.json"),
            "[{\"benchmark\":\"a.B.c\",\"mode\":\"thrpt\",\"primaryMetric\":{\"score\":1.0,\"scoreUnit\":\"ops/s\"}}," +
            "{\"benchmark\":\"a.B.d\",\"mode\":\"thrpt\"}]");
        final String message = assertThrows(ResultFileException.class, () -> JmhResultReader.read(noPrimary))
            .getMessage();
        assertEquals(noPrimary + ": result #2 is not a JMH result: \"a.B.d\" has no \"primaryMetric\" object", message);

        final Path badScore = Files.writeString(dir.resolve("badscore.json"),
            "[{\"benchmark\":\"a.B.c\",\"mode\":\"thrpt\"," +
            "\"primaryMetric\":{\"score\":\"fast\",\"scoreUnit\":\"ops/s\"}}]");
        assertTrue(assertThrows(ResultFileException.class, () -> JmhResultReader.read(badScore)).getMessage()
            .contains("a.B.c primaryMetric.score is not a number: \"fast\""));
    }
}
