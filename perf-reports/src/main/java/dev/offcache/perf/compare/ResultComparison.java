package dev.offcache.perf.compare;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.offcache.perf.jmh.JmhResult;
import dev.offcache.perf.jmh.Metric;
import dev.offcache.perf.jmh.ScoreUnits;
import dev.offcache.perf.jmh.Separation;

/**
 * Compares a candidate result set with a baseline result set, benchmark by benchmark. A benchmark regressed when its
 * score moved in the worse direction (lower throughput, higher time per operation) and JMH's 99.9% confidence
 * intervals of the two scores do not overlap; anything inside the error bars is not a change.
 */
public final class ResultComparison
{
    /**
     * Allocation per operation must grow by at least this many bytes to be flagged: JMH's own bookkeeping shows up
     * as fractions of a byte per operation even in allocation-free code.
     */
    public static final double ALLOCATION_SLACK_BYTES = 1.0;

    private ResultComparison()
    {
    }

    /**
     * Compares two result sets.
     *
     * @param baseline  the reference results.
     * @param candidate the new results.
     * @return one change per benchmark in either set: the baseline's order first, then the added ones.
     */
    public static List<Change> compare(final List<JmhResult> baseline, final List<JmhResult> candidate)
    {
        final Map<String, JmhResult> candidates = new LinkedHashMap<>();
        candidate.forEach(r -> candidates.put(r.key(), r));
        final List<Change> changes = new ArrayList<>();
        for (final JmhResult base : baseline)
        {
            final JmhResult cand = candidates.remove(base.key());
            if (cand == null)
            {
                changes.add(new Change(base.key(), base, null, ChangeVerdict.REMOVED, false));
            }
            else
            {
                changes.add(new Change(base.key(), base, cand, verdict(base.primary(), cand.primary()),
                    allocationRegressed(base, cand)));
            }
        }
        candidates.values().forEach(c -> changes.add(new Change(c.key(), null, c, ChangeVerdict.ADDED, false)));
        return changes;
    }

    private static ChangeVerdict verdict(final Metric baseline, final Metric candidate)
    {
        return verdict(baseline, candidate, ScoreUnits.higherIsBetter(baseline.unit()));
    }

    /**
     * The verdict on one score that moved from a baseline result set to a candidate.
     *
     * @param baseline       the score before.
     * @param candidate      the score after.
     * @param higherIsBetter which way is better.
     * @return the verdict.
     */
    static ChangeVerdict verdict(final Metric baseline, final Metric candidate, final boolean higherIsBetter)
    {
        return switch (Separation.of(baseline, candidate, higherIsBetter))
        {
            case FIRST_BETTER -> ChangeVerdict.REGRESSION;
            case SECOND_BETTER -> ChangeVerdict.IMPROVEMENT;
            case OVERLAP -> ChangeVerdict.WITHIN_ERROR;
            case NO_ERROR_BARS -> ChangeVerdict.NO_ERROR_BARS;
            case INCOMPARABLE -> ChangeVerdict.INCOMPARABLE;
        };
    }

    private static boolean allocationRegressed(final JmhResult baseline, final JmhResult candidate)
    {
        final Metric before = baseline.allocationPerOp();
        final Metric after = candidate.allocationPerOp();
        if (before == null || after == null || !before.unit().equals(after.unit()))
        {
            return false;
        }
        // B/op is lower-is-better, so "first better" means the baseline allocated less.
        return Separation.of(before, after) == Separation.FIRST_BETTER &&
            after.score() - before.score() >= ALLOCATION_SLACK_BYTES;
    }
}
