package dev.offcache.perf.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.perf.Fixtures;
import dev.offcache.perf.TestComparison;
import dev.offcache.perf.chart.DecodedChart;
import dev.offcache.perf.chart.DecodedChart.BarRect;
import dev.offcache.perf.chart.HorizontalBarChart;
import dev.offcache.perf.jmh.JmhResultReader;
import dev.offcache.perf.pairing.PairedResult;
import dev.offcache.perf.pairing.Pairing;
import dev.offcache.perf.pairing.SuiteResults;

/**
 * The charts, checked as a reader sees them: decoded from the PNG, bars found by colour and measured.
 */
class ChartWriterTest
{
    private static final int OURS = rgb(HorizontalBarChart.OURS);
    private static final int BASELINE = rgb(HorizontalBarChart.BASELINE);
    private static final int OURS_PALE = rgb(HorizontalBarChart.OURS_PALE);
    private static final int BASELINE_PALE = rgb(HorizontalBarChart.BASELINE_PALE);
    private static final Set<Integer> BAR_COLOURS = Set.of(OURS, BASELINE, OURS_PALE, BASELINE_PALE);

    /** Speedups of the pairs below, top to bottom, and the colour each verdict gets. */
    private static final double[] SPEEDUPS = {4.0, 0.5, 1.5, 0.8, 40.0, 0.02};
    private static final int[] COLOURS = {OURS, BASELINE, OURS_PALE, BASELINE_PALE, OURS, BASELINE};

    @TempDir
    Path dir;

    private static List<TestComparison> speedupPairs()
    {
        return List.of(
            TestComparison.throughput("get", "caffeine", 400, 10, 100, 5),
            TestComparison.throughput("put with a long operation name", "synchronized", 100, 5, 200, 10),
            TestComparison.throughput("scan", "fileChannel", 150, 40, 100, 30),
            TestComparison.throughput("scan", "nio", 80, 30, 100, 30),
            TestComparison.throughput("allocate", "allocateDirect", 4000, 100, 100, 5),
            TestComparison.throughput("round trip", "synchronized", 2, 0.1, 100, 5));
    }

    @Test
    void speedupBarsAreProportionalToTheLogOfTheRatioAroundOneX() throws IOException
    {
        final Path png = dir.resolve("speedup.png");
        ChartWriter.speedups("test — speedup", speedupPairs(), png);
        final DecodedChart chart = DecodedChart.read(png);

        assertEquals(HorizontalBarChart.WIDTH, chart.width());
        assertTrue(chart.height() > SPEEDUPS.length * (HorizontalBarChart.BAR_HEIGHT + 10) &&
            chart.height() < 700, "height " + chart.height());
        final List<BarRect> bars = chart.bars(BAR_COLOURS);
        assertEquals(SPEEDUPS.length, bars.size(), bars::toString);
        for (int i = 0; i < SPEEDUPS.length; i++)
        {
            assertEquals(COLOURS[i], bars.get(i).rgb(), "bar " + i + " colour (its verdict)");
        }

        // Every bar grows from 1×: wins start there, losses end there (the 1× line covers one column).
        final int origin = bars.get(0).x0();
        for (int i = 0; i < SPEEDUPS.length; i++)
        {
            final int base = SPEEDUPS[i] >= 1 ? bars.get(i).x0() : bars.get(i).x1();
            assertTrue(Math.abs(base - origin) <= 1, "bar " + i + " starts at 1× (" + base + " vs " + origin + ")");
        }
        // Length proportional to |log speedup|: pixels per e-fold equal for all bars (±2 px of rounding).
        final double pixelsPerLog = bars.get(4).length() / Math.log(40.0);
        for (int i = 0; i < SPEEDUPS.length; i++)
        {
            final double expected = Math.abs(Math.log(SPEEDUPS[i])) * pixelsPerLog;
            assertEquals(expected, bars.get(i).length(), 2.0, "bar " + i + " length for " + SPEEDUPS[i] + "×");
        }
        // 0.02× and 40× are about as far from 1× (ln 50 vs ln 40), on opposite sides.
        assertTrue(bars.get(5).x1() <= origin + 1 && bars.get(4).x0() >= origin - 1);

        labelsAndTextsInside(chart, bars);
    }

