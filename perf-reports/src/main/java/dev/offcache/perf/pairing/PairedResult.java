package dev.offcache.perf.pairing;

import java.util.stream.Collectors;

import dev.offcache.perf.jmh.JmhResult;
import dev.offcache.perf.jmh.Metric;
import dev.offcache.perf.jmh.ScoreUnits;
import dev.offcache.perf.jmh.Separation;

/**
 * offcache's result beside one baseline's result for the same operation and parameters.
 *
 * @param ours         offcache's result.
 * @param baseline     the baseline's result.
 * @param operation    the operation both measured.
 * @param oursName     {@code offcache}, or the variant ({@code offcache-<variant>}) when ours has several.
 * @param baselineName the baseline's name.
 */
public record PairedResult(JmhResult ours, JmhResult baseline, String operation, String oursName,
    String baselineName)
{
    /**
     * The operation as shown in tables and charts: with ours' variant when it is not plain {@code offcache}.
     *
     * @return for example {@code get} or {@code fetch (offcache-aeron-ipc)}.
     */
    public String operationLabel()
    {
        return PairingConvention.OURS_IMPL.equals(oursName) ? operation : operation + " (" + oursName + ")";
    }

    /**
     * How many times better ours is than the baseline: {@code ours / baseline} for throughput,
     * {@code baseline / ours} for time per operation, so above 1 always means offcache wins. The baseline is first
     * converted into ours' unit.
     *
     * @return the speedup, or NaN when the units cannot be compared or a score is zero.
     */
    public double speedup()
    {
        if (!ScoreUnits.compatible(baseline.primary().unit(), ours.primary().unit()))
        {
            return Double.NaN;
        }
        final double oursScore = ours.primary().score();
        final double baselineScore = baseline.primary().in(ours.primary().unit()).score();
        final double speedup = ScoreUnits.higherIsBetter(ours.primary().unit()) ?
            oursScore / baselineScore : baselineScore / oursScore;
        return Double.isFinite(speedup) ? speedup : Double.NaN;
    }

    /**
     * Whether one side is better beyond the error bars ({@link Separation#FIRST_BETTER} means ours).
     *
     * @return the separation of ours (first) and the baseline (second).
     */
    public Separation separation()
    {
        return Separation.of(ours.primary(), baseline.primary());
    }

    /**
     * The baseline's primary metric in ours' unit (as shown in the tables).
     *
     * @return the metric, unconverted when the units are not compatible.
     */
    public Metric baselineInOursUnit()
    {
        final Metric metric = baseline.primary();
        return ScoreUnits.compatible(metric.unit(), ours.primary().unit()) ? metric.in(ours.primary().unit()) : metric;
    }

    /**
     * The parameters both share (everything but {@code impl}).
     *
     * @return for example {@code size=4096}, or empty.
     */
    public String sharedParamsLabel()
    {
        return ours.params().entrySet().stream()
            .filter(e -> !PairingConvention.IMPL_PARAM.equals(e.getKey()))
            .map(e -> e.getKey() + "=" + e.getValue())
            .collect(Collectors.joining(", "));
    }
}
