package dev.offcache.perf.jmh;

import java.util.Locale;

/**
 * JMH score units: which direction is better and how to convert between {@code ops/ms} and {@code ops/s}, or
 * {@code us/op} and {@code ms/op}, so results with different {@code @OutputTimeUnit}s still compare.
 */
public final class ScoreUnits
{
    private ScoreUnits()
    {
    }

    /**
     * Whether a higher score is better: throughput units ({@code ops/<time>}) are higher-is-better; time units
     * ({@code <time>/op}: average, sample and single-shot time) and everything else (for example {@code B/op}) are
     * lower-is-better.
     *
     * @param unit JMH's {@code scoreUnit}.
     * @return true for throughput.
     */
    public static boolean higherIsBetter(final String unit)
    {
        return unit.startsWith("ops/");
    }

    /**
     * Whether two units measure the same thing and so can be converted into each other.
     *
     * @param from a unit.
     * @param to   another unit.
     * @return true when {@link #conversionFactor(String, String)} works.
     */
    public static boolean compatible(final String from, final String to)
    {
        if (from.equals(to))
        {
            return true;
        }
        return kind(from) != null && kind(from).equals(kind(to));
    }

    /**
     * The factor that turns a score in {@code from} into a score in {@code to}.
     *
     * @param from unit of the score.
     * @param to   unit wanted.
     * @return the multiplier.
     * @throws IllegalArgumentException when the units are not compatible.
     */
    public static double conversionFactor(final String from, final String to)
    {
        if (from.equals(to))
        {
            return 1.0;
        }
        if (!compatible(from, to))
        {
            throw new IllegalArgumentException("cannot convert a score in " + from + " into " + to);
        }
        // ops/<t>: ops per second = value / seconds(t); <t>/op: seconds per op = value * seconds(t).
        if ("throughput".equals(kind(from)))
        {
            return secondsOf(timePart(to)) / secondsOf(timePart(from));
        }
        return secondsOf(timePart(from)) / secondsOf(timePart(to));
    }

    private static String kind(final String unit)
    {
        if (unit.startsWith("ops/") && secondsOrNaN(unit.substring(4)) > 0)
        {
            return "throughput";
        }
        if (unit.endsWith("/op") && secondsOrNaN(unit.substring(0, unit.length() - 3)) > 0)
        {
            return "time";
        }
        return null;
    }

    private static String timePart(final String unit)
    {
        return unit.startsWith("ops/") ? unit.substring(4) : unit.substring(0, unit.length() - 3);
    }

    private static double secondsOf(final String time)
    {
        final double seconds = secondsOrNaN(time);
        if (!(seconds > 0))
        {
            throw new IllegalArgumentException("unknown time unit: " + time);
        }
        return seconds;
    }

    private static double secondsOrNaN(final String time)
    {
        return switch (time.toLowerCase(Locale.ROOT))
        {
            case "ns" -> 1e-9;
            case "us", "\u00b5s" -> 1e-6;
            case "ms" -> 1e-3;
            case "s" -> 1.0;
            case "min" -> 60.0;
            case "hr" -> 3600.0;
            case "day" -> 86400.0;
            default -> Double.NaN;
        };
    }
}
