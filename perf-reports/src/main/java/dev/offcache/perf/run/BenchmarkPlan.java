package dev.offcache.perf.run;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The benchmarks a run will measure and how many parameter combinations each has, read from the output of
 * {@code benchmarks.jar -lp}. Used for progress ("how many left") and to list benchmarks that produced no result.
 */
public final class BenchmarkPlan
{
    private static final Pattern PARAM = Pattern.compile("^\\s+param \"([^\"]+)\" = \\{(.*)}\\s*$");

    private final Map<String, Integer> runsByBenchmark;

    private BenchmarkPlan(final Map<String, Integer> runsByBenchmark)
    {
        this.runsByBenchmark = runsByBenchmark;
    }

    /**
     * Parses the output of {@code -lp}.
     *
     * @param lines the listing's lines.
     * @return the plan.
     */
    public static BenchmarkPlan parse(final List<String> lines)
    {
        final Map<String, Integer> runs = new LinkedHashMap<>();
        String current = null;
        for (final String line : lines)
        {
            if (line.isBlank() || line.startsWith("Benchmarks:"))
            {
                continue;
            }
            final Matcher param = PARAM.matcher(line);
            if (param.matches() && current != null)
            {
                final int values = param.group(2).isBlank() ? 1 : param.group(2).split(",").length;
                runs.merge(current, values, (a, b) -> a * b);
            }
            else if (!Character.isWhitespace(line.charAt(0)) && line.indexOf('.') > 0 && !line.contains(" "))
            {
                current = line.trim();
                runs.put(current, 1);
            }
        }
        return new BenchmarkPlan(runs);
    }

    /**
     * The benchmarks, fully qualified, in JMH's order.
     *
     * @return benchmark names.
     */
    public List<String> benchmarks()
    {
        return new ArrayList<>(runsByBenchmark.keySet());
    }

    /**
     * The benchmark classes, in JMH's order.
     *
     * @return suite names.
     */
    public List<String> suites()
    {
        final Set<String> suites = new LinkedHashSet<>();
        runsByBenchmark.keySet().forEach(b -> suites.add(suiteOf(b)));
        return new ArrayList<>(suites);
    }

    /**
     * The number of benchmark runs (parameter combinations) expected; a benchmark with several modes runs more.
     *
     * @return the expected runs.
     */
    public int expectedRuns()
    {
        return runsByBenchmark.values().stream().mapToInt(Integer::intValue).sum();
    }

    /**
     * The runs expected of one benchmark class.
     *
     * @param suite a suite from {@link #suites()}.
     * @return its runs.
     */
    public int runsOf(final String suite)
    {
        return runsByBenchmark.entrySet().stream().filter(e -> suiteOf(e.getKey()).equals(suite))
            .mapToInt(Map.Entry::getValue).sum();
    }

    /**
     * Whether nothing matched.
     *
     * @return true when the plan is empty.
     */
    public boolean isEmpty()
    {
        return runsByBenchmark.isEmpty();
    }

    static String suiteOf(final String benchmark)
    {
        final int dot = benchmark.lastIndexOf('.');
        return dot > 0 ? benchmark.substring(0, dot) : benchmark;
    }
}