    @Test
    void scoresOfPairsSpanningMoreThanTenTimesGoOnALogAxis() throws IOException
    {
        final Path png = dir.resolve("log.png");
        assertTrue(ChartWriter.scores("test — scores", List.of(
            TestComparison.throughput("big", "direct", 2000, 10, 20, 1),
            TestComparison.throughput("mid", "direct", 200, 5, 20, 1)), png));
        final DecodedChart chart = DecodedChart.read(png);
        final List<BarRect> bars = chart.bars(BAR_COLOURS);
        assertEquals(List.of(OURS, BASELINE, OURS, BASELINE), bars.stream().map(BarRect::rgb).toList());
        // The axis runs over whole decades, 10 to 10,000: a bar's length is log10(value / 10).
        final double[] values = {2000, 20, 200, 20};
        final double pixelsPerDecade = bars.get(0).length() / Math.log10(2000 / 10.0);
        for (int i = 0; i < values.length; i++)
        {
            assertEquals(Math.log10(values[i] / 10) * pixelsPerDecade, bars.get(i).length(), 2.0, "bar " + i);
            assertEquals(bars.get(0).x0(), bars.get(i).x0(), "bars start at the axis' left end");
        }
        assertTrue(bars.get(1).length() > 20, "the 100× smaller baseline is a visible bar, not a flat line");
        labelsAndTextsInside(chart, bars);
    }

    @Test
    void scoresWithinTenTimesStayOnALinearAxisFromZero() throws IOException
    {
        final Path png = dir.resolve("linear.png");
        assertTrue(ChartWriter.scores("test — scores", List.of(
            TestComparison.throughput("a", "b", 100, 1, 150, 1),
            TestComparison.throughput("c", "d", 300, 1, 120, 1)), png));
        final List<BarRect> bars = DecodedChart.read(png).bars(BAR_COLOURS);
        final double[] values = {100, 150, 300, 120};
        final double pixelsPerUnit = bars.get(2).length() / 300.0;
        for (int i = 0; i < values.length; i++)
        {
            assertEquals(values[i] * pixelsPerUnit, bars.get(i).length(), 2.0, "bar " + i);
        }
    }

    @Test
    void latencySuitesShowP50AndP99OfBothSides() throws IOException
    {
        final SuiteResults registry = Pairing.pair(JmhResultReader.read(Fixtures.path(Fixtures.REPORT))).stream()
            .filter(s -> s.shortName().equals("registry.RegistryLookupBenchmark")).findFirst().orElseThrow();
        final Path png = dir.resolve("percentiles.png");
        assertTrue(ChartWriter.percentiles("test — p50 and p99", registry.pairs(), png));
        final DecodedChart chart = DecodedChart.read(png);
        final List<BarRect> bars = chart.bars(BAR_COLOURS);
        // Per pair: p50 ours, p50 baseline, p99 ours, p99 baseline.
        assertEquals(8, bars.size(), bars::toString);
        assertEquals(List.of(OURS, BASELINE, OURS, BASELINE, OURS, BASELINE, OURS, BASELINE),
            bars.stream().map(BarRect::rgb).toList());
        final PairedResult first = registry.pairs().get(0);
        final double[] values = {first.oursMetric().percentile("50.0"), first.baselineMetric().percentile("50.0"),
            first.oursMetric().percentile("99.0"), first.baselineMetric().percentile("99.0")};
        assertEquals(List.of(70.0, 350.0, 150.0, 900.0), java.util.Arrays.stream(values).boxed().toList());
        // 70 to 900 ns spans more than 10×: log axis over 10..1000, length log10(v / 10).
        final double pixelsPerDecade = bars.get(3).length() / Math.log10(900 / 10.0);
        for (int i = 0; i < 4; i++)
        {
            assertEquals(Math.log10(values[i] / 10) * pixelsPerDecade, bars.get(i).length(), 2.0, "bar " + i);
        }
        labelsAndTextsInside(chart, bars);
    }

