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
        try
        {
            return Path.of(Fixtures.class.getResource("/jmh/" + name).toURI());
        }
        catch (final URISyntaxException ex)
        {
            throw new IllegalStateException(ex);
        }
    }
}
