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

    /**
     * The block lies past the end of its object: a whole block was asked for before the object's size was known
     * (a cold read that learns the size from the answer), and the answer ended before it. Nothing was cached; not a
     * failure of the fetch. The default fails the waiter as a read past the end does
     * ({@link IllegalArgumentException}); a waiter that only wanted the answer's news (the size probe) overrides it
     * and allocates nothing.
     *
     * @param blockIndex the block's index in its object.
     * @param objectSize the object's size the answer told, or -1 when it told none (it ended before the block).
     */
    default void onBlockPastEnd(final long blockIndex, final long objectSize)
    {
        onBlockFailed(blockIndex, new IllegalArgumentException("block " + blockIndex +
            " lies past the end of the object" + (objectSize >= 0 ? " (" + objectSize + " bytes)" : "")));
    }

    /**
     * Told by single flight ({@link BlockFetcher#claim}) which fetch the waiter is about to wait on, before it can
     * hear of the block: a fetch in flight it joins, or a new one it owns. Told again when that fetch turns out to be
     * over (or claimed by another reader first) and another is tried: the last call is the one that holds. Runs on the
     * claiming thread; the default records nothing.
     *
     * @param blockIndex the block's index in its object.
     * @param fetch      the fetch.
     * @param owner      whether the waiter owns it (else it joins another reader's fetch).
     */
    default void waitsOn(final long blockIndex, final BlockFetch fetch, final boolean owner)
    {
    }
}
