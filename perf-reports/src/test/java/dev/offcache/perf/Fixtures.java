package dev.offcache.perf;

import java.net.URISyntaxException;
import java.nio.file.Path;

/**
 * The recorded JMH result files under {@code src/test/resources/jmh}.
 */
public final class Fixtures
{
    /** Realistic suites: impl-parameter pairs, method-name pairs, sample mode, no baseline, single iteration. */
    public static final String REPORT = "report-fixture.json";
    /**
     * Captured, not written: {@code java -jar benchmarks.jar -f 1 -wi 1 -w 1s -i 3 -r 1s -prof gc -rf json 'slab\.'}
     * (JMH 1.37, the first slab suite, on the shared 2-core build machine under load): the real format.
     */
    public static final String CAPTURED_SLAB = "captured-slab-quick.json";
    /** Baseline result set for the comparison tests. */
    public static final String COMPARE_BASELINE = "compare-baseline.json";
    /** Candidate result set for the comparison tests: one regression, one allocation regression. */
    public static final String COMPARE_CANDIDATE = "compare-candidate.json";

    /**
     * Captured from the real script under heavy load with 1 s runs ({@code FILE_MB=32 RAM_MB=16 DURATION=1s
     * CONNECTIONS=4 WRK_THREADS=1 IO_THREADS=1 sh cache-server/bench/l2-vs-nginx.sh}): its output format, not a
     * measurement.
     */
    public static final String NGINX_CAPTURED = "l2-vs-nginx-captured.json";
    /** Captured from the real {@code HitRatioSimulation} on the cache2k traces (counts: independent of load). */
    public static final String HIT_RATIO_CAPTURED = "hit-ratio-simulation-captured.json";
    /** Written by hand, invented numbers: a Parquet scan with an interval, repeats, a zero and an unpaired value. */
    public static final String PARQUET = "parquet-scan.json";

    private Fixtures()
    {
    }

    /**
     * The path of a fixture.
     *
     * @param name file name.
     * @return its path.
     */
    public static Path path(final String name)
    {
        return resource("/jmh/" + name);
    }

    /**
     * The path of a measurement-file fixture ({@code src/test/resources/measurements}).
     *
     * @param name file name.
     * @return its path.
     */
    public static Path measurements(final String name)
    {
        return resource("/measurements/" + name);
    }

    private static Path resource(final String name)
    {
        try
        {
            return Path.of(Fixtures.class.getResource(name).toURI());
        }
        catch (final URISyntaxException ex)
        {
            throw new IllegalStateException(ex);
        }
    }
}
