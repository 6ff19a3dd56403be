package dev.offcache.perf.pairing;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

import dev.offcache.perf.jmh.JmhResult;
import dev.offcache.perf.jmh.Metric;
import dev.offcache.perf.jmh.ScoreUnits;

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
    String baselineName) implements Comparison
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

    @Override
    public String subject()
    {
        return operationLabel();
    }

    @Override
    public Map<String, String> parameters()
    {
        final Map<String, String> shared = new LinkedHashMap<>();
        ours.params().forEach((k, v) ->
        {
            if (!PairingConvention.IMPL_PARAM.equals(k))
            {
                shared.put(k, v);
            }
        });
        return shared;
    }

    @Override
    public Metric oursMetric()
    {
        return ours.primary();
    }

    /**
     * The baseline's primary metric in ours' unit (as shown in the tables).
     *
     * @return the metric, unconverted when the units are not compatible.
     */
    @Override
    public Metric baselineMetric()
    {
        final Metric metric = baseline.primary();
        return ScoreUnits.compatible(metric.unit(), ours.primary().unit()) ? metric.in(ours.primary().unit()) : metric;
    }

    /**
     * Which way is better, from ours' unit: throughput ({@code ops/<time>}) is higher-is-better, time per operation
     * lower-is-better.
     *
     * @return true for throughput.
     */
    @Override
    public boolean higherIsBetter()
    {
        return ScoreUnits.higherIsBetter(ours.primary().unit());
    }

    /**
     * The parameters both share (everything but {@code impl}).
     *
     * @return for example {@code size=4096}, or empty.
     */
    public String sharedParamsLabel()
    {
        return parameters().entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
            .collect(Collectors.joining(", "));
    }
}
