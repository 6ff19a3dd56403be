package dev.offcache.perf.run;

import java.util.List;
import java.util.Locale;

/**
 * How long a run takes at least, from the number of benchmark runs (parameter combinations) and the effective JMH
 * options: {@code runs × forks × (warm-up iterations × time + measurement iterations × time)}. JVM start-up and
 * benchmark set-up per fork come on top (seconds each; suites that start servers or a cluster take longer).
 *
 * @param runs             benchmark runs (parameter combinations, each mode counted).
 * @param forks            forks per run.
 * @param warmupIterations warm-up iterations per fork.
 * @param warmupSeconds    seconds per warm-up iteration.
 * @param iterations       measurement iterations per fork.
 * @param iterationSeconds seconds per measurement iteration.
 */
public record RunEstimate(int runs, int forks, int warmupIterations, double warmupSeconds, int iterations,
    double iterationSeconds)
{
    /**
     * Reads the effective options from a JMH argument list (the last occurrence wins, as in JMH), with JMH's
     * defaults for what is not given: {@code -f 5 -wi 5 -w 10s -i 5 -r 10s}.
     *
     * @param jmhArgs the profile's options followed by the user's.
     * @param runs    the planned runs.
     * @return the estimate.
     */
    public static RunEstimate of(final List<String> jmhArgs, final int runs)
    {
        int forks = 5;
        int warmupIterations = 5;
        double warmupSeconds = 10;
        int iterations = 5;
        double iterationSeconds = 10;
        for (int i = 0; i + 1 < jmhArgs.size(); i++)
        {
            final String value = jmhArgs.get(i + 1);
            switch (jmhArgs.get(i))
            {
                case "-f" -> forks = Math.max(1, Integer.parseInt(value));
                case "-wi" -> warmupIterations = Integer.parseInt(value);
                case "-w" -> warmupSeconds = seconds(value);
                case "-i" -> iterations = Integer.parseInt(value);
                case "-r" -> iterationSeconds = seconds(value);
                default ->
                {
                }
            }
        }
        return new RunEstimate(runs, forks, warmupIterations, warmupSeconds, iterations, iterationSeconds);
    }

    /**
     * The time spent in iterations.
     *
     * @return seconds.
     */
    public double iterationSecondsTotal()
    {
        return (double) runs * forks * (warmupIterations * warmupSeconds + iterations * iterationSeconds);
    }

    /**
     * The estimate in words, for the progress output.
     *
     * @return for example {@code 58 runs × 3 forks × (5 × 2 s + 5 × 2 s) = 58 min of iterations, plus ...}.
     */
    public String describe()
    {
        return String.format(Locale.ROOT, "%d runs × %d fork%s × (%d × %s warm-up + %d × %s measurement) = %s of " +
            "iterations, plus JVM start-up and set-up per fork (seconds each; more for suites that start servers " +
            "or a cluster)", runs, forks, forks == 1 ? "" : "s", warmupIterations, time(warmupSeconds), iterations,
            time(iterationSeconds), duration(iterationSecondsTotal()));
    }

    /**
     * A duration in words.
     *
     * @param seconds the duration.
     * @return for example {@code 45 s}, {@code 12 min} or {@code 2 h 5 min}.
     */
    public static String duration(final double seconds)
    {
        final long rounded = Math.round(seconds);
        if (rounded < 120)
        {
            return rounded + " s";
        }
        final long minutes = Math.round(seconds / 60);
        return minutes < 120 ? minutes + " min" : minutes / 60 + " h " + minutes % 60 + " min";
    }

    private static String time(final double seconds)
    {
        if (seconds < 1)
        {
            return Math.round(seconds * 1000) + " ms";
        }
        return seconds == Math.rint(seconds) ? (long) seconds + " s" : String.format(Locale.ROOT, "%.1f s", seconds);
    }

    /** A JMH time value: {@code 500ms}, {@code 2s}, {@code 1min}, {@code 10} (seconds). */
    static double seconds(final String value)
    {
        final String text = value.trim().toLowerCase(Locale.ROOT);
        final String[][] units = {{"ns", "1e-9"}, {"us", "1e-6"}, {"ms", "1e-3"}, {"min", "60"}, {"hr", "3600"},
            {"day", "86400"}, {"s", "1"}, {"m", "60"}, {"h", "3600"}};
        for (final String[] unit : units)
        {
            if (text.endsWith(unit[0]))
            {
                return Double.parseDouble(text.substring(0, text.length() - unit[0].length()).trim()) *
                    Double.parseDouble(unit[1]);
            }
        }
        return Double.parseDouble(text);
    }
}
