package dev.offcache.perf.measure;

import java.util.Map;

import dev.offcache.perf.jmh.Metric;
import dev.offcache.perf.pairing.Comparison;

/**
 * offcache's measurement beside one baseline's, on the same case and metric of a measurement file.
 *
 * @param ours     offcache's measurement.
 * @param baseline the baseline's.
 */
public record MeasuredPair(Measurement ours, Measurement baseline) implements Comparison
{
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
