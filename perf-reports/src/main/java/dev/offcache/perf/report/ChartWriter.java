package dev.offcache.perf.report;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

import dev.offcache.perf.chart.HorizontalBarChart;
import dev.offcache.perf.chart.HorizontalBarChart.Bar;
import dev.offcache.perf.chart.HorizontalBarChart.Group;
import dev.offcache.perf.chart.HorizontalBarChart.LegendEntry;
import dev.offcache.perf.chart.Scale;
import dev.offcache.perf.jmh.JmhResult;
import dev.offcache.perf.jmh.Metric;
import dev.offcache.perf.jmh.ScoreUnits;
import dev.offcache.perf.jmh.Separation;
import dev.offcache.perf.pairing.Comparison;
import dev.offcache.perf.pairing.PairedResult;

/**
 * The report's PNG charts, all horizontal bar charts ({@link HorizontalBarChart}) with horizontal labels:
 * <ul>
 *   <li>the <b>speedup chart</b> of a suite: one bar per pair, the speedup on a log axis centred at 1×, the
 *       speedups both 99.9% intervals allow as whiskers, the baseline's name on each bar;</li>
 *   <li>the <b>score chart</b>: offcache's and the baseline's raw scores side by side, on a log axis when the
 *       scores span more than 10×;</li>
 *   <li>the <b>percentile chart</b> of a sampled-time (latency) suite: p50 and p99 of both sides;</li>
 *   <li>the chart of the results without a baseline.</li>
 * </ul>
 * Parameters that every row shares go into the subtitle, so the row labels hold only what differs.
 */
public final class ChartWriter
{
    /** Values spanning more than this factor are drawn on a log axis. */
    public static final double LOG_SPAN = 10;

    private static final String WHISKER_NOTE = "Whiskers: the 99.9% intervals (arrow: the interval runs off the " +
        "axis, or to zero).";

    private ChartWriter()
    {
    }

    /**
     * Draws the speedup chart of a suite's pairs.
     *
     * @param title       chart title.
     * @param comparisons the pairs.
     * @param file        the PNG to write.
     * @return true: the chart was written.
     * @throws IOException on write failure.
     */
    public static boolean speedups(final String title, final List<? extends Comparison> comparisons, final Path file)
        throws IOException
    {
        final Map<String, String> common = commonParameters(comparisons);
        double barExtent = 1;
        double whiskerExtent = 1;
        for (final Comparison comparison : comparisons)
        {
            barExtent = Math.max(barExtent, extent(comparison.speedup()));
            for (final double end : comparison.speedupInterval())
            {
                if (end > 0 && Double.isFinite(end))
                {
                    whiskerExtent = Math.max(whiskerExtent, extent(end));
                }
            }
        }
        // Whiskers may widen the axis a little, never so far that the bars shrink to nothing: beyond, an arrow.
        final Scale scale = Scale.speedup(Math.max(barExtent, Math.min(whiskerExtent, barExtent * 4)));
        final List<Group> groups = new ArrayList<>();
        final Set<Color> used = new LinkedHashSet<>();
        for (final Comparison comparison : comparisons)
        {
            final double speedup = comparison.speedup();
            final double[] interval = comparison.speedupInterval();
            final Color fill = speedupColour(comparison);
            used.add(fill);
            groups.add(new Group(rowLabel(comparison, common), List.of(new Bar(speedup, interval[0], interval[1],
                fill, Formats.speedup(speedup) + " vs " + comparison.baselineName() + (!Double.isNaN(speedup) ? "" :
                ScoreUnits.compatible(comparison.oursMetric().unit(), comparison.baselineMetric().unit()) ?
                " (a zero value)" : " (units differ)")))));
        }
        final List<String> subtitle = new ArrayList<>();
        subtitle.add("How many times better offcache is than the baseline named on each bar (where higher is " +
            "better ours ÷ baseline, where lower is better baseline ÷ ours): right of 1× offcache wins. " +
            "Whiskers: the speedups both 99.9% intervals allow (arrow: open-ended or off the axis).");
        sharedLine(common).ifPresent(subtitle::add);
        final List<LegendEntry> legend = new ArrayList<>();
        addIfUsed(legend, used, HorizontalBarChart.OURS, "offcache better (whole interval right of 1×)");
        addIfUsed(legend, used, HorizontalBarChart.BASELINE, "baseline better (whole interval left of 1×)");
        addIfUsed(legend, used, HorizontalBarChart.OURS_PALE, "offcache ahead, within error");
        addIfUsed(legend, used, HorizontalBarChart.BASELINE_PALE, "baseline ahead, within error");
        addIfUsed(legend, used, Color.GRAY, "no error bars: no verdict");
        new HorizontalBarChart(title, subtitle, "speedup, log scale (1× = equal)", scale, groups, legend).write(file);
        return true;
    }

