package dev.offcache.range.store;

/**
 * Packs an object id and a block index into one {@code long} block key, so that store lookups allocate nothing.
 *
 * <p>The engine interns each {@code (namespace, objectKey)} to an object id below {@link #MAX_OBJECT_ID}. The
 * block index takes the low {@value #BLOCK_INDEX_BITS} bits: objects are at most 2^48 bytes (larger sizes are
 * rejected as implausible) and blocks at least 4 KiB, so 2^36 block indexes cover every object.
 */
public final class BlockKeys
{
    /** Bits of the block index. */
    public static final int BLOCK_INDEX_BITS = 36;
    /** Exclusive upper bound of object ids. */
    public static final long MAX_OBJECT_ID = 1L << (Long.SIZE - 1 - BLOCK_INDEX_BITS);
    /** Exclusive upper bound of block indexes. */
    public static final long MAX_BLOCK_INDEX = 1L << BLOCK_INDEX_BITS;

    private BlockKeys()
    {
    }

    /**
     * Packs an object id and a block index.
     *
     * @param objectId   interned id of the object, in {@code [0, MAX_OBJECT_ID)}.
     * @param blockIndex index of the block in the object, in {@code [0, MAX_BLOCK_INDEX)}.
     * @return the block key, never negative.
     */
    public static long pack(final long objectId, final long blockIndex)
    {
        if (objectId < 0 || objectId >= MAX_OBJECT_ID)
        {
            throw new IllegalArgumentException("object id out of range: " + objectId);
        }
        if (blockIndex < 0 || blockIndex >= MAX_BLOCK_INDEX)
        {
            throw new IllegalArgumentException("block index out of range: " + blockIndex);
        }
        return (objectId << BLOCK_INDEX_BITS) | blockIndex;
    }

    /**
     * The object id of a block key.
     *
     * @param blockKey a key made by {@link #pack(long, long)}.
     * @return the object id.
     */
    public static long objectId(final long blockKey)
    {
        return blockKey >>> BLOCK_INDEX_BITS;
    }

    /**
     * The block index of a block key.
     *
     * @param blockKey a key made by {@link #pack(long, long)}.
     * @return the block index.
     */
    public static long blockIndex(final long blockKey)
    {
        return blockKey & (MAX_BLOCK_INDEX - 1);
    }
}
