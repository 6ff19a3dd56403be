package dev.offcache.perf.jmh;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One JMH metric of a result (the primary score or a secondary one such as {@code gc.alloc.rate.norm}): its score,
 * JMH's 99.9% error and confidence interval, the unit and, when JMH recorded them, the score percentiles.
 *
 * <p>{@code error}, {@code lower} and {@code upper} are {@code NaN} when JMH could not estimate them (a single
 * measurement iteration, as in the smoke run).
 *
 * @param score       the score, in {@code unit}.
 * @param error       JMH's {@code scoreError} (half-width of the confidence interval), or NaN.
 * @param lower       lower bound of {@code scoreConfidence}, or NaN.
 * @param upper       upper bound of {@code scoreConfidence}, or NaN.
 * @param unit        JMH's {@code scoreUnit}, for example {@code ops/s}, {@code us/op} or {@code B/op}.
 * @param percentiles {@code scorePercentiles} keyed by JMH's labels ({@code "50.0"}, {@code "99.0"}), maybe empty.
 */
public record Metric(double score, double error, double lower, double upper, String unit,
    Map<String, Double> percentiles)
{
    /**
     * Validates and freezes the metric.
     */
    public Metric
    {
        if (unit == null || unit.isBlank())
        {
            throw new IllegalArgumentException("metric unit must not be blank");
        }
        percentiles = Map.copyOf(percentiles);
    }

    /**
     * A metric without percentiles.
     *
     * @param score score.
     * @param error error (half-width), or NaN.
     * @param unit  unit.
     * @return the metric with the interval {@code score ± error}.
     */
    public static Metric of(final double score, final double error, final String unit)
    {
        return new Metric(score, error, score - error, score + error, unit, Map.of());
    }

    /**
     * Whether JMH estimated an error for this metric (it cannot from a single iteration).
     *
     * @return true when the confidence interval is known.
     */
    public boolean hasErrorBars()
    {
        return Double.isFinite(error) && Double.isFinite(lower) && Double.isFinite(upper);
    }

    /**
     * A percentile of the score distribution, when JMH recorded it (sample mode has the real distribution).
     *
     * @param label JMH's label, for example {@code "99.0"}.
     * @return the value or NaN.
     */
    public double percentile(final String label)
    {
        final Double value = percentiles.get(label);
        return value == null ? Double.NaN : value;
    }

    /**
     * This metric expressed in another, compatible unit.
     *
     * @param targetUnit the unit wanted.
     * @return the converted metric.
     * @throws IllegalArgumentException when the units are not compatible.
     */
    public Metric in(final String targetUnit)
    {
        if (unit.equals(targetUnit))
        {
            return this;
        }
        final double factor = ScoreUnits.conversionFactor(unit, targetUnit);
        final Map<String, Double> converted = new LinkedHashMap<>();
        percentiles.forEach((k, v) -> converted.put(k, v * factor));
        return new Metric(score * factor, error * factor, lower * factor, upper * factor, targetUnit, converted);
    }
}
