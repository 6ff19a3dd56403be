package dev.offcache.perf.pairing;

import java.util.Comparator;
import java.util.List;

import dev.offcache.perf.jmh.Separation;

/**
 * A suite's speedups summed up without hiding their spread: the geometric mean beside the median pair, the worst
 * pair and the best pair, and how many pairs each side wins beyond the error bars. One extreme pair moves the mean
 * but not the median, and the worst pair is always in view.
 *
 * @param pairs          the pairs counted.
 * @param withSpeedup    pairs with a speedup (comparable units, non-zero scores); the statistics are over these.
 * @param oursBetter     pairs offcache wins beyond the intervals.
 * @param baselineBetter pairs the baseline wins beyond the intervals.
 * @param geometricMean  the geometric mean of the speedups, NaN when none.
 * @param median         the median pair (of an even number, the lower of the two middle ones; the report shows it
 *                       from three pairs on, as of two it is just the worse one), null when none.
 * @param worst          the pair with the lowest speedup, null when none.
 * @param best           the pair with the highest speedup, null when none.
 */
public record SpeedupSpread(int pairs, int withSpeedup, int oursBetter, int baselineBetter, double geometricMean,
    Comparison median, Comparison worst, Comparison best)
{
    /**
     * Sums up pairs.
     *
     * @param comparisons the pairs of a suite.
     * @return the spread.
     */
    public static SpeedupSpread of(final List<? extends Comparison> comparisons)
    {
        int oursBetter = 0;
        int baselineBetter = 0;
        for (final Comparison comparison : comparisons)
        {
            final Separation separation = comparison.separation();
            if (separation == Separation.FIRST_BETTER)
            {
                oursBetter++;
            }
            else if (separation == Separation.SECOND_BETTER)
            {
                baselineBetter++;
            }
        }
        final List<? extends Comparison> sorted = comparisons.stream()
            .filter(c -> Double.isFinite(c.speedup()))
            .sorted(Comparator.comparingDouble(Comparison::speedup))
            .toList();
        if (sorted.isEmpty())
        {
            return new SpeedupSpread(comparisons.size(), 0, oursBetter, baselineBetter, Double.NaN, null, null, null);
        }
        double logSum = 0;
        for (final Comparison comparison : sorted)
        {
            logSum += Math.log(comparison.speedup());
        }
        return new SpeedupSpread(comparisons.size(), sorted.size(), oursBetter, baselineBetter,
            Math.exp(logSum / sorted.size()), sorted.get((sorted.size() - 1) / 2), sorted.get(0),
            sorted.get(sorted.size() - 1));
    }

    /**
     * Pairs without a winner: inside the error bars, without error bars, or in units that do not compare.
     *
     * @return the count.
     */
    public int noClearWinner()
    {
        return pairs - oursBetter - baselineBetter;
    }
}
