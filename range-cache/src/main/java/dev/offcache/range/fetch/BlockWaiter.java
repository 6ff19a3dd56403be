package dev.offcache.range.fetch;

import org.agrona.DirectBuffer;

/**
 * Someone waiting for a block in flight: a read copying it into its caller's buffer, or a prefetch that only
 * wants it stored. Called on the thread that completes the fetch; must not block.
 */
public interface BlockWaiter
{
    /**
     * The block arrived. The bytes are valid only during this call.
     *
     * @param blockIndex the block's index in its object.
     * @param source     the bytes.
     * @param offset     where the block starts in {@code source}.
     * @param length     the block's length.
     */
    void onBlock(long blockIndex, DirectBuffer source, int offset, int length);

    /**
     * The fetch failed; nothing was cached.
     *
     * @param blockIndex the block's index in its object.
     * @param cause      the same error every waiter of the fetch gets.
     */
    void onBlockFailed(long blockIndex, Throwable cause);
}
