package dev.offcache.perf.compare;

/**
 * What happened to one benchmark between a baseline result set and a candidate.
 */
public enum ChangeVerdict
{
    /** Worse, and the 99.9% confidence intervals do not overlap. */
    REGRESSION,
    /** Better, and the confidence intervals do not overlap. */
    IMPROVEMENT,
    /** The confidence intervals overlap: no change can be claimed. */
    WITHIN_ERROR,
    /** A side has no error estimate (a single iteration): the change is shown but not judged. */
    NO_ERROR_BARS,
    /** The units cannot be converted into each other. */
    INCOMPARABLE,
    /** Only in the candidate. */
    ADDED,
    /** Only in the baseline. */
    REMOVED
}
