package dev.offcache.perf.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.offcache.perf.jmh.JmhResult;
import dev.offcache.perf.jmh.Metric;
import dev.offcache.perf.pairing.PairedResult;
import dev.offcache.perf.pairing.SuiteResults;

/**
 * What an engine-level benchmark cost at its origin, beside its time: the exact event counters it reports as JMH
 * auxiliary counters (secondary metrics in unit {@code #}, e.g. {@code ParquetScanBenchmark}'s {@code originGets},
 * {@code originKib}, {@code metadataCalls}), shown per operation when the benchmark also counts its operations in a
 * counter named {@code scans} or {@code ops} ({@link #OPERATIONS}; JMH sums event counters over the iterations, so
 * only the ratio means anything), as totals over the measurement iterations otherwise (a single-shot benchmark).
 * The counts do not depend on the machine's load, unlike the times next to them.
 *
 * @param counters the counters' names, in the order of the results (without the operation counter).
 * @param rows     one per distinct result that has counters: offcache's and each baseline's.
 */
public record OriginTraffic(List<String> counters, List<Row> rows)
{
    /** The names of a counter with the number of operations the others are divided by. */
    public static final List<String> OPERATIONS = List.of("scans", "ops");

    /**
     * One benchmark result's counts.
     *
     * @param impl       offcache or the baseline's name.
     * @param params     the parameters it shares with its pair.
     * @param time       its primary score.
     * @param operationName the counter that counted the operations ({@code scans}, {@code ops}), or null.
     * @param operations how many operations were counted (the divisor), or 0 when the benchmark counts none.
     * @param perOp      each counter per operation (or its total when {@code operations} is 0), by name.
     */
    public record Row(String impl, String params, Metric time, String operationName, long operations,
        Map<String, Double> perOp)
    {
    }

    /**
     * The suite's traffic table, or null when none of its results carries event counters.
     *
     * @param suite the paired suite.
     * @return the table or null.
     */
    public static OriginTraffic of(final SuiteResults suite)
    {
        final Set<String> names = new LinkedHashSet<>();
        final List<Row> rows = new ArrayList<>();
        final Set<String> seen = new LinkedHashSet<>();
        for (final PairedResult pair : suite.pairs())
        {
            add(pair.ours(), pair.oursName(), pair.sharedParamsLabel(), names, rows, seen);
            add(pair.baseline(), pair.baselineName(), pair.sharedParamsLabel(), names, rows, seen);
        }
        for (final JmhResult result : suite.standalone())
        {
            add(result, result.method(), result.paramsLabel(), names, rows, seen);
        }
        return rows.isEmpty() ? null : new OriginTraffic(List.copyOf(names), List.copyOf(rows));
    }

    private static void add(final JmhResult result, final String impl, final String params, final Set<String> names,
        final List<Row> rows, final Set<String> seen)
    {
        final Map<String, Metric> counters = new LinkedHashMap<>();
        result.secondary().forEach((name, metric) ->
        {
            if (isEventCounter(name, metric))
            {
                counters.put(name, metric);
            }
        });
        if (counters.isEmpty() || !seen.add(result.key()))
        {
            return;
        }
        String operationName = null;
        Metric operations = null;
        for (final String name : OPERATIONS)
        {
            if (operations == null && counters.containsKey(name))
            {
                operationName = name;
                operations = counters.remove(name);
            }
        }
        final long count = operations == null ? 0 : Math.round(operations.score());
        final Map<String, Double> perOp = new LinkedHashMap<>();
        counters.forEach((name, metric) ->
        {
            names.add(name);
            perOp.put(name, count > 0 ? metric.score() / count : metric.score());
        });
        rows.add(new Row(impl, params, result.primary(), operationName, count, perOp));
    }

    /** An auxiliary event counter: unit {@code #}, not one of a profiler's ({@code gc.*} and the like). */
    static boolean isEventCounter(final String name, final Metric metric)
    {
        return "#".equals(metric.unit()) && !name.contains(".");
    }

    /**
     * Appends the table in Markdown.
     *
     * @param md where to.
     */
    public void appendTo(final StringBuilder md)
    {
        final String per = rows.get(0).operationName();
        final boolean perOperation = rows.stream().allMatch(r -> r.operations() > 0 && r.operationName().equals(per));
        md.append("### Origin traffic ")
            .append(perOperation ? "per " + ("ops".equals(per) ? "operation" : per.replaceAll("s$", "")) :
                "(totals over the measurement iterations)")
            .append(", beside the time\n\n");
        md.append("Exact counts from the benchmark's own counters (JMH auxiliary counters): they do not depend on " +
            "the " +
            "machine's load, the times do.\n\n");
        md.append("| impl | params | time | ±");
        counters.forEach(name -> md.append(" | ").append(name));
        md.append(perOperation ? " | " + per + " counted |\n|---|---|---:|---:" : " |\n|---|---|---:|---:");
        counters.forEach(name -> md.append("|---:"));
        md.append(perOperation ? "|---:|\n" : "|\n");
        for (final Row row : rows)
        {
            md.append("| ").append(Formats.cell(row.impl()))
                .append(" | ").append(Formats.cell(row.params()))
                .append(" | ").append(Formats.number(row.time().score())).append(' ').append(row.time().unit())
                .append(" | ").append(Formats.number(row.time().error()));
            for (final String name : counters)
            {
                final Double value = row.perOp().get(name);
                md.append(" | ").append(value == null ? "–" : Formats.number(value));
            }
            md.append(perOperation ? " | " + row.operations() + " |\n" : " |\n");
        }
        md.append('\n');
    }
}
