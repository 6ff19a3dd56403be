package dev.offcache.perf;

import java.util.Map;

import dev.offcache.perf.jmh.Metric;
import dev.offcache.perf.pairing.Comparison;

/**
 * A pair made up for a test: ours' and the baseline's score with a 99.9% error each.
 */
public record TestComparison(String subject, Map<String, String> parameters, String oursName, String baselineName,
    Metric oursMetric, Metric baselineMetric, boolean higherIsBetter) implements Comparison
{
    /**
     * A throughput pair (ops/s, higher is better).
     *
     * @param subject       the label.
     * @param baselineName  the baseline's name.
     * @param ours          ours' score.
     * @param oursError     its error (NaN for none).
     * @param baseline      the baseline's score.
     * @param baselineError its error.
     * @return the pair.
     */
    public static TestComparison throughput(final String subject, final String baselineName, final double ours,
        final double oursError, final double baseline, final double baselineError)
    {
        return new TestComparison(subject, Map.of(), "offcache", baselineName, Metric.of(ours, oursError, "ops/s"),
            Metric.of(baseline, baselineError, "ops/s"), true);
    }
}
