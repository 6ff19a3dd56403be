package dev.offcache.perf.pairing;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import dev.offcache.perf.jmh.JmhResult;

/**
 * Groups results by benchmark class and pairs offcache with its baselines by the {@link PairingConvention}.
 */
public final class Pairing
{
    private Pairing()
    {
    }

    /**
     * Pairs a result set.
     *
     * @param results results of one run.
     * @return one entry per benchmark class, sorted by class name.
     */
    public static List<SuiteResults> pair(final List<JmhResult> results)
    {
        final Map<String, List<JmhResult>> bySuite = new TreeMap<>();
        for (final JmhResult result : results)
        {
            bySuite.computeIfAbsent(result.suite(), s -> new ArrayList<>()).add(result);
        }
        final List<SuiteResults> suites = new ArrayList<>();
        bySuite.forEach((suite, suiteResults) -> suites.add(pairSuite(suite, suiteResults)));
        return suites;
    }

    private static SuiteResults pairSuite(final String suite, final List<JmhResult> results)
    {
        final Map<String, Group> groups = new LinkedHashMap<>();
        final List<JmhResult> standalone = new ArrayList<>();
        final Set<String> oursOps = new HashSet<>();
        for (final JmhResult result : results)
        {
            final Implementation implementation = PairingConvention.implementationOf(result);
            if (implementation.role() == Role.OURS)
            {
                oursOps.add(implementation.operation());
            }
        }
        for (final JmhResult result : results)
        {
            final Implementation implementation = PairingConvention.resolveMethodBaseline(
                PairingConvention.implementationOf(result), oursOps);
            if (implementation.role() == Role.STANDALONE)
            {
                standalone.add(result);
                continue;
            }
            final Group group = groups.computeIfAbsent(
                PairingConvention.pairKey(result, implementation), k -> new Group(implementation.operation()));
            if (implementation.role() == Role.OURS)
            {
                group.ours.add(result);
                group.oursNames.add(implementation.name());
            }
            else
            {
                group.baselines.add(result);
                group.baselineNames.add(implementation.name());
            }
        }
        final List<PairedResult> pairs = new ArrayList<>();
        for (final Group group : groups.values())
        {
            if (group.ours.isEmpty() || group.baselines.isEmpty())
            {
                standalone.addAll(group.ours);
                standalone.addAll(group.baselines);
                continue;
            }
            for (int o = 0; o < group.ours.size(); o++)
            {
                for (int b = 0; b < group.baselines.size(); b++)
                {
                    pairs.add(new PairedResult(group.ours.get(o), group.baselines.get(b), group.operation,
                        group.oursNames.get(o), group.baselineNames.get(b)));
                }
            }
        }
        return new SuiteResults(suite, pairs, standalone);
    }

    private static final class Group
    {
        private final String operation;
        private final List<JmhResult> ours = new ArrayList<>();
        private final List<String> oursNames = new ArrayList<>();
        private final List<JmhResult> baselines = new ArrayList<>();
        private final List<String> baselineNames = new ArrayList<>();

        private Group(final String operation)
        {
            this.operation = operation;
        }
    }
}
