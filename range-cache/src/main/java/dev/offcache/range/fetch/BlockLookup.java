package dev.offcache.range.fetch;

import dev.offcache.core.slab.BlockRef;

/**
 * Single flight's second look in the store ({@link BlockFetcher#claim}): a block a reader has just claimed may have
 * been stored by a fetch that ended between the reader's first look and its claim.
 */
@FunctionalInterface
public interface BlockLookup
{
    /**
     * The store's block, retained for the caller (who releases it), or null for a miss; never throws (a store failure
     * is a miss) and never waits on a slower tier longer than the store's own read does.
     *
     * @param blockKey       the store key.
     * @param expectedLength the block's length, or -1 to take it at any length up to a block.
     * @return a reference, or null.
     */
    BlockRef acquire(long blockKey, int expectedLength);
}