    /**
     * Draws offcache's and the baseline's scores side by side.
     *
     * @param title       chart title.
     * @param comparisons pairs whose scores are in one unit (the first pair's); others are left out.
     * @param file        the PNG to write.
     * @return false when nothing could be drawn, so nothing was written.
     * @throws IOException on write failure.
     */
    public static boolean scores(final String title, final List<? extends Comparison> comparisons, final Path file)
        throws IOException
    {
        final String unit = comparisons.get(0).oursMetric().unit();
        final List<Comparison> drawable = comparisons.stream()
            .filter(c -> ScoreUnits.compatible(c.oursMetric().unit(), unit) &&
                ScoreUnits.compatible(c.baselineMetric().unit(), unit))
            .map(c -> (Comparison) c)
            .toList();
        if (drawable.isEmpty())
        {
            return false;
        }
        final Map<String, String> common = commonParameters(drawable);
        final List<Metric> metrics = new ArrayList<>();
        final List<Group> groups = new ArrayList<>();
        for (final Comparison comparison : drawable)
        {
            final Metric ours = comparison.oursMetric().in(unit);
            final Metric baseline = comparison.baselineMetric().in(unit);
            metrics.add(ours);
            metrics.add(baseline);
            groups.add(new Group(rowLabel(comparison, common), List.of(
                scoreBar(ours, HorizontalBarChart.OURS, comparison.oursName()),
                scoreBar(baseline, HorizontalBarChart.BASELINE, comparison.baselineName()))));
        }
        final Scale scale = scaleFor(metrics);
        final List<String> subtitle = new ArrayList<>();
        subtitle.add("offcache (blue) and its baseline (orange, named on the bar)" + (scale.logarithmic() ?
            "; log axis, as the scores span more than " + Scale.compact(LOG_SPAN) + "×. " : ". ") + WHISKER_NOTE);
        sharedLine(common).ifPresent(subtitle::add);
        new HorizontalBarChart(title, subtitle, axisTitle(unit, drawable.get(0).higherIsBetter(), scale), scale,
            groups, List.of(new LegendEntry(HorizontalBarChart.OURS, "offcache"),
                new LegendEntry(HorizontalBarChart.BASELINE, "baseline"))).write(file);
        return true;
    }

