package dev.offcache.perf.chart;

import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import javax.imageio.ImageIO;

/**
 * A horizontal bar chart drawn with Java2D into a PNG: one labelled group of bars per row (the label on the left,
 * horizontal), each bar with an optional interval drawn as whiskers and a short text on its right, on a
 * {@link Scale}. Bars are filled without anti-aliasing, so every bar pixel has exactly its colour (the tests decode
 * the PNG and measure bars by colour); text is anti-aliased.
 *
 * <p>Needs no display ({@code java.awt.headless=true}). Labels and texts that do not fit their column are
 * shortened with an ellipsis, so nothing is drawn outside the image.
 */
public final class HorizontalBarChart
{
    /** offcache's colour. */
    public static final Color OURS = new Color(0x1f77b4);
    /** The baselines' colour. */
    public static final Color BASELINE = new Color(0xff7f0e);
    /** offcache's colour for a result without a clear verdict (its interval crosses the other side's). */
    public static final Color OURS_PALE = pale(OURS);
    /** The baselines' colour for a result without a clear verdict. */
    public static final Color BASELINE_PALE = pale(BASELINE);
    /** The background. */
    public static final Color BACKGROUND = Color.WHITE;
    /** Text colour. */
    public static final Color TEXT = new Color(0x222222);

    /** Width of every chart, in pixels. */
    public static final int WIDTH = 1200;
    /** Empty border around everything drawn, in pixels. */
    public static final int PADDING = 16;
    /** Height of one bar, in pixels. */
    public static final int BAR_HEIGHT = 18;

    private static final Color GRID = new Color(0xe3e3e3);
    private static final Color AXIS = new Color(0x888888);
    private static final Color WHISKER = new Color(0x333333);
    private static final Color ORIGIN_LINE = new Color(0x555555);
    private static final int BAR_GAP = 3;
    private static final int GROUP_GAP = 12;
    private static final int COLUMN_GAP = 12;
    private static final int CAP = 4;
    private static final Font TITLE_FONT = new Font(Font.SANS_SERIF, Font.BOLD, 18);
    private static final Font LABEL_FONT = new Font(Font.SANS_SERIF, Font.PLAIN, 14);
    private static final Font SMALL_FONT = new Font(Font.SANS_SERIF, Font.PLAIN, 13);

    private final String title;
    private final List<String> subtitle;
    private final String axisTitle;
    private final Scale scale;
    private final List<Group> groups;
    private final List<LegendEntry> legend;

    /**
     * One bar.
     *
     * @param value      the bar's value; NaN draws no bar (the text still shows).
     * @param low        the interval's lower end, NaN for none, ≤ 0 on a log axis for open-ended (drawn to the edge
     *                   with an arrow).
     * @param high       the interval's upper end, NaN for none, infinite for open-ended.
     * @param fill       the bar's colour.
     * @param annotation the text right of the plot, on the bar's line.
     */
    public record Bar(double value, double low, double high, Color fill, String annotation)
    {
        /**
         * A bar without an interval.
         *
         * @param value      the value.
         * @param fill       its colour.
         * @param annotation its text.
         * @return the bar.
         */
        public static Bar of(final double value, final Color fill, final String annotation)
        {
            return new Bar(value, Double.NaN, Double.NaN, fill, annotation);
        }
    }

    /**
     * A row of the chart: a label and its bars, drawn one under the other.
     *
     * @param label the label, drawn left of the plot.
     * @param bars  the bars, at least one.
     */
    public record Group(String label, List<Bar> bars)
    {
        /**
         * Freezes the bars.
         */
        public Group
        {
            bars = List.copyOf(bars);
            if (bars.isEmpty())
            {
                throw new IllegalArgumentException("a group needs a bar");
            }
        }
    }

    /**
     * An entry of the legend under the plot.
     *
     * @param colour the swatch colour.
     * @param text   what it means.
     */
    public record LegendEntry(Color colour, String text)
    {
    }

