package dev.offcache.perf.report;

import java.util.Locale;

import dev.offcache.perf.jmh.Metric;
import dev.offcache.perf.jmh.Separation;
import dev.offcache.perf.measure.Measurement;

/**
 * How numbers and verdicts are written in the reports: a few significant digits, thousands grouped, never
 * locale-dependent, so the reports are diffable and the tests can assert them.
 */
public final class Formats
{
    private Formats()
    {
    }

    /**
     * A score with as many digits as are useful at its magnitude.
     *
     * @param value the score.
     * @return for example {@code 12,345,678}, {@code 158.3}, {@code 3.25}, {@code 0.003} or {@code n/a} for NaN.
     */
    public static String number(final double value)
    {
        if (Double.isNaN(value))
        {
            return "n/a";
        }
        if (Double.isInfinite(value))
        {
            return value > 0 ? "∞" : "-∞";
        }
        final double magnitude = Math.abs(value);
        if (magnitude == 0)
        {
            return "0";
        }
        if (magnitude >= 10_000)
        {
            return String.format(Locale.ROOT, "%,.0f", value);
        }
        if (magnitude >= 100)
        {
            return String.format(Locale.ROOT, "%.1f", value);
        }
        if (magnitude >= 1)
        {
            return String.format(Locale.ROOT, "%.2f", value);
        }
        if (magnitude >= 0.001)
        {
            return String.format(Locale.ROOT, "%.3f", value);
        }
        return String.format(Locale.ROOT, "%.2e", value);
    }

    /**
     * A speedup with a times sign: two decimals, or two significant digits below 0.1× (so 0.011× and 0.014× do
     * not both read 0.01×).
     *
     * @param speedup the ratio.
     * @return for example {@code 4.00×}, {@code 0.50×}, {@code 0.014×}, or {@code n/a}.
     */
    public static String speedup(final double speedup)
    {
        if (Double.isNaN(speedup))
        {
            return "n/a";
        }
        if (speedup > 0 && speedup < 0.1)
        {
            final int decimals = 1 - (int) Math.floor(Math.log10(speedup));
            return String.format(Locale.ROOT, "%." + decimals + "f×", speedup);
        }
        return String.format(Locale.ROOT, "%.2f×", speedup);
    }

    /**
     * A relative change in percent with its sign.
     *
     * @param percent the change.
     * @return for example {@code +12.5%}, {@code -30.0%}, or {@code n/a}.
     */
    public static String percent(final double percent)
    {
        return Double.isNaN(percent) ? "n/a" : String.format(Locale.ROOT, "%+.1f%%", percent);
    }

    /**
     * Verdict of ours (first) against a baseline (second).
     *
     * @param separation the separation.
     * @return words for the table.
     */
    public static String pairVerdict(final Separation separation)
    {
        return switch (separation)
        {
            case FIRST_BETTER -> "offcache better";
            case SECOND_BETTER -> "baseline better";
            case OVERLAP -> "within error";
            case NO_ERROR_BARS -> "no error bars";
            case INCOMPARABLE -> "units differ";
        };
    }

    /**
     * Escapes a table cell for Markdown.
     *
     * @param text any text.
     * @return the text with pipes escaped.
     */
    public static String cell(final String text)
    {
        return text == null || text.isEmpty() ? "–" : text.replace("|", "\\|");
    }

    /**
     * A measurement's interval as the tables show it.
     *
     * @param measurement a measurement.
     * @return for example {@code 20,100 – 22,800 (2 runs)}, or {@code –} without an interval.
     */
    public static String interval(final Measurement measurement)
    {
        final Metric value = measurement.value();
        if (!value.hasErrorBars())
        {
            return "–";
        }
        return number(value.lower()) + " – " + number(value.upper()) +
            (measurement.samples() > 1 ? " (" + measurement.samples() + " runs)" : "");
    }
}
