package dev.offcache.perf.measure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import dev.offcache.perf.Fixtures;
import dev.offcache.perf.jmh.ResultFileException;
import dev.offcache.perf.jmh.Separation;

class MeasurementFileReaderTest
{
    private static final String HEAD = "{\"format\": \"offcache-measurements/1\", \"suite\": \"s.S\", \"command\": " +
        "\"sh x.sh\", \"measurements\": [";
    private static final String GOOD = "{\"case\": \"c\", \"metric\": \"m\", \"unit\": \"ms\", \"better\": " +
        "\"lower\", \"impl\": \"offcache\", \"value\": 1}";

    @TempDir
    Path dir;

    @Test
    void theL2VsNginxScriptsOutputParsesAndPairsEveryCaseAndMetric()
    {
        final MeasurementFile file = MeasurementFileReader.read(Fixtures.measurements(Fixtures.NGINX_CAPTURED));
        assertEquals("cache-server.L2VsNginx", file.suite());
        assertEquals("FILE_MB=32 RAM_MB=16 DURATION=1s CONNECTIONS=4 WRK_THREADS=1 IO_THREADS=1 sh " +
            "cache-server/bench/l2-vs-nginx.sh", file.command());
        // 4 cases × (throughput, p50, p99) × 2 servers + peak RSS × 2.
        assertEquals(26, file.measurements().size());
        final MeasurementSuite suite = MeasurementSuite.pair(file);
        assertEquals(13, suite.pairs().size());
        assertEquals(List.of(), suite.unpaired());
        final MeasuredPair ram64 = suite.pairs().get(0);
        assertEquals("RAM tier 64 KiB · throughput", ram64.subject());
        assertEquals("nginx", ram64.baselineName());
        assertTrue(ram64.higherIsBetter());
        // ABBA: two runs per server; the value is their mean, the interval their range.
        final Measurement ours = ram64.ours();
        assertEquals(2, ours.samples());
        assertEquals((ours.value().lower() + ours.value().upper()) / 2, ours.value().score(), 1e-6);
        assertEquals("req/s", ours.unit());
        final MeasuredPair p99 = suite.pairs().get(2);
        assertEquals("RAM tier 64 KiB · p99 latency", p99.subject());
        assertEquals("ms", p99.ours().unit());
        assertEquals(false, p99.higherIsBetter());
        final MeasuredPair rss = suite.pairs().get(12);
        assertEquals("whole run · peak RSS", rss.subject());
        assertEquals(Separation.NO_ERROR_BARS, rss.separation(), "one RSS value per server: no verdict");
    }

    @Test
    void theHitRatioSimulationsOutputParsesWithExactCountsAndCaffeinesRuns()
    {
        final MeasurementFile file = MeasurementFileReader.read(Fixtures.measurements(Fixtures.HIT_RATIO_CAPTURED));
        assertEquals("l1.HitRatioSimulation", file.suite());
        // 20 cases (4 traces × 4 sizes + 4 synthetic sizes) × offcache, lru, caffeine.
        assertEquals(60, file.measurements().size());
        final MeasurementSuite suite = MeasurementSuite.pair(file);
        assertEquals(40, suite.pairs().size());
        final MeasuredPair vsLru = suite.pairs().get(0);
        assertEquals("web07, 500 entries · miss ratio", vsLru.subject());
        assertEquals("lru", vsLru.baselineName());
        // 100 - 49.22% hit ratio = 50.78% misses against LRU's 54.42%: exact counts, so the difference decides.
        assertEquals(50.7804, vsLru.ours().value().score(), 1e-9);
        assertEquals(50.7804, vsLru.ours().value().lower(), 1e-9);
        assertEquals(54.4221 / 50.7804, vsLru.speedup(), 1e-9);
        assertEquals(Separation.FIRST_BETTER, vsLru.separation());
        final MeasuredPair vsCaffeine = suite.pairs().get(1);
        assertEquals("caffeine", vsCaffeine.baselineName());
        assertEquals(3, vsCaffeine.baseline().samples());
    }

