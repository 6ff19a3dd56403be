package dev.offcache.perf.run;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.LongSupplier;

import dev.offcache.perf.pairing.SuiteResults;

/**
 * Turns JMH's console output into one progress line per benchmark run: which run of how many, which suite and how
 * many suites are left, the time elapsed and JMH's own estimate of the time remaining.
 */
public final class ProgressTracker
{
    private static final String BENCHMARK = "# Benchmark: ";
    private static final String PARAMETERS = "# Parameters: ";
    private static final String RUN_PROGRESS = "# Run progress: ";

    private final List<String> suites;
    private final int expectedRuns;
    private final LongSupplier nanoClock;
    private final long startNanos;
    private final Set<String> suitesStarted = new HashSet<>();
    private String benchmark;
    private String parameters = "";
    private int runs;
    private int failures;

    /**
     * Creates a tracker for a plan.
     *
     * @param plan      what the run will measure.
     * @param nanoClock the clock, {@code System::nanoTime} outside tests.
     */
    public ProgressTracker(final BenchmarkPlan plan, final LongSupplier nanoClock)
    {
        this.suites = plan.suites();
        this.expectedRuns = plan.expectedRuns();
        this.nanoClock = nanoClock;
        this.startNanos = nanoClock.getAsLong();
    }

    /**
     * Feeds one line of JMH's output.
     *
     * @param line a line.
     * @return a progress line to show, or null.
     */
    public String onLine(final String line)
    {
        if (line.startsWith(BENCHMARK))
        {
            benchmark = line.substring(BENCHMARK.length()).trim();
            parameters = "";
            runs++;
            suitesStarted.add(BenchmarkPlan.suiteOf(benchmark));
            return null;
        }
        if (line.startsWith(PARAMETERS))
        {
            parameters = " " + line.substring(PARAMETERS.length()).trim();
            return null;
        }
        if (line.startsWith(RUN_PROGRESS) && benchmark != null)
        {
            final String suite = BenchmarkPlan.suiteOf(benchmark);
            // JMH runs suites in its own order, not the listing's: count suites in the order they start.
            final int suiteIndex = suitesStarted.size();
            final int suitesLeft = Math.max(0, suites.size() - suitesStarted.size());
            final String eta = line.contains("ETA ") ? line.substring(line.indexOf("ETA ") + 4).trim() : "?";
            return String.format(Locale.ROOT,
                "[perf] run %d/%s · suite %s (%d of %d, %d after it) · %s%s · elapsed %s · JMH ETA %s",
                runs, runs > expectedRuns ? "?" : Integer.toString(expectedRuns), SuiteResults.shorten(suite),
                suiteIndex, suites.size(), suitesLeft, benchmark.substring(benchmark.lastIndexOf('.') + 1),
                parameters, elapsed(), eta);
        }
        if (line.startsWith("<failure>") && benchmark != null)
        {
            failures++;
            return "[perf] FAILED: " + SuiteResults.shorten(benchmark) + parameters + " (stack trace in the JMH log)";
        }
        return null;
    }

    /**
     * Benchmark runs started so far.
     *
     * @return runs.
     */
    public int runsStarted()
    {
        return runs;
    }

    /**
     * Benchmark runs that failed so far.
     *
     * @return failures.
     */
    public int failures()
    {
        return failures;
    }

    /**
     * Time since the tracker was created.
     *
     * @return {@code m:ss} or {@code h:mm:ss}.
     */
    public String elapsed()
    {
        final long seconds = (nanoClock.getAsLong() - startNanos) / 1_000_000_000L;
        return seconds >= 3600 ?
            String.format(Locale.ROOT, "%d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60) :
            String.format(Locale.ROOT, "%d:%02d", seconds / 60, seconds % 60);
    }
}
