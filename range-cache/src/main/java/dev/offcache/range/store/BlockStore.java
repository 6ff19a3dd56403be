package dev.offcache.range.store;

import java.util.concurrent.CompletableFuture;

import dev.offcache.core.slab.BlockRef;
import dev.offcache.range.metrics.MetricFamilies;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Where the range-cache engine keeps blocks: the RAM block store (off-heap RAM slabs) in an engine process, the tiered
 * RAM + SSD store in the L2 server. The engine decides what to fetch; the store decides what to keep.
 *
 * <p>Blocks are addressed by a packed {@code long} key (see {@link BlockKeys}) so a lookup allocates nothing.
 * Implementations are thread-safe. Memory: the store owns every slot it holds; a reader owns the one reference
 * that {@link #acquire(long)} hands out until it calls {@link BlockRef#release()}.
 */
public interface BlockStore extends AutoCloseable
{
    /**
     * Looks up a block and takes a reader's reference to it.
     *
     * @param blockKey the packed key of the block.
     * @return a retained reference the caller must release, or {@code null} on a miss.
     */
    BlockRef acquire(long blockKey);

    /**
     * Copies bytes of a held block into a caller's buffer: the engine's copy hit path, which keeps no view and so
     * needs no reference once it returns. Copies {@code min(length, blockLength - offsetInBlock)} bytes (none when
     * the offset is at or past the block's end). The default acquires, copies and releases; a store may copy
     * without touching the reference count ({@link BlockRef#tryCopy}), as the RAM block store does. Counts as a lookup,
     * like {@code acquire}.
     *
     * @param blockKey      the packed key of the block.
     * @param offsetInBlock where in the block to start, {@code >= 0}.
     * @param destination   where to copy to.
     * @param destOffset    where in {@code destination} to start.
     * @param length        the most bytes to copy, {@code >= 0}.
     * @return the length of the held block the bytes came from, for the caller to check against the length it
     *     expects; or {@code -1} on a miss, with nothing copied.
     * @throws IllegalArgumentException if {@code offsetInBlock} or {@code length} is negative.
     */
    default int read(
        final long blockKey,
        final int offsetInBlock,
        final MutableDirectBuffer destination,
        final int destOffset,
        final int length)
    {
        checkRead(offsetInBlock, length);
        final BlockRef ref = acquire(blockKey);
        if (ref == null)
        {
            return -1;
        }
        try
        {
            final int blockLength = ref.length();
            final int count = copyLength(blockLength, offsetInBlock, length);
            if (count > 0)
            {
                destination.putBytes(destOffset, ref.buffer(), offsetInBlock, count);
            }
            return blockLength;
        }
        finally
        {
            ref.release();
        }
    }

    /**
     * Refuses negative arguments of {@link #read}.
     *
     * @param offsetInBlock where in the block to start.
     * @param length        the most bytes to copy.
     * @throws IllegalArgumentException if either is negative.
     */
    static void checkRead(final int offsetInBlock, final int length)
    {
        if (offsetInBlock < 0 || length < 0)
        {
            throw new IllegalArgumentException(
                "offsetInBlock and length must be >= 0: offsetInBlock=" + offsetInBlock + ", length=" + length);
        }
    }

    /**
     * How many bytes {@link #read} copies out of a block of {@code blockLength} bytes.
     *
     * @param blockLength   the block's length.
     * @param offsetInBlock where in the block to start, {@code >= 0}.
     * @param length        the most bytes wanted, {@code >= 0}.
     * @return {@code min(length, blockLength - offsetInBlock)}, or 0 when the offset is at or past the end.
     */
    static int copyLength(final int blockLength, final int offsetInBlock, final int length)
    {
        return offsetInBlock >= blockLength ? 0 : Math.min(length, blockLength - offsetInBlock);
    }

    /**
     * Like {@link #acquire(long)}, but never does I/O or waits, so an event loop may call it: a tiered store answers
     * from its memory tier only. The default is {@code acquire}, right for a store that lives in memory.
     *
     * @param blockKey the packed key of the block.
     * @return a retained reference the caller must release, or {@code null} when the block is not in memory.
     */
    default BlockRef acquireInMemory(final long blockKey)
    {
        return acquire(blockKey);
    }

    /**
     * A block the store keeps in a file and can hand out as an open file region without reading it (sent with
     * sendfile by the L2 server), or {@code null}. Like {@link #acquireInMemory(long)} it never waits for I/O beyond
     * opening a file, so an event loop may call it. The default keeps no blocks in files.
     *
     * @param blockKey       the packed key of the block.
     * @param expectedLength the length the block must have; a block of another length is not returned.
     * @return the open block (the caller owns one reference and releases it), or {@code null}.
     */
    default BlockFile openFile(final long blockKey, final int expectedLength)
    {
        return null;
    }

    /**
     * Starts making a block the store holds in a slower tier available without waiting (read and checked on the
     * store's own threads), for a caller that must not wait: the returned future completes with {@code true} when
     * {@link #acquireInMemory(long)} or {@link #openFile(long, int)} will now find the block, or {@code false} when it
     * turned out not to be there or failed its check (then it is a miss). Returns {@code null} at once when there is
     * nothing to load. A stream calls it after {@link #acquireInMemory(long)} and {@link #openFile(long, int)} found
     * nothing, and looks again when it completes. The default has no slower tier.
     *
     * @param blockKey the packed key of the block.
     * @return the load in progress, or {@code null} for a miss.
     */
    default CompletableFuture<Boolean> loadAsync(final long blockKey)
    {
        return null;
    }

    /**
     * Whether the store holds a block, for a prefetch that only needs to know whether to fetch it: unlike
     * {@link #acquire(long)}, a tiered store must not promote the block (a prefetch must never take a faster tier's
     * space). The default probes with {@code acquire} and releases at once.
     *
     * @param blockKey the packed key of the block.
     * @return whether a lookup would find the block now.
     */
    default boolean contains(final long blockKey)
    {
        final BlockRef ref = acquire(blockKey);
        if (ref == null)
        {
            return false;
        }
        ref.release();
        return true;
    }

    /**
     * A free slot of the store's memory for a block about to be fetched, so the origin's answer lands in it with no
     * copy ({@link #commit}); null when the store takes blocks only through {@link #put} (the default), holds the
     * block already, or has no slot free (a reservation evicts nothing: blocks of a run past the end of an object of
     * unknown size get no bytes, and must not push out resident ones). The caller owns the returned reference: it
     * hands it to {@link #commit} or releases it.
     *
     * @param blockKey   the packed key of the block.
     * @param fetchClass why the block is fetched (a store may place prefetched blocks elsewhere and answer null).
     * @return a slot of at least one block's size, or null.
     */
    default BlockRef reserve(final long blockKey, final FetchClass fetchClass)
    {
        return null;
    }

    /**
     * Keeps a block fetched into a slot from {@link #reserve}: takes the caller's reference to it, whatever it
     * answers.
     *
     * @param blockKey   the packed key of the block.
     * @param slot       the filled slot, its {@link BlockRef#length(int)} set to the block's length.
     * @param fetchClass why the block was fetched.
     * @return whether the store holds the block now (this slot, or the same block put meanwhile).
     */
    default boolean commit(final long blockKey, final BlockRef slot, final FetchClass fetchClass)
    {
        try
        {
            return put(blockKey, slot.buffer(), 0, slot.length(), fetchClass);
        }
        finally
        {
            slot.release();
        }
    }

    /**
     * Offers a block fetched from the next level. The store copies the bytes into memory it owns (the caller keeps
     * ownership of {@code source}) or declines them, for example when admission rejects them or no slot is free.
     *
     * @param blockKey   the packed key of the block.
     * @param source     the block's bytes.
     * @param offset     where the block starts in {@code source}.
     * @param length     the block's length: the block size, or less for the last block of an object.
     * @param fetchClass why the block was fetched; a store may place prefetched blocks differently.
     * @return whether the store kept the block.
     */
    boolean put(long blockKey, DirectBuffer source, int offset, int length, FetchClass fetchClass);

    /**
     * The bytes of block data held now.
     *
     * @return held bytes.
     */
    long sizeBytes();

    /**
     * Adds the store's own metric families to a scrape, read at scrape time (never on the hit path). Lookups are
     * not the store's to count: the engine counts each once ({@code offcache_range_block_*}), because it may probe
     * the store more than once for one lookup (before and after claiming a fetch). The default adds nothing.
     *
     * @param out the scrape's families.
     */
    default void collectInto(final MetricFamilies out)
    {
    }

    /**
     * Frees every slot and mapping the store owns; blocks that readers still hold are freed when they release.
     */
    @Override
    void close();
}
