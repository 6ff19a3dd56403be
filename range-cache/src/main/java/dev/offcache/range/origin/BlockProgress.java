package dev.offcache.range.origin;

/**
 * Told by {@link ObjectStore#readBlocks} each time one of its destinations holds all its bytes, on the reading thread
 * and in destination order, so the engine can hand a block on while the rest of the answer is still arriving.
 */
@FunctionalInterface
public interface BlockProgress
{
    /**
     * Destination {@code index} holds its bytes: it is full, or the answer ended in it.
     *
     * @param index the destination's index.
     * @param bytes the bytes it holds (less than its length only where the object ends).
     */
    void filled(int index, int bytes);
}
