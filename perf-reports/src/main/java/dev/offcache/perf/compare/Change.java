package dev.offcache.perf.compare;

import dev.offcache.perf.jmh.JmhResult;
import dev.offcache.perf.jmh.Metric;
import dev.offcache.perf.jmh.ScoreUnits;

/**
 * One benchmark (benchmark, mode, threads and parameters) in a baseline and a candidate result set.
 *
 * @param key               the benchmark's identity ({@link JmhResult#key()}).
 * @param baseline          the baseline's result, null when added.
 * @param candidate         the candidate's result, null when removed.
 * @param verdict           the judgement of the primary score.
 * @param allocationRegression whether bytes allocated per operation grew beyond the error bars (and by at least
 *                          {@link ResultComparison#ALLOCATION_SLACK_BYTES}); false when either side lacks
 *                          {@code -prof gc}.
 */
public record Change(String key, JmhResult baseline, JmhResult candidate, ChangeVerdict verdict,
    boolean allocationRegression)
{
    /**
     * The candidate's primary metric in the baseline's unit.
     *
     * @return the metric, or null when there is no candidate.
     */
    public Metric candidateInBaselineUnit()
    {
        if (candidate == null)
        {
            return null;
        }
        if (baseline == null || !ScoreUnits.compatible(candidate.primary().unit(), baseline.primary().unit()))
        {
            return candidate.primary();
        }
        return candidate.primary().in(baseline.primary().unit());
    }

    /**
     * The relative change of the score, candidate against baseline, in percent (the sign is the score's, so for
     * throughput positive is better, for time per operation negative is better).
     *
     * @return the change, or NaN when one side is missing or the units differ.
     */
    public double changePercent()
    {
        if (baseline == null || candidate == null ||
            !ScoreUnits.compatible(candidate.primary().unit(), baseline.primary().unit()))
        {
            return Double.NaN;
        }
        final double base = baseline.primary().score();
        return base == 0 ? Double.NaN : (candidateInBaselineUnit().score() - base) / base * 100.0;
    }

    /**
     * Whether this change needs attention: a score regression or an allocation regression.
     *
     * @return true when flagged.
     */
    public boolean flagged()
    {
        return verdict == ChangeVerdict.REGRESSION || allocationRegression;
    }
}
