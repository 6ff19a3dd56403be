package dev.offcache.perf.chart;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

/**
 * Where values sit along a chart's horizontal axis, and which ticks it shows: linear from zero, logarithmic over
 * whole decades, or the speedup scale (logarithmic, symmetric around 1×, bars growing from 1× towards the side that
 * wins, so a 0.02× and a 50× are bars of the same length pointing opposite ways).
 */
public final class Scale
{
    /** The kinds of axis. */
    public enum Kind
    {
        /** From zero, evenly spaced ticks. */
        LINEAR,
        /** Whole decades; bars grow from the left edge. */
        LOG,
        /** Logarithmic from {@code 1/f} to {@code f}, bars grow from 1×. */
        SPEEDUP
    }

    private static final double[] ONE_TWO_FIVE = {1, 2, 5};

    private final Kind kind;
    private final double min;
    private final double max;

    private Scale(final Kind kind, final double min, final double max)
    {
        this.kind = kind;
        this.min = min;
        this.max = max;
    }

    /**
     * A linear axis from zero to a rounded-up maximum.
     *
     * @param largest the largest value to show (bars and finite whisker ends).
     * @return the scale.
     */
    public static Scale linear(final double largest)
    {
        final double top = largest > 0 && Double.isFinite(largest) ? largest * 1.05 : 1.0;
        final double step = niceStep(top / 5);
        return new Scale(Kind.LINEAR, 0, Math.ceil(top / step) * step);
    }

    /**
     * A logarithmic axis over the whole decades that hold the values.
     *
     * @param smallest the smallest positive value to show.
     * @param largest  the largest value to show.
     * @return the scale.
     */
    public static Scale log(final double smallest, final double largest)
    {
        final double low = Math.pow(10, Math.floor(Math.log10(smallest)));
        double high = Math.pow(10, Math.ceil(Math.log10(largest)));
        if (high <= low)
        {
            high = low * 10;
        }
        return new Scale(Kind.LOG, low, high);
    }

    /**
     * The speedup axis: from {@code 1/f} to {@code f}, where {@code f} is the smallest factor of the 1-2-5 series
     * (at least 2) that holds {@code extent}.
     *
     * @param extent the largest factor away from 1× to show, as a number ≥ 1 ({@code max(s, 1/s)} of the values).
     * @return the scale.
     */
    public static Scale speedup(final double extent)
    {
        double factor = 2;
        while (factor < extent * 1.0001 && factor < 1e12)
        {
            factor = nextOneTwoFive(factor);
        }
        return new Scale(Kind.SPEEDUP, 1 / factor, factor);
    }

    /**
     * The kind of axis.
     *
     * @return the kind.
     */
    public Kind kind()
    {
        return kind;
    }

    /**
     * Whether the axis is logarithmic (log and speedup scales).
     *
     * @return true for a logarithmic axis.
     */
    public boolean logarithmic()
    {
        return kind != Kind.LINEAR;
    }

    /**
     * The smallest value on the axis.
     *
     * @return the left end.
     */
    public double min()
    {
        return min;
    }

    /**
     * The largest value on the axis.
     *
     * @return the right end.
     */
    public double max()
    {
        return max;
    }

    /**
     * Where bars start: 0 on a linear axis, the left end on a log axis, 1× on the speedup axis.
     *
     * @return the bars' origin.
     */
    public double origin()
    {
        return switch (kind)
        {
            case LINEAR -> 0;
            case LOG -> min;
            case SPEEDUP -> 1;
        };
    }

    /**
     * Where a value sits, as a fraction of the axis from its left end (not clamped: outside [0, 1] is off the
     * axis).
     *
     * @param value a value.
     * @return the fraction; negative infinity for a value ≤ 0 on a logarithmic axis.
     */
    public double position(final double value)
    {
        if (kind == Kind.LINEAR)
        {
            return (value - min) / (max - min);
        }
        if (!(value > 0))
        {
            return Double.NEGATIVE_INFINITY;
        }
        return (Math.log(value) - Math.log(min)) / (Math.log(max) - Math.log(min));
    }

