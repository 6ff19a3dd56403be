package dev.offcache.perf.compare;

import dev.offcache.perf.measure.Measurement;

/**
 * One measurement (suite, case, metric, implementation) of a measurement file in a baseline and a candidate report.
 *
 * @param suite     the suite.
 * @param key       the measurement's key in its suite ({@link Measurement#key()}).
 * @param baseline  the value before, null when added.
 * @param candidate the value after, null when removed.
 * @param verdict   the judgement.
 */
public record MeasurementChange(String suite, String key, Measurement baseline, Measurement candidate,
    ChangeVerdict verdict)
{
    /**
     * The relative change of the value, in percent (the value's sign: whether that is better depends on the
     * measurement's direction).
     *
     * @return the change, or NaN when a side is missing, the units differ or the baseline is zero.
     */
    public double changePercent()
    {
        if (baseline == null || candidate == null || !baseline.unit().equals(candidate.unit()))
        {
            return Double.NaN;
        }
        final double base = baseline.value().score();
        return base == 0 ? Double.NaN : (candidate.value().score() - base) / base * 100.0;
    }

    /**
     * Whether this change needs attention.
     *
     * @return true for a regression.
     */
    public boolean flagged()
    {
        return verdict == ChangeVerdict.REGRESSION;
    }
}