    /**
     * Draws the p50 and p99 of both sides of sampled-time pairs (JMH's {@code sample} mode).
     *
     * @param title chart title.
     * @param pairs sample-mode pairs in units compatible with the first one's.
     * @param file  the PNG to write.
     * @return false when no pair has percentiles, so nothing was written.
     * @throws IOException on write failure.
     */
    public static boolean percentiles(final String title, final List<PairedResult> pairs, final Path file)
        throws IOException
    {
        final String unit = pairs.get(0).oursMetric().unit();
        final List<PairedResult> drawable = pairs.stream()
            .filter(p -> ScoreUnits.compatible(p.baselineMetric().unit(), unit) &&
                ScoreUnits.compatible(p.oursMetric().unit(), unit) &&
                !Double.isNaN(p.oursMetric().percentile("50.0")) &&
                !Double.isNaN(p.baselineMetric().percentile("99.0")))
            .toList();
        if (drawable.isEmpty())
        {
            return false;
        }
        final Map<String, String> common = commonParameters(drawable);
        final List<Metric> values = new ArrayList<>();
        final List<Group> groups = new ArrayList<>();
        for (final PairedResult pair : drawable)
        {
            final Metric ours = pair.oursMetric().in(unit);
            final Metric baseline = pair.baselineMetric().in(unit);
            final List<Bar> bars = new ArrayList<>();
            for (final String percentile : List.of("50.0", "99.0"))
            {
                final String name = "p" + percentile.substring(0, percentile.indexOf('.'));
                final double oursValue = ours.percentile(percentile);
                final double baselineValue = baseline.percentile(percentile);
                values.add(Metric.of(oursValue, Double.NaN, unit));
                values.add(Metric.of(baselineValue, Double.NaN, unit));
                bars.add(Bar.of(oursValue, HorizontalBarChart.OURS, name + " " + pair.oursName() + " " +
                    Formats.number(oursValue) + " " + unit));
                bars.add(Bar.of(baselineValue, HorizontalBarChart.BASELINE, name + " " + pair.baselineName() + " " +
                    Formats.number(baselineValue) + " " + unit));
            }
            groups.add(new Group(rowLabel(pair, common), bars));
        }
        final Scale scale = scaleFor(values);
        final List<String> subtitle = new ArrayList<>();
        subtitle.add("Latency percentiles of the sampled times: p50 then p99, offcache (blue) beside its baseline " +
            "(orange)" + (scale.logarithmic() ? "; log axis, as the values span more than " +
            Scale.compact(LOG_SPAN) + "×." : "."));
        sharedLine(common).ifPresent(subtitle::add);
        new HorizontalBarChart(title, subtitle, axisTitle(unit, false, scale), scale, groups,
            List.of(new LegendEntry(HorizontalBarChart.OURS, "offcache"),
                new LegendEntry(HorizontalBarChart.BASELINE, "baseline"))).write(file);
        return true;
    }

    /**
     * Draws results that have no partner, one bar each.
     *
     * @param title   chart title.
     * @param results results of one mode.
     * @param file    the PNG to write.
     * @throws IOException on write failure.
     */
    public static void standalone(final String title, final List<JmhResult> results, final Path file)
        throws IOException
    {
        final String unit = results.get(0).primary().unit();
        final List<Metric> metrics = new ArrayList<>();
        final List<Group> groups = new ArrayList<>();
        for (final JmhResult result : results)
        {
            if (!ScoreUnits.compatible(result.primary().unit(), unit))
            {
                continue;
            }
            final Metric metric = result.primary().in(unit);
            metrics.add(metric);
            final String params = result.paramsLabel();
            groups.add(new Group(result.method() + (params.isEmpty() ? "" : " " + params),
                List.of(scoreBar(metric, HorizontalBarChart.OURS, ""))));
        }
        final Scale scale = scaleFor(metrics);
        new HorizontalBarChart(title, List.of("No baseline to compare with. " + WHISKER_NOTE),
            axisTitle(unit, ScoreUnits.higherIsBetter(unit), scale), scale, groups, List.of()).write(file);
    }

    /**
     * The colour of a pair's speedup bar: blue when offcache wins beyond the error bars, orange when the baseline
     * does, pale blue / pale orange for the side ahead within error, grey without error bars.
     *
     * @param comparison a pair.
     * @return the colour.
     */
    static Color speedupColour(final Comparison comparison)
    {
        final Separation separation = comparison.separation();
        return switch (separation)
        {
            case FIRST_BETTER -> HorizontalBarChart.OURS;
            case SECOND_BETTER -> HorizontalBarChart.BASELINE;
            case NO_ERROR_BARS, INCOMPARABLE -> Color.GRAY;
            case OVERLAP -> comparison.speedup() >= 1 ? HorizontalBarChart.OURS_PALE :
                HorizontalBarChart.BASELINE_PALE;
        };
    }

