package dev.offcache.perf.jmh;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * One entry of a JMH JSON result file: one benchmark method in one mode, thread count and parameter combination.
 *
 * @param benchmark   fully qualified benchmark name, {@code package.Class.method}.
 * @param mode        JMH's short mode name: {@code thrpt}, {@code avgt}, {@code sample} or {@code ss}.
 * @param threads     benchmark threads.
 * @param forks       forks measured.
 * @param params      the {@code @Param} values of this run, in JMH's order.
 * @param primary     the primary metric.
 * @param secondary   secondary metrics by name, with the {@code ·} prefix of older JMH versions removed
 *                    (for example {@code gc.alloc.rate.norm}).
 * @param environment the JVM and JMH that produced the result.
 */
public record JmhResult(String benchmark, String mode, int threads, int forks, Map<String, String> params,
    Metric primary, Map<String, Metric> secondary, Environment environment)
{
    /** Name of the secondary metric with the bytes allocated per operation ({@code -prof gc}). */
    public static final String ALLOC_NORM = "gc.alloc.rate.norm";

    /**
     * Validates and freezes the result.
     */
    public JmhResult
    {
        if (benchmark == null || benchmark.lastIndexOf('.') <= 0)
        {
            throw new IllegalArgumentException("benchmark name must be package.Class.method but was " + benchmark);
        }
        params = Collections.unmodifiableMap(new LinkedHashMap<>(params));
        secondary = Collections.unmodifiableMap(new LinkedHashMap<>(secondary));
    }

    /**
     * The JVM and JMH a result came from.
     *
     * @param jmhVersion JMH version.
     * @param jdkVersion JDK version of the benchmark JVM.
     * @param vmName     VM name.
     * @param vmVersion  VM version.
     * @param jvmArgs    arguments of the forked JVM.
     * @param warmup     warm-up iterations and time, for example {@code "1 x 1 s"}.
     * @param measurement measurement iterations and time, for example {@code "3 x 1 s"}.
     */
    public record Environment(String jmhVersion, String jdkVersion, String vmName, String vmVersion,
        List<String> jvmArgs, String warmup, String measurement)
    {
        /**
         * Freezes the argument list.
         */
        public Environment
        {
            jvmArgs = List.copyOf(jvmArgs);
        }
    }

    /**
     * The benchmark class (the suite), fully qualified.
     *
     * @return {@code package.Class}.
     */
    public String suite()
    {
        return benchmark.substring(0, benchmark.lastIndexOf('.'));
    }

    /**
     * The benchmark method (or {@code @Group} name).
     *
     * @return the method name.
     */
    public String method()
    {
        return benchmark.substring(benchmark.lastIndexOf('.') + 1);
    }

    /**
     * The parameters as JMH prints them, for example {@code impl=offcache, size=4096}; empty when there are none.
     *
     * @return the label.
     */
    public String paramsLabel()
    {
        return params.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(", "));
    }

    /**
     * Bytes allocated per operation, when the run used {@code -prof gc}.
     *
     * @return the metric or null.
     */
    public Metric allocationPerOp()
    {
        return secondary.get(ALLOC_NORM);
    }

    /**
     * Identity of the run inside a result file: benchmark, mode, threads and every parameter. Two files' results
     * with the same key measured the same thing.
     *
     * @return the key.
     */
    public String key()
    {
        return benchmark + " [" + mode + ", " + threads + " thr" + (params.isEmpty() ? "" : ", " + paramsLabel()) + "]";
    }
}
