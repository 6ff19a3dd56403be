package dev.offcache.perf.pairing;

import java.util.List;

import dev.offcache.perf.jmh.JmhResult;

/**
 * The results of one benchmark class: the pairs of ours against a baseline and the results that have no partner.
 *
 * @param suite      the benchmark class, fully qualified.
 * @param pairs      ours against each baseline, in file order.
 * @param standalone results without a partner: standalone benchmarks, ours without a baseline, baselines without
 *                   ours.
 */
public record SuiteResults(String suite, List<PairedResult> pairs, List<JmhResult> standalone)
{
    /** Package prefix every offcache benchmark shares; left out of displayed names. */
    public static final String BENCHMARKS_PACKAGE = "dev.offcache.benchmarks.";

    /**
     * Freezes the lists.
     */
    public SuiteResults
    {
        pairs = List.copyOf(pairs);
        standalone = List.copyOf(standalone);
    }

    /**
     * The suite name without the common package, for example {@code slab.SlabBenchmark}.
     *
     * @return the short name.
     */
    public String shortName()
    {
        return shorten(suite);
    }

    /**
     * A class or benchmark name without the common offcache benchmarks package.
     *
     * @param name a fully qualified name.
     * @return the name relative to {@code dev.offcache.benchmarks}.
     */
    public static String shorten(final String name)
    {
        return name.startsWith(BENCHMARKS_PACKAGE) ? name.substring(BENCHMARKS_PACKAGE.length()) : name;
    }
}