    /**
     * The tick values, left to right.
     *
     * @return ticks.
     */
    public List<Double> ticks()
    {
        final TreeSet<Double> ticks = new TreeSet<>();
        if (kind == Kind.LINEAR)
        {
            final double step = niceStep(max / 5);
            for (int i = 0; i * step <= max * 1.0001; i++)
            {
                ticks.add(i * step);
            }
            return new ArrayList<>(ticks);
        }
        final int decades = (int) Math.round(Math.log10(max / min));
        for (int e = (int) Math.floor(Math.log10(min)) - 1; e <= Math.ceil(Math.log10(max)); e++)
        {
            for (final double m : decades > 3 ? new double[] {1} : ONE_TWO_FIVE)
            {
                addIfInside(ticks, round(m * Math.pow(10, e)));
            }
        }
        if (kind == Kind.SPEEDUP && ticks.size() < 5)
        {
            for (final double v : new double[] {1.5, 3})
            {
                addIfInside(ticks, v);
                addIfInside(ticks, 1 / v);
            }
        }
        return new ArrayList<>(ticks);
    }

    /**
     * How a tick is labelled: {@code 0.5×}, {@code 1×}, {@code 100×} on the speedup axis, compact numbers
     * ({@code 250}, {@code 10k}, {@code 2M}, {@code 0.01}) elsewhere.
     *
     * @param value a tick value.
     * @return its label.
     */
    public String tickLabel(final double value)
    {
        return kind == Kind.SPEEDUP ? compact(value) + "×" : compact(value);
    }

    /**
     * A number in at most three significant digits with a k / M / G suffix for thousands, millions and billions.
     *
     * @param value a value.
     * @return for example {@code 0.67}, {@code 5}, {@code 150}, {@code 20k}, {@code 1.5M}.
     */
    public static String compact(final double value)
    {
        final double magnitude = Math.abs(value);
        if (magnitude >= 1e9)
        {
            return plain(value / 1e9) + "G";
        }
        if (magnitude >= 1e6)
        {
            return plain(value / 1e6) + "M";
        }
        if (magnitude >= 1e4)
        {
            return plain(value / 1e3) + "k";
        }
        return plain(value);
    }

    private static String plain(final double value)
    {
        if (value == 0)
        {
            return "0";
        }
        final BigDecimal rounded = new BigDecimal(value).round(new MathContext(3)).stripTrailingZeros();
        final String text = rounded.abs().compareTo(BigDecimal.valueOf(1e-4)) < 0 ?
            String.format(Locale.ROOT, "%.0e", value) : rounded.toPlainString();
        return text;
    }

    private void addIfInside(final TreeSet<Double> ticks, final double value)
    {
        if (value >= min * 0.9999 && value <= max * 1.0001)
        {
            ticks.add(value);
        }
    }

    private static double round(final double value)
    {
        return new BigDecimal(value).round(new MathContext(6)).doubleValue();
    }

    /** The 1-2-5 value at or above {@code raw}: 0.2, 0.5, 1, 2, 5, 10, ... */
    private static double niceStep(final double raw)
    {
        if (!(raw > 0))
        {
            return 1;
        }
        final double decade = Math.pow(10, Math.floor(Math.log10(raw)));
        for (final double m : ONE_TWO_FIVE)
        {
            if (m * decade >= raw * 0.9999)
            {
                return m * decade;
            }
        }
        return 10 * decade;
    }

    private static double nextOneTwoFive(final double value)
    {
        final double decade = Math.pow(10, Math.floor(Math.log10(value) + 1e-9));
        final double m = Math.round(value / decade);
        return m < 2 ? 2 * decade : m < 5 ? 5 * decade : 10 * decade;
    }
}
