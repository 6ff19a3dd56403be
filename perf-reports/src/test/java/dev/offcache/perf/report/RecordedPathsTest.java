package dev.offcache.perf.report;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The committed report's recorded commands (its run wrote to /tmp/perf-full with measurement files in
 * /tmp/perf-measurements) shown from a report directory in the repository: the output directory and the measurement
 * files that have a copy there become repository-relative paths; a file without a copy and any other path stay.
 */
class RecordedPathsTest
{
    private static final String RERUN = "perf-reports/bin/offcache-perf run --profile full --measurements " +
        "/tmp/perf-measurements/l2-vs-nginx.json --measurements /tmp/perf-measurements/other.json --out /tmp/perf-full";

    @Test
    void theRunsOutputAndMeasurementCopiesBecomeRelative() throws Exception
    {
        final Path dir = Path.of("target/recorded-paths-test");
        Files.createDirectories(dir.resolve("measurements"));
        Files.writeString(dir.resolve("measurements/l2-vs-nginx.json"), "{}");
        final RecordedPaths paths = new RecordedPaths(RERUN, dir);
        final String shown = "perf-reports/target/recorded-paths-test";
        assertEquals("perf-reports/bin/offcache-perf run --profile full --measurements " + shown +
            "/measurements/l2-vs-nginx.json --measurements /tmp/perf-measurements/other.json --out " + shown,
            paths.relocate(RERUN));
        assertEquals("java -jar jmh-benchmarks/target/benchmarks.jar -f 3 -rf json -rff " + shown + "/jmh-result.json",
            paths.relocate("java -jar jmh-benchmarks/target/benchmarks.jar -f 3 -rf json -rff " +
                "/tmp/perf-full/jmh-result.json"));
        assertEquals("java -cp jmh-benchmarks/target/benchmarks.jar X \"$TRACE_DIR\" /work/shared/traces/cache2k " +
            shown + "/measurements/l2-vs-nginx.json", paths.relocate("java -cp jmh-benchmarks/target/benchmarks.jar " +
                "X \"$TRACE_DIR\" /work/shared/traces/cache2k /tmp/x/l2-vs-nginx.json"));
        assertEquals("RESULTS=" + shown + "/measurements/l2-vs-nginx.json sh cache-server/bench/l2-vs-nginx.sh",
            paths.relocate("RESULTS=/tmp/perf-measurements/l2-vs-nginx.json sh cache-server/bench/l2-vs-nginx.sh"));
        assertNull(paths.relocate(null));
        assertEquals("a --out /tmp/perf-full", new RecordedPaths(null, dir).relocate("a --out /tmp/perf-full"),
            "without a recorded run, its output directory is unknown and left as it is");
    }
}
