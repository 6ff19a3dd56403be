package dev.offcache.perf.pairing;

/**
 * What a benchmark result stands for in a comparison, by the pairing convention of {@link PairingConvention}.
 */
public enum Role
{
    /** offcache's own implementation. */
    OURS,
    /** A baseline it is compared against (Caffeine, FileChannel, a synchronized map, ...). */
    BASELINE,
    /** Neither: a benchmark without a baseline, reported on its own. */
    STANDALONE
}