    @Test
    void parametersEveryRowSharesMoveToTheSubtitle()
    {
        final List<PairedResult> pairs = Pairing.pair(JmhResultReader.read(Fixtures.path(Fixtures.REPORT))).stream()
            .filter(s -> s.shortName().equals("slab.SlabAllocateBenchmark")).findFirst().orElseThrow().pairs();
        assertEquals(Map.of(), ChartWriter.commonParameters(pairs), "slotSize differs between the rows");
        final TestComparison a = new TestComparison("fetch", Map.of("mtu", "8192", "size", "4096"), "offcache", "tcp",
            dev.offcache.perf.jmh.Metric.of(1, 0.1, "us/op"), dev.offcache.perf.jmh.Metric.of(2, 0.1, "us/op"), false);
        final TestComparison b = new TestComparison("fetch", Map.of("mtu", "8192", "size", "65536"), "offcache",
            "tcp", a.oursMetric(), a.baselineMetric(), false);
        assertEquals(Map.of("mtu", "8192"), ChartWriter.commonParameters(List.of(a, b)));
    }

    @Test
    void aLabelTooLongForItsColumnIsShortenedInsideTheImage() throws IOException
    {
        final Path png = dir.resolve("long.png");
        final String longName = "an operation whose name and parameters go on and on ".repeat(6);
        ChartWriter.speedups("test — long labels", List.of(
            TestComparison.throughput(longName, "a baseline with a long name ".repeat(5), 3, 0.1, 1, 0.1)), png);
        final DecodedChart chart = DecodedChart.read(png);
        assertTrue(chart.blankBorder(8), "nothing drawn into the 8 px border");
        assertEquals(1, chart.bars(BAR_COLOURS).size());
    }

    /**
     * Every row has a horizontal label left of the plot and its text right of it, and nothing touches the edges.
     */
    private static void labelsAndTextsInside(final DecodedChart chart, final List<BarRect> bars)
    {
        assertTrue(chart.blankBorder(8), "nothing drawn into the 8 px border: no label runs off the image");
        final int plotLeft = bars.stream().mapToInt(BarRect::x0).min().orElseThrow();
        final int rightText = chart.width() * 82 / 100;
        for (final BarRect bar : bars)
        {
            final int[] label = chart.darkBox(8, groupTop(bars, bar), plotLeft - 4,
                groupBottom(bars, bar));
            assertNotNull(label, "a label left of the bar at y=" + bar.top());
            final int labelWidth = label[2] - label[0];
            final int labelHeight = label[3] - label[1];
            assertTrue(labelHeight <= 20 && labelWidth >= labelHeight,
                "the label is one horizontal line of text: " + labelWidth + "×" + labelHeight);
            assertTrue(chart.darkPixels(rightText, bar.top(), chart.width() - 8, bar.top() + bar.height()) > 20,
                "the bar's text (value, baseline) right of the plot at y=" + bar.top());
        }
    }

    /** Bars of one group touch (3 px apart): the group runs from its first bar's top to its last bar's bottom. */
    private static int groupTop(final List<BarRect> bars, final BarRect bar)
    {
        int top = bar.top();
        for (int i = bars.indexOf(bar); i > 0 && bars.get(i - 1).top() + bars.get(i - 1).height() + 4 >= top; i--)
        {
            top = bars.get(i - 1).top();
        }
        return top;
    }

    private static int groupBottom(final List<BarRect> bars, final BarRect bar)
    {
        int bottom = bar.top() + bar.height();
        for (int i = bars.indexOf(bar); i + 1 < bars.size() && bars.get(i + 1).top() <= bottom + 4; i++)
        {
            bottom = bars.get(i + 1).top() + bars.get(i + 1).height();
        }
        return bottom;
    }

    private static int rgb(final java.awt.Color colour)
    {
        return colour.getRGB() & 0xffffff;
    }
}
