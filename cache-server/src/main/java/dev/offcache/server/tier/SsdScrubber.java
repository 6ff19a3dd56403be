package dev.offcache.server.tier;

import org.agrona.MutableDirectBuffer;

/**
 * Re-reads an {@link SsdTier}'s block files and checks their CRC32C in the background, so damage done to a file after
 * its first check (bit rot, a stray write) is found even for blocks that are sent straight from their files. Walks the
 * blocks in publication order from where the last call stopped, wrapping around; a damaged block is dropped and
 * counted like any other, a good one is marked verified (so prefetched blocks can go out with sendfile without a
 * first read).
 *
 * <p>Its cursor is guarded by the tier's monitor; the file reads run outside it, on the caller's thread (the
 * store's spill writer when it idles).
 */
final class SsdScrubber
{
    private final SsdTier tier;
    private final TierCounters metrics;
    private long cursor = -1;

    SsdScrubber(final SsdTier tier, final TierCounters metrics)
    {
        this.tier = tier;
        this.metrics = metrics;
    }

    /**
     * Checks the next blocks, at most one pass over the blocks there were when the call started.
     *
     * @param maxBytes about how many file bytes to check in this call.
     * @param staging  a buffer of at least one block, owned by the caller.
     * @return the file bytes checked.
     */
    long scrub(final long maxBytes, final MutableDirectBuffer staging)
    {
        long checked = 0;
        int blocks = 0;
        int limit = -1;
        while (checked < maxBytes)
        {
            final SsdTier.Entry entry;
            synchronized (tier)
            {
                if (limit < 0)
                {
                    limit = tier.blockCount();
                }
                if (tier.isClosed() || blocks >= limit)
                {
                    return checked;
                }
                entry = tier.nextAfter(cursor);
                if (null == entry)
                {
                    return checked;
                }
                cursor = entry.sequence();
            }
            blocks++;
            checked += entry.fileBytes();
            if (entry.length() <= staging.capacity())
            {
                tier.check(entry, staging);
                metrics.ssdScrubbedBlocks.increment();
            }
        }
        return checked;
    }
}
