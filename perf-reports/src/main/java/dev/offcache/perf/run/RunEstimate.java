package dev.offcache.perf.run;

import java.util.List;
import java.util.Locale;

/**
 * How long a run takes, from the number of benchmark runs (parameter combinations) and the effective JMH options:
 * {@code runs × forks × (warm-up iterations × time + measurement iterations × time)} of iterations, plus
 * {@value #FORK_SECONDS} s per fork for the JVM's start-up and the benchmark's trial set-up. That second term is why
 * the {@code quick} profile's estimate used to be half the real time: a quick fork iterates for 3.5 s, about what
 * starting it costs (a fresh JVM loading the benchmarks jar, then the trial's set-up: files generated, servers and
 * clusters started), while a {@code full} fork iterates for 20 s, so there the same cost hid in the rounding.
 * Measured: the committed {@code full} run (quiet machine) spent about 1.3 s per fork beyond its iterations; a
 * {@code quick} run of the slab and engine suites at load 18-27 spent 2.8 s (slab) to 7-25 s (engine) per fork.
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
    /** Start-up and trial set-up per fork on a quiet machine, in seconds (see above). */
    public static final double FORK_SECONDS = 2.0;

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
     * The time spent starting forks and setting up their trials ({@link #FORK_SECONDS} each).
     *
     * @return seconds.
     */
    public double forkSecondsTotal()
    {
        return (double) runs * forks * FORK_SECONDS;
    }

    /**
     * Iterations and forks together: what the run takes on a quiet machine, about.
     *
     * @return seconds.
     */
    public double totalSeconds()
    {
        return iterationSecondsTotal() + forkSecondsTotal();
    }

    /**
     * The estimate in words, for the progress output.
     *
     * @return for example {@code 58 runs × 3 forks × (5 × 2 s + 5 × 2 s) = 58 min of iterations, plus ...}.
     */
    public String describe()
    {
        return String.format(Locale.ROOT, "%d runs × %d fork%s × (%d × %s warm-up + %d × %s measurement) = %s of " +
            "iterations, plus %d forks × ~%s of JVM start-up and set-up = %s: about %s on a quiet machine (suites " +
            "that start servers or generate data take longer, and a loaded machine several times that)", runs,
            forks, forks == 1 ? "" : "s", warmupIterations, time(warmupSeconds), iterations, time(iterationSeconds),
            duration(iterationSecondsTotal()), runs * forks, time(FORK_SECONDS), duration(forkSecondsTotal()),
            duration(totalSeconds()));
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
