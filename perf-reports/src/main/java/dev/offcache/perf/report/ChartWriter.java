package dev.offcache.perf.report;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

import dev.offcache.perf.jmh.JmhResult;
import dev.offcache.perf.jmh.Metric;
import dev.offcache.perf.jmh.ScoreUnits;
import dev.offcache.perf.pairing.PairedResult;
import dev.offcache.perf.pairing.SuiteResults;

/**
 * Draws the PNG bar charts of a report with XChart: ours beside the baseline per operation and parameters, with
 * JMH's error bars. Needs no display: the report tool runs with {@code java.awt.headless=true}.
 */
public final class ChartWriter
{
    private static final int WIDTH = 1000;
    private static final int HEIGHT = 600;
    private static final int LABEL_CHAR_PIXELS = 8;
    private static final int MAX_LABEL_PIXELS = 400;
    private static final Color OURS_COLOR = new Color(0x1f, 0x77, 0xb4);
    private static final Color BASELINE_COLOR = new Color(0xff, 0x7f, 0x0e);

    private ChartWriter()
    {
    }

    /**
     * Draws ours against the baselines for pairs of one mode.
     *
     * @param title chart title.
     * @param pairs pairs of one mode, all in units compatible with the first one's.
     * @param file  the PNG to write.
     * @return false when no pair could be drawn (units that do not convert), so nothing was written.
     * @throws IOException on write failure.
     */
    public static boolean pairs(final String title, final List<PairedResult> pairs, final Path file) throws IOException
    {
        final String unit = pairs.get(0).ours().primary().unit();
        final List<String> categories = new ArrayList<>();
        final List<Double> ours = new ArrayList<>();
        final List<Double> oursError = new ArrayList<>();
        final List<Double> baseline = new ArrayList<>();
        final List<Double> baselineError = new ArrayList<>();
        final Set<String> seen = new HashSet<>();
        for (final PairedResult pair : pairs)
        {
            if (!ScoreUnits.compatible(pair.ours().primary().unit(), unit) ||
                !ScoreUnits.compatible(pair.baseline().primary().unit(), unit))
            {
                continue;
            }
            final Metric oursMetric = pair.ours().primary().in(unit);
            final Metric baselineMetric = pair.baseline().primary().in(unit);
            final String params = pair.sharedParamsLabel();
            categories.add(unique(seen, pair.operationLabel() + (params.isEmpty() ? "" : " " + params) +
                " vs " + pair.baselineName()));
            ours.add(oursMetric.score());
            oursError.add(errorBar(oursMetric));
            baseline.add(baselineMetric.score());
            baselineError.add(errorBar(baselineMetric));
        }
        if (categories.isEmpty())
        {
            return false;
        }
        final CategoryChart chart = newChart(title, unit, categories);
        chart.addSeries("offcache", categories, ours, oursError).setFillColor(OURS_COLOR);
        chart.addSeries("baseline", categories, baseline, baselineError).setFillColor(BASELINE_COLOR);
        write(chart, file);
        return true;
    }

    /**
     * Draws results that have no partner, one bar each.
     *
     * @param title   chart title.
     * @param results results of one mode.
     * @param file    the PNG to write.
     * @return true; results whose unit does not convert into the first one's are left out (the table has them).
     * @throws IOException on write failure.
     */
    public static boolean standalone(final String title, final List<JmhResult> results, final Path file)
        throws IOException
    {
        final String unit = results.get(0).primary().unit();
        final List<String> categories = new ArrayList<>();
        final List<Double> scores = new ArrayList<>();
        final List<Double> errors = new ArrayList<>();
        final Set<String> seen = new HashSet<>();
        for (final JmhResult result : results)
        {
            if (!ScoreUnits.compatible(result.primary().unit(), unit))
            {
                continue;
            }
            final Metric metric = result.primary().in(unit);
            final String params = result.paramsLabel();
            categories.add(unique(seen, result.method() + (params.isEmpty() ? "" : " " + params)));
            scores.add(metric.score());
            errors.add(errorBar(metric));
        }
        final CategoryChart chart = newChart(title, unit, categories);
        chart.addSeries("score", categories, scores, errors).setFillColor(OURS_COLOR);
        write(chart, file);
        return true;
    }

    private static CategoryChart newChart(final String title, final String unit, final List<String> categories)
    {
        final int width = Math.max(WIDTH, 140 * categories.size());
        final int longestLabelPixels = LABEL_CHAR_PIXELS * categories.stream().mapToInt(String::length).max().orElse(0);
        // XChart centres labels on their bars only when they are horizontal or vertical; vertical when they would
        // not fit side by side, with the chart made taller for them.
        final boolean vertical = longestLabelPixels > width / Math.max(1, categories.size()) - 20;
        final CategoryChart chart = new CategoryChartBuilder()
            .width(width)
            .height(vertical ? HEIGHT + Math.min(MAX_LABEL_PIXELS, longestLabelPixels) : HEIGHT)
            .title(title)
            .xAxisTitle("")
            .yAxisTitle(unit + (ScoreUnits.higherIsBetter(unit) ? " (higher is better)" : " (lower is better)"))
            .build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        chart.getStyler().setXAxisLabelRotation(vertical ? 90 : 0);
        chart.getStyler().setErrorBarsColor(Color.DARK_GRAY);
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setYAxisMin(0.0);
        return chart;
    }

    private static void write(final CategoryChart chart, final Path file) throws IOException
    {
        final Path parent = file.toAbsolutePath().getParent();
        if (parent != null)
        {
            Files.createDirectories(parent);
        }
        Files.write(file, BitmapEncoder.getBitmapBytes(chart, BitmapEncoder.BitmapFormat.PNG));
    }

    /** No error estimate (one iteration) draws no bar rather than a made-up one. */
    private static double errorBar(final Metric metric)
    {
        return metric.hasErrorBars() ? metric.error() : 0.0;
    }

    private static String unique(final Set<String> seen, final String label)
    {
        String candidate = label;
        for (int i = 2; !seen.add(candidate); i++)
        {
            candidate = label + " #" + i;
        }
        return candidate;
    }

    /**
     * A file name for a chart of a suite and mode.
     *
     * @param suite the suite.
     * @param mode  the JMH mode.
     * @param kind  {@code pairs} or {@code standalone}.
     * @return a safe file name ending in {@code .png}.
     */
    public static String fileName(final SuiteResults suite, final String mode, final String kind)
    {
        return (suite.shortName() + "-" + mode + "-" + kind).replaceAll("[^A-Za-z0-9._-]", "_") + ".png";
    }
}
