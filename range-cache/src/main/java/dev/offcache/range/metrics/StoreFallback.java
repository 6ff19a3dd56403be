package dev.offcache.range.metrics;

import java.util.Locale;

/**
 * Why the engine routed around its block store (the read went on to the next level), the {@code reason} label of
 * {@code offcache_range_fallbacks_total}. Distinct from the L2 client's own {@code FallbackReason}: these are
 * failures of the local store, not of a remote hop.
 */
public enum StoreFallback
{
    /** A store call (probe, acquire) threw. */
    STORE_ERROR,
    /** The store returned a block whose length is not the block's: treated as a miss. */
    WRONG_LENGTH,
    /** Keeping a fetched block threw: the read is served, the block is not kept. */
    PUT_ERROR;

    /**
     * The label value.
     *
     * @return for example {@code store_error}.
     */
    public String label()
    {
        return name().toLowerCase(Locale.ROOT);
    }
}
