package dev.offcache.perf.jmh;

/**
 * How two scores of the same quantity relate once JMH's error bars are taken into account: one is better only when
 * the two 99.9% confidence intervals do not overlap.
 */
public enum Separation
{
    /** The first score is better and the intervals do not overlap. */
    FIRST_BETTER,
    /** The second score is better and the intervals do not overlap. */
    SECOND_BETTER,
    /** The intervals overlap: no difference can be claimed. */
    OVERLAP,
    /** At least one side has no error estimate (a single iteration), so nothing can be claimed. */
    NO_ERROR_BARS,
    /** The units cannot be converted into each other (for example {@code ops/s} against {@code us/op}). */
    INCOMPARABLE;

    /**
     * Compares two metrics, converting the second into the first one's unit. Which direction is better follows
     * from the unit ({@link ScoreUnits#higherIsBetter(String)}).
     *
     * @param first  a metric.
     * @param second a metric in a compatible unit.
     * @return the separation.
     */
    public static Separation of(final Metric first, final Metric second)
    {
        return of(first, second, ScoreUnits.higherIsBetter(first.unit()));
    }

    /**
     * Compares two metrics whose better direction is known from elsewhere (a measurement file says it), converting
     * the second into the first one's unit.
     *
     * @param first          a metric.
     * @param second         a metric in a compatible unit.
     * @param higherIsBetter whether a higher score is better.
     * @return the separation.
     */
    public static Separation of(final Metric first, final Metric second, final boolean higherIsBetter)
    {
        if (!ScoreUnits.compatible(second.unit(), first.unit()))
        {
            return INCOMPARABLE;
        }
        final Metric other = second.in(first.unit());
        if (!first.hasErrorBars() || !other.hasErrorBars())
        {
            return NO_ERROR_BARS;
        }
        if (first.lower() > other.upper())
        {
            return higherIsBetter ? FIRST_BETTER : SECOND_BETTER;
        }
        if (other.lower() > first.upper())
        {
            return higherIsBetter ? SECOND_BETTER : FIRST_BETTER;
        }
        return OVERLAP;
    }
}
