package dev.offcache.range.ram;

import dev.offcache.core.slab.BlockRef;

/**
 * Takes the owner reference of every block an {@link RamBlockStore} evicts, for an owner that keeps what RAM drops
 * somewhere else (the L2 server spills it to SSD), and hears of every block made resident (to keep its gauges).
 *
 * <p>Called on the store's maintenance writer, one call at a time and in the order of the store's changes: keep it
 * short and non-blocking (queue the work for another thread), do not throw, and call nothing of the store's but its
 * read-only getters ({@link RamBlockStore#sizeBytes()}, {@link RamBlockStore#residentBlocks()}).
 */
@FunctionalInterface
public interface EvictionListener
{
    /**
     * A block was evicted.
     *
     * @param blockKey the block's key.
     * @param ownerRef the store's reference on the block's slot, now the listener's if it returns true.
     * @param spill    the flag the block was published with ({@link RamBlockStore#publish}).
     * @return true to take the reference: the block stays readable ({@link RamBlockStore#acquire}) until the
     *         listener hands it back with {@link RamBlockStore#evictionDone}; false to let the store release it now.
     */
    boolean evicted(long blockKey, BlockRef ownerRef, boolean spill);

    /**
     * A block became resident.
     *
     * @param blockKey the block's key.
     * @param length   its length in bytes.
     */
    default void admitted(final long blockKey, final int length)
    {
    }
}