    /**
     * Creates a chart.
     *
     * @param title     the title.
     * @param subtitle  lines under the title (wrapped to the width), maybe empty.
     * @param axisTitle the text under the axis (unit and direction).
     * @param scale     the axis.
     * @param groups    the rows, top to bottom.
     * @param legend    the legend entries.
     */
    public HorizontalBarChart(final String title, final List<String> subtitle, final String axisTitle,
        final Scale scale, final List<Group> groups, final List<LegendEntry> legend)
    {
        if (groups.isEmpty())
        {
            throw new IllegalArgumentException("a chart needs a row");
        }
        this.title = title;
        this.subtitle = List.copyOf(subtitle);
        this.axisTitle = axisTitle;
        this.scale = scale;
        this.groups = List.copyOf(groups);
        this.legend = List.copyOf(legend);
    }

    /**
     * Writes the chart as a PNG.
     *
     * @param file the file (its directory is created).
     * @throws IOException on write failure.
     */
    public void write(final Path file) throws IOException
    {
        final Path parent = file.toAbsolutePath().getParent();
        if (parent != null)
        {
            Files.createDirectories(parent);
        }
        if (!ImageIO.write(render(), "png", file.toFile()))
        {
            throw new IOException("no PNG writer available");
        }
    }

    /**
     * Draws the chart.
     *
     * @return the image, {@value #WIDTH} pixels wide.
     */
    public BufferedImage render()
    {
        final BufferedImage probe = new BufferedImage(1, 1, BufferedImage.TYPE_INT_RGB);
        final Graphics2D measure = probe.createGraphics();
        final FontMetrics titleMetrics = measure.getFontMetrics(TITLE_FONT);
        final FontMetrics labelMetrics = measure.getFontMetrics(LABEL_FONT);
        final FontMetrics smallMetrics = measure.getFontMetrics(SMALL_FONT);

        final int inner = WIDTH - 2 * PADDING;
        final List<String> titleLines = wrap(title, titleMetrics, inner);
        final List<String> subtitleLines = new ArrayList<>();
        subtitle.forEach(s -> subtitleLines.addAll(wrap(s, smallMetrics, inner)));
        final List<List<LegendEntry>> legendLines = legendLines(smallMetrics, inner);

        final int labelColumn = Math.min(groups.stream().mapToInt(g -> labelMetrics.stringWidth(g.label())).max()
            .orElse(0), inner * 36 / 100);
        final int annotationColumn = Math.min(groups.stream().flatMap(g -> g.bars().stream())
            .mapToInt(b -> smallMetrics.stringWidth(b.annotation() == null ? "" : b.annotation())).max()
            .orElse(0), inner * 28 / 100);
        final int plotLeft = PADDING + labelColumn + COLUMN_GAP;
        final int plotRight = WIDTH - PADDING - annotationColumn - COLUMN_GAP;

        final int titleLineHeight = titleMetrics.getHeight();
        final int smallLineHeight = smallMetrics.getHeight();
        int plotTop = PADDING + titleLines.size() * titleLineHeight + subtitleLines.size() * smallLineHeight + 10;
        int rowsHeight = GROUP_GAP / 2;
        for (final Group group : groups)
        {
            rowsHeight += groupHeight(group) + GROUP_GAP;
        }
        final int plotBottom = plotTop + rowsHeight - GROUP_GAP / 2;
        final int height = plotBottom + 6 + smallLineHeight + 4 + smallLineHeight + 8 +
            legendLines.size() * (smallLineHeight + 2) + PADDING;
        measure.dispose();

        final BufferedImage image = new BufferedImage(WIDTH, height, BufferedImage.TYPE_INT_RGB);
        final Graphics2D g = image.createGraphics();
        try
        {
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_OFF);
            g.setColor(BACKGROUND);
            g.fillRect(0, 0, WIDTH, height);

            int y = PADDING;
            g.setColor(TEXT);
            g.setFont(TITLE_FONT);
            for (final String line : titleLines)
            {
                g.drawString(line, PADDING, y + titleMetrics.getAscent());
                y += titleLineHeight;
            }
            g.setFont(SMALL_FONT);
            for (final String line : subtitleLines)
            {
                g.drawString(line, PADDING, y + smallMetrics.getAscent());
                y += smallLineHeight;
            }

            final int plotWidth = plotRight - plotLeft;
            axis(g, smallMetrics, plotLeft, plotWidth, plotTop, plotBottom);

            y = plotTop + GROUP_GAP / 2;
            for (final Group group : groups)
            {
                final int groupHeight = groupHeight(group);
                g.setFont(LABEL_FONT);
                g.setColor(TEXT);
                final String label = fit(group.label(), labelMetrics, labelColumn);
                g.drawString(label, plotLeft - COLUMN_GAP - labelMetrics.stringWidth(label),
                    y + (groupHeight + labelMetrics.getAscent() - labelMetrics.getDescent()) / 2);
                int barTop = y;
                for (final Bar bar : group.bars())
                {
                    bar(g, bar, plotLeft, plotWidth, barTop);
                    if (bar.annotation() != null)
                    {
                        g.setFont(SMALL_FONT);
                        g.setColor(TEXT);
                        g.drawString(fit(bar.annotation(), smallMetrics, annotationColumn), plotRight + COLUMN_GAP,
                            barTop + (BAR_HEIGHT + smallMetrics.getAscent() - smallMetrics.getDescent()) / 2);
                    }
                    barTop += BAR_HEIGHT + BAR_GAP;
                }
                y += groupHeight + GROUP_GAP;
            }
            if (scale.kind() == Scale.Kind.SPEEDUP)
            {
                g.setColor(ORIGIN_LINE);
                final int x = xOf(scale.origin(), plotLeft, plotWidth);
                g.drawLine(x, plotTop, x, plotBottom);
            }

            y = plotBottom + 6 + smallLineHeight + 4;
            g.setFont(SMALL_FONT);
            g.setColor(TEXT);
            final String axisText = fit(axisTitle, smallMetrics, inner);
            g.drawString(axisText, plotLeft + (plotWidth - smallMetrics.stringWidth(axisText)) / 2,
                y + smallMetrics.getAscent());
            y += smallLineHeight + 8;
            for (final List<LegendEntry> line : legendLines)
            {
                int x = PADDING;
                for (final LegendEntry entry : line)
                {
                    g.setColor(entry.colour());
                    g.fillRect(x, y + (smallLineHeight - 10) / 2, 10, 10);
                    g.setColor(TEXT);
                    g.drawString(entry.text(), x + 14, y + smallMetrics.getAscent());
                    x += legendWidth(entry, smallMetrics);
                }
                y += smallLineHeight + 2;
            }
        }
        finally
        {
            g.dispose();
        }
        return image;
    }

    private void axis(final Graphics2D g, final FontMetrics metrics, final int plotLeft, final int plotWidth,
        final int plotTop, final int plotBottom)
    {
        g.setFont(SMALL_FONT);
        int lastLabelRight = Integer.MIN_VALUE;
        for (final double tick : scale.ticks())
        {
            final int x = xOf(tick, plotLeft, plotWidth);
            g.setColor(GRID);
            g.drawLine(x, plotTop, x, plotBottom);
            final String label = scale.tickLabel(tick);
            final int labelWidth = metrics.stringWidth(label);
            final int labelLeft = Math.max(PADDING, Math.min(WIDTH - PADDING - labelWidth, x - labelWidth / 2));
            if (labelLeft > lastLabelRight + 6)
            {
                g.setColor(TEXT);
                g.drawString(label, labelLeft, plotBottom + 6 + metrics.getAscent());
                lastLabelRight = labelLeft + labelWidth;
            }
        }
        g.setColor(AXIS);
        g.drawLine(plotLeft, plotBottom, plotLeft + plotWidth, plotBottom);
    }

    private void bar(final Graphics2D g, final Bar bar, final int plotLeft, final int plotWidth, final int top)
    {
        final int centre = top + BAR_HEIGHT / 2;
        if (Double.isFinite(bar.value()) && (!scale.logarithmic() || bar.value() > 0))
        {
            final int x0 = xOf(scale.origin(), plotLeft, plotWidth);
            final int x1 = xOf(bar.value(), plotLeft, plotWidth);
            g.setColor(bar.fill());
            g.fillRect(Math.min(x0, x1), top, Math.max(1, Math.abs(x1 - x0)), BAR_HEIGHT);
        }
        if (Double.isNaN(bar.low()) || Double.isNaN(bar.high()))
        {
            return;
        }
        final double lowPosition = scale.position(bar.low());
        final double highPosition = scale.position(bar.high());
        final boolean openLow = lowPosition < 0;
        final boolean openHigh = highPosition > 1;
        final int xLow = openLow ? plotLeft : xOf(bar.low(), plotLeft, plotWidth);
        final int xHigh = openHigh ? plotLeft + plotWidth : xOf(bar.high(), plotLeft, plotWidth);
        g.setColor(WHISKER);
        g.drawLine(xLow, centre, xHigh, centre);
        if (openLow)
        {
            g.fillPolygon(new int[] {xLow, xLow + 7, xLow + 7}, new int[] {centre, centre - CAP, centre + CAP}, 3);
        }
        else
        {
            g.drawLine(xLow, centre - CAP, xLow, centre + CAP);
        }
        if (openHigh)
        {
            g.fillPolygon(new int[] {xHigh, xHigh - 7, xHigh - 7}, new int[] {centre, centre - CAP, centre + CAP}, 3);
        }
        else
        {
            g.drawLine(xHigh, centre - CAP, xHigh, centre + CAP);
        }
    }

    private int xOf(final double value, final int plotLeft, final int plotWidth)
    {
        final double position = Math.max(0, Math.min(1, scale.position(value)));
        return plotLeft + (int) Math.round(position * plotWidth);
    }

    private static int groupHeight(final Group group)
    {
        return group.bars().size() * BAR_HEIGHT + (group.bars().size() - 1) * BAR_GAP;
    }

    private List<List<LegendEntry>> legendLines(final FontMetrics metrics, final int width)
    {
        final List<List<LegendEntry>> lines = new ArrayList<>();
        List<LegendEntry> line = new ArrayList<>();
        int used = 0;
        for (final LegendEntry entry : legend)
        {
            final int entryWidth = legendWidth(entry, metrics);
            if (!line.isEmpty() && used + entryWidth > width)
            {
                lines.add(line);
                line = new ArrayList<>();
                used = 0;
            }
            line.add(entry);
            used += entryWidth;
        }
        if (!line.isEmpty())
        {
            lines.add(line);
        }
        return lines;
    }

    private static int legendWidth(final LegendEntry entry, final FontMetrics metrics)
    {
        return 14 + metrics.stringWidth(entry.text()) + 24;
    }

    /** Breaks a text into lines that fit the width, at spaces; a word longer than the width is shortened. */
    static List<String> wrap(final String text, final FontMetrics metrics, final int width)
    {
        final List<String> lines = new ArrayList<>();
        if (text == null || text.isEmpty())
        {
            return lines;
        }
        final StringBuilder line = new StringBuilder();
        for (final String word : text.split(" "))
        {
            final String candidate = line.length() == 0 ? word : line + " " + word;
            if (metrics.stringWidth(candidate) <= width)
            {
                line.setLength(0);
                line.append(candidate);
            }
            else
            {
                if (line.length() > 0)
                {
                    lines.add(line.toString());
                }
                line.setLength(0);
                line.append(fit(word, metrics, width));
            }
        }
        if (line.length() > 0)
        {
            lines.add(line.toString());
        }
        return lines;
    }

    /** The text, or as much of it as fits with an ellipsis. */
    static String fit(final String text, final FontMetrics metrics, final int width)
    {
        if (text == null || metrics.stringWidth(text) <= width)
        {
            return text == null ? "" : text;
        }
        for (int end = text.length() - 1; end > 0; end--)
        {
            final String shortened = text.substring(0, end) + "…";
            if (metrics.stringWidth(shortened) <= width)
            {
                return shortened;
            }
        }
        return "";
    }

    private static Color pale(final Color colour)
    {
        return new Color((colour.getRed() + 2 * 255) / 3, (colour.getGreen() + 2 * 255) / 3,
            (colour.getBlue() + 2 * 255) / 3);
    }
}