    /**
     * The axis for a set of values: log when they are all positive and span more than {@link #LOG_SPAN}, else
     * linear from zero. Finite interval ends widen it a little (never so far that the bars shrink to nothing).
     *
     * @param metrics the values with their intervals.
     * @return the scale.
     */
    static Scale scaleFor(final List<Metric> metrics)
    {
        double min = Double.POSITIVE_INFINITY;
        double max = 0;
        boolean positive = true;
        for (final Metric metric : metrics)
        {
            if (Double.isNaN(metric.score()))
            {
                continue;
            }
            positive &= metric.score() > 0;
            min = Math.min(min, metric.score());
            max = Math.max(max, metric.score());
        }
        if (!(max > 0))
        {
            return Scale.linear(1);
        }
        final boolean log = positive && max / min > LOG_SPAN;
        double low = min;
        double high = max;
        for (final Metric metric : metrics)
        {
            if (metric.hasErrorBars())
            {
                high = Math.max(high, Math.min(metric.upper(), (log ? 10 : 1.5) * max));
                if (metric.lower() > 0)
                {
                    low = Math.min(low, Math.max(metric.lower(), min / 10));
                }
            }
        }
        return log ? Scale.log(low, high) : Scale.linear(high);
    }

    private static Bar scoreBar(final Metric metric, final Color fill, final String name)
    {
        final String text = (name.isEmpty() ? "" : name + " ") + Formats.number(metric.score()) +
            (metric.hasErrorBars() ? " ± " + Formats.number(metric.error()) : "");
        return metric.hasErrorBars() ? new Bar(metric.score(), metric.lower(), metric.upper(), fill, text) :
            Bar.of(metric.score(), fill, text);
    }

    private static String axisTitle(final String unit, final boolean higherIsBetter, final Scale scale)
    {
        return unit + (higherIsBetter ? " (higher is better)" : " (lower is better)") +
            (scale.logarithmic() ? ", log scale" : "");
    }

    /** The parameters with the same value in every row (and every row has them). */
    static Map<String, String> commonParameters(final List<? extends Comparison> comparisons)
    {
        final Map<String, String> common = new LinkedHashMap<>(comparisons.get(0).parameters());
        for (final Comparison comparison : comparisons)
        {
            common.entrySet().removeIf(e -> !Objects.equals(comparison.parameters().get(e.getKey()), e.getValue()));
        }
        return common;
    }

    private static String rowLabel(final Comparison comparison, final Map<String, String> common)
    {
        final StringBuilder label = new StringBuilder(comparison.subject());
        String separator = " ";
        for (final Map.Entry<String, String> parameter : comparison.parameters().entrySet())
        {
            if (!common.containsKey(parameter.getKey()))
            {
                label.append(separator).append(parameter.getKey()).append('=').append(parameter.getValue());
                separator = ", ";
            }
        }
        return label.toString();
    }

    private static Optional<String> sharedLine(final Map<String, String> common)
    {
        if (common.isEmpty())
        {
            return Optional.empty();
        }
        final StringBuilder line = new StringBuilder("Every row: ");
        common.forEach((k, v) -> line.append(line.length() == "Every row: ".length() ? "" : ", ")
            .append(k).append('=').append(v));
        return Optional.of(line.toString());
    }

    private static void addIfUsed(final List<LegendEntry> legend, final Set<Color> used, final Color colour,
        final String text)
    {
        if (used.contains(colour))
        {
            legend.add(new LegendEntry(colour, text));
        }
    }

    private static double extent(final double factor)
    {
        return factor > 0 && Double.isFinite(factor) ? Math.max(factor, 1 / factor) : 1;
    }

    /**
     * A file name for a chart.
     *
     * @param suite the suite's short name.
     * @param mode  the JMH mode or another qualifier, maybe empty.
     * @param kind  {@code speedup}, {@code pairs}, {@code percentiles} or {@code standalone}.
     * @return a safe file name ending in {@code .png}.
     */
    public static String fileName(final String suite, final String mode, final String kind)
    {
        return (suite + (mode.isEmpty() ? "" : "-" + mode) + "-" + kind).replaceAll("[^A-Za-z0-9._-]", "_") + ".png";
    }
}
