package dev.offcache.perf.pairing;

import java.util.Map;

import dev.offcache.perf.jmh.Metric;
import dev.offcache.perf.jmh.ScoreUnits;
import dev.offcache.perf.jmh.Separation;

/**
 * offcache against one baseline on one measured quantity, whatever measured it (a JMH pair, or a pair from a
 * measurement file): what the summary, the speedup chart and the score charts need.
 */
public interface Comparison
{
    /**
     * What was compared, without the parameters: the operation (and ours' variant), or a measurement's case and
     * metric.
     *
     * @return for example {@code fetch (offcache-aeron-ipc)} or {@code RAM tier, 64 KiB · throughput}.
     */
    String subject();

    /**
     * The parameters both sides share.
     *
     * @return name to value, in order; empty when there are none.
     */
    Map<String, String> parameters();

    /**
     * ours' name: {@code offcache} or {@code offcache-<variant>}.
     *
     * @return the name.
     */
    String oursName();

    /**
     * The baseline's name.
     *
     * @return for example {@code caffeine}.
     */
    String baselineName();

    /**
     * ours' score.
     *
     * @return the metric.
     */
    Metric oursMetric();

    /**
     * The baseline's score, in ours' unit when the units convert.
     *
     * @return the metric.
     */
    Metric baselineMetric();

    /**
     * Which way is better.
     *
     * @return true when a higher score is better.
     */
    boolean higherIsBetter();

    /**
     * The subject and the parameters in one line.
     *
     * @return for example {@code allocateFree slotSize=4096}.
     */
    default String label()
    {
        final StringBuilder label = new StringBuilder(subject());
        parameters().forEach((k, v) -> label.append(label.length() == subject().length() ? " " : ", ")
            .append(k).append('=').append(v));
        return label.toString();
    }

    /**
     * How many times better ours is: {@code ours / baseline} when higher is better, {@code baseline / ours} when
     * lower is better, so above 1 always means offcache wins.
     *
     * @return the speedup, or NaN when the units differ or a score is zero.
     */
    default double speedup()
    {
        final Metric ours = oursMetric();
        final Metric baseline = baselineMetric();
        if (!ScoreUnits.compatible(baseline.unit(), ours.unit()))
        {
            return Double.NaN;
        }
        final double speedup = higherIsBetter() ? ours.score() / baseline.score() : baseline.score() / ours.score();
        return Double.isFinite(speedup) && speedup > 0 ? speedup : Double.NaN;
    }

    /**
     * The range of speedups that both sides' intervals allow: from ours' worst end against the baseline's best end
     * to ours' best end against the baseline's worst. It lies wholly above 1 exactly when the verdict is "offcache
     * better" and wholly below 1 exactly when it is "baseline better".
     *
     * @return {@code {low, high}}; NaN when a side has no interval; {@code low} 0 or {@code high} infinite when an
     *         interval reaches zero (open-ended).
     */
    default double[] speedupInterval()
    {
        final Metric ours = oursMetric();
        final Metric baseline = baselineMetric();
        if (Double.isNaN(speedup()) || !ours.hasErrorBars() || !baseline.hasErrorBars())
        {
            return new double[] {Double.NaN, Double.NaN};
        }
        final Metric numeratorSide = higherIsBetter() ? ours : baseline;
        final Metric denominatorSide = higherIsBetter() ? baseline : ours;
        final double low = numeratorSide.lower() <= 0 ? 0 : numeratorSide.lower() / denominatorSide.upper();
        final double high = denominatorSide.lower() <= 0 ? Double.POSITIVE_INFINITY :
            numeratorSide.upper() / denominatorSide.lower();
        return new double[] {low, high};
    }

    /**
     * Whether one side is better beyond the intervals ({@link Separation#FIRST_BETTER} means ours).
     *
     * @return the separation of ours (first) and the baseline (second).
     */
    default Separation separation()
    {
        return Separation.of(oursMetric(), baselineMetric(), higherIsBetter());
    }
}