    @Test
    void valueWithAnIntervalRepeatsAndUnpairedMeasurementsAreRead()
    {
        final MeasurementFile file = MeasurementFileReader.read(Fixtures.measurements(Fixtures.PARQUET));
        assertEquals("0.10 0.20 0.30", file.loadAtStart());
        assertEquals("0.40 0.50 0.60", file.loadAtEnd());
        assertEquals(List.of("Invented for the tests; not a measurement."), file.notes());
        final MeasurementSuite suite = MeasurementSuite.pair(file);
        // cold: offcache vs alluxio and vs plain-fs; warm: time and origin GETs vs alluxio.
        assertEquals(List.of("cold scan · scan time vs alluxio-local-cache", "cold scan · scan time vs plain-fs",
            "warm scan · scan time vs alluxio-local-cache", "warm scan · origin GETs vs alluxio-local-cache"),
            suite.pairs().stream().map(p -> p.label() + " vs " + p.baselineName()).toList());
        assertEquals(1000 / 900.0, suite.pairs().get(0).speedup(), 1e-12);
        assertEquals(Separation.OVERLAP, suite.pairs().get(0).separation(), "[850, 950] overlaps [900, 1100]");
        assertEquals(Separation.FIRST_BETTER, suite.pairs().get(1).separation(), "950 < 1800");
        assertEquals(2000, suite.pairs().get(1).baseline().value().score(), 1e-12);
        assertEquals(Double.NaN, suite.pairs().get(3).speedup(), "no ratio against zero origin GETs");
        assertEquals(List.of("plain-fs-no-latency"), suite.unpaired().stream().map(Measurement::impl).toList());
        assertNull(MeasurementFileReader.read(write("{\"format\": \"offcache-measurements/1\", \"suite\": \"a\", " +
            "\"command\": \"c\", \"measurements\": [" + GOOD + "]}")).title());
    }

