package dev.offcache.perf.measure;

import java.util.Map;

import dev.offcache.perf.jmh.Metric;
import dev.offcache.perf.jmh.Separation;
import dev.offcache.perf.pairing.Comparison;

/**
 * offcache's measurement beside one baseline's, on the same case and metric of a measurement file.
 *
 * @param ours     offcache's measurement.
 * @param baseline the baseline's.
 */
public record MeasuredPair(Measurement ours, Measurement baseline) implements Comparison
{
    /**
     * The fewest repeats whose range is judged as an interval: the minimum and maximum of two runs say nothing about
     * the spread (one round of an ABBA load test is two runs per side), so such a pair gets no verdict.
     */
    public static final int MIN_REPEATS = 3;

    /**
     * As {@link Comparison#separation()}, except that a side measured by 2 repeats has no error bars.
     *
     * @return the separation, or {@link Separation#NO_ERROR_BARS} when a side has too few repeats.
     */
    @Override
    public Separation separation()
    {
        if (tooFewRepeats(ours) || tooFewRepeats(baseline))
        {
            return Separation.NO_ERROR_BARS;
        }
        return Comparison.super.separation();
    }

    private static boolean tooFewRepeats(final Measurement measurement)
    {
        return measurement.samples() > 1 && measurement.samples() < MIN_REPEATS;
    }

    @Override
    public String subject()
    {
        return ours.caseName() + " · " + ours.metric() + (MeasurementSuite.OURS.equals(ours.impl()) ? "" :
            " (" + ours.impl() + ")");
    }

    @Override
    public Map<String, String> parameters()
    {
        return Map.of();
    }

    @Override
    public String oursName()
    {
        return ours.impl();
    }

    @Override
    public String baselineName()
    {
        return baseline.impl();
    }

    @Override
    public Metric oursMetric()
    {
        return ours.value();
    }

    @Override
    public Metric baselineMetric()
    {
        return baseline.value();
    }

    @Override
    public boolean higherIsBetter()
    {
        return ours.higherIsBetter();
    }
}