    static Stream<Arguments> malformed()
    {
        return Stream.of(
            Arguments.of("", "is empty: no measurements"),
            Arguments.of("[1, 2]", "is not a measurement file: expected a JSON object with \"format\": " +
                "\"offcache-measurements/1\""),
            Arguments.of("{\"suite\": \"a\"}", "is not a measurement file: \"format\" must be " +
                "\"offcache-measurements/1\" (missing)"),
            Arguments.of("{\"format\": \"offcache-measurements/2\"}", "is not a measurement file: \"format\" must " +
                "be \"offcache-measurements/1\", not \"offcache-measurements/2\""),
            Arguments.of("{\"format\": \"offcache-measurements/1\", \"sutie\": \"a\"}", "unknown field \"sutie\" " +
                "(known: command, format, load, machine, measurements, notes, startedAt, suite, title)"),
            Arguments.of("{\"format\": \"offcache-measurements/1\", \"suite\": \"a b\", \"command\": \"c\"}",
                "\"suite\" must be letters, digits, '.', '_' or '-' (it names charts), not \"a b\""),
            Arguments.of("{\"format\": \"offcache-measurements/1\", \"suite\": \"a\"}",
                "\"command\" is missing or not a non-empty string"),
            Arguments.of(HEAD + "]}", "\"measurements\" must be a non-empty array"),
            Arguments.of(HEAD + "{\"case\": \"c\", \"metric\": \"m\", \"impl\": \"nginx\", \"unit\": \"ms\", " +
                "\"better\": \"up\", \"value\": 1}]}", "measurements[0] (\"c\" / m / nginx): \"better\" must be " +
                "\"higher\" or \"lower\", not \"up\""),
            Arguments.of(HEAD + "{\"case\": \"c\", \"metric\": \"m\", \"impl\": \"nginx\", \"better\": \"lower\", " +
                "\"value\": 1}]}", "measurements[0] (\"c\" / m / nginx): \"unit\" is missing or not a non-empty " +
                "string"),
            Arguments.of(HEAD + "{\"case\": \"c\", \"metric\": \"m\", \"impl\": \"x\", \"unit\": \"ms\", " +
                "\"better\": \"lower\", \"vaule\": 1}]}", "measurements[0] (\"c\" / m / x): unknown field \"vaule\" " +
                "(known: better, case, high, impl, low, metric, unit, value, values)"),
            Arguments.of(HEAD + "{\"case\": \"c\", \"metric\": \"m\", \"impl\": \"x\", \"unit\": \"ms\", " +
                "\"better\": \"lower\", \"value\": 1, \"values\": [1]}]}", "measurements[0] (\"c\" / m / x): give " +
                "either \"value\" (one number, optionally with \"low\" and \"high\") or \"values\" (the repeats)"),
            Arguments.of(HEAD + "{\"case\": \"c\", \"metric\": \"m\", \"impl\": \"x\", \"unit\": \"ms\", " +
                "\"better\": \"lower\", \"value\": \"1.5\"}]}", "measurements[0] (\"c\" / m / x): \"value\" must " +
                "hold finite JSON numbers, not \"1.5\""),
            Arguments.of(HEAD + "{\"case\": \"c\", \"metric\": \"m\", \"impl\": \"x\", \"unit\": \"ms\", " +
                "\"better\": \"lower\", \"value\": 5, \"low\": 6, \"high\": 7}]}", "measurements[0] (\"c\" / m / x): " +
                "needs low <= value <= high, not 6.0 <= 5.0 <= 7.0"),
            Arguments.of(HEAD + "{\"case\": \"c\", \"metric\": \"m\", \"impl\": \"x\", \"unit\": \"ms\", " +
                "\"better\": \"lower\", \"value\": 5, \"low\": 4}]}", "measurements[0] (\"c\" / m / x): give both " +
                "\"low\" and \"high\", or neither"),
            Arguments.of(HEAD + "{\"case\": \"c\", \"metric\": \"m\", \"impl\": \"x\", \"unit\": \"ms\", " +
                "\"better\": \"lower\", \"values\": []}]}", "measurements[0] (\"c\" / m / x): \"values\" must be a " +
                "non-empty array of numbers"),
            Arguments.of(HEAD + GOOD + ", " + GOOD + "]}", "measurements[1] repeats measurements[0] (\"c\" / m / " +
                "offcache): give repeats as \"values\": [...] in one entry"),
            Arguments.of(HEAD + GOOD + ", " + GOOD.replace("offcache", "nginx").replace("ms", "s") + "]}",
                "measurements[1] (\"c\" / m / nginx) has unit \"s\", better \"lower\" but \"offcache\" on the same " +
                "case and metric has \"ms\", \"lower\": the implementations of one case and metric must be " +
                "measured alike"),
            Arguments.of("{\"format\": \"offcache-measurements/1\", \"suite\": \"a\", \"command\": \"c\", " +
                "\"load\": \"high\"}", "\"load\" must be an object {\"start\": \"1m 5m 15m\", \"end\": " +
                "\"1m 5m 15m\"}"));
    }

    @ParameterizedTest
    @MethodSource("malformed")
    void malformedFilesAreRejectedNamingTheFileTheEntryAndTheProblem(final String json, final String problem)
    {
        final Path file = write(json);
        final ResultFileException error = assertThrows(ResultFileException.class,
            () -> MeasurementFileReader.read(file));
        assertEquals(file + ": " + problem, error.getMessage());
    }

    @Test
    void invalidJsonAndMissingFilesSayWhere()
    {
        final Path file = write("{\"format\": ");
        final ResultFileException bad = assertThrows(ResultFileException.class,
            () -> MeasurementFileReader.read(file));
        assertTrue(bad.getMessage().startsWith(file + ": is not valid JSON: "), bad.getMessage());
        assertTrue(bad.getMessage().contains(" at line 1, column "), bad.getMessage());
        final Path missing = dir.resolve("missing.json");
        assertEquals(missing + ": no such file", assertThrows(ResultFileException.class,
            () -> MeasurementFileReader.read(missing)).getMessage());
    }

    private Path write(final String json)
    {
        try
        {
            return Files.writeString(Files.createTempFile(dir, "m", ".json"), json);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }
}
