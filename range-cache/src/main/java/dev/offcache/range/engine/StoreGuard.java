package dev.offcache.range.engine;

import java.util.concurrent.CompletableFuture;

import org.agrona.MutableDirectBuffer;

import dev.offcache.core.slab.BlockRef;
import dev.offcache.range.fetch.BlockLookup;
import dev.offcache.range.metrics.RangeMetrics;
import dev.offcache.range.metrics.StoreFallback;
import dev.offcache.range.store.BlockFile;
import dev.offcache.range.store.BlockStore;

/**
 * The engine's one way into its {@link BlockStore} for reads, so that a store failure never fails a read: whatever the
 * store throws, and a block of the wrong length, is counted as a fallback ({@link StoreFallback}) and answered as a
 * miss, which the read then fetches from the origin. The read paths ({@link RangeCache}'s hit path,
 * {@link ReadOperation}, {@link BlockStream}, {@link SizeProbe}) and single flight's second look ({@link #anyTier},
 * {@link #memory}) all go through it.
 *
 * <p>Holds no memory of its own: the engine owns the store; a reference this hands out is the caller's to release.
 * Thread-safe as the store is.
 */
final class StoreGuard
{
    /** Single flight's second look in the store, any tier ({@link #acquire}). */
    final BlockLookup anyTier = this::acquire;
    /** Single flight's second look in the store's memory only ({@link #acquireInMemory}). */
    final BlockLookup memory = this::acquireInMemory;

    private final BlockStore store;
    private final RangeMetrics metrics;
    private final int blockSize;

    /**
     * Guards a store.
     *
     * @param store     the engine's store, or null for a pass-through engine (then {@link #contains},
     *                  {@link #copyHit} and {@link #acquire} always miss; the others are not called).
     * @param metrics   where fallbacks are counted.
     * @param blockSize bytes per block: the longest a block of an object of unknown size may be.
     */
    StoreGuard(final BlockStore store, final RangeMetrics metrics, final int blockSize)
    {
        this.store = store;
        this.metrics = metrics;
        this.blockSize = blockSize;
    }

    /**
     * Probes the store; any store failure counts as a fallback and a miss.
     */
    boolean contains(final long blockKey)
    {
        if (store == null)
        {
            return false;
        }
        try
        {
            return store.contains(blockKey);
        }
        catch (final Throwable ex)
        {
            metrics.fallback(StoreFallback.STORE_ERROR);
            return false;
        }
    }

    /**
     * Copies a hit out of the store; false on a miss, a store failure or a block of the wrong length (the latter two
     * counted as fallbacks). After false the destination range may hold anything: the slow path rewrites it.
     */
    boolean copyHit(
        final long blockKey,
        final int expectedLength,
        final int inBlock,
        final MutableDirectBuffer destination,
        final int offset,
        final int length)
    {
        if (store == null)
        {
            return false;
        }
        final int held;
        try
        {
            held = store.read(blockKey, inBlock, destination, offset, length);
        }
        catch (final Throwable ex)
        {
            metrics.fallback(StoreFallback.STORE_ERROR);
            return false;
        }
        if (held == expectedLength)
        {
            return true;
        }
        if (held >= 0)
        {
            metrics.fallback(StoreFallback.WRONG_LENGTH);
        }
        return false;
    }

    /** The store's block from any tier, or null for a miss; store failures and wrong lengths are fallbacks. */
    BlockRef acquire(final long blockKey, final int expectedLength)
    {
        if (store == null)
        {
            return null;
        }
        final BlockRef ref;
        try
        {
            ref = store.acquire(blockKey);
        }
        catch (final Throwable ex)
        {
            metrics.fallback(StoreFallback.STORE_ERROR);
            return null;
        }
        return checked(ref, expectedLength);
    }

    /** The store's memory-resident block, never waiting; store failures and wrong lengths are fallbacks (misses). */
    BlockRef acquireInMemory(final long blockKey, final int expectedLength)
    {
        final BlockRef ref;
        try
        {
            ref = store.acquireInMemory(blockKey);
        }
        catch (final Throwable ex)
        {
            metrics.fallback(StoreFallback.STORE_ERROR);
            return null;
        }
        return checked(ref, expectedLength);
    }

    /** A block the store keeps in a file, as an open region; store failures are fallbacks (misses). */
    BlockFile openFile(final long blockKey, final int expectedLength)
    {
        try
        {
            return store.openFile(blockKey, expectedLength);
        }
        catch (final Throwable ex)
        {
            metrics.fallback(StoreFallback.STORE_ERROR);
            return null;
        }
    }

    /** A load from the store's slower tier, or null for a miss; store failures are fallbacks (misses). */
    CompletableFuture<Boolean> loadAsync(final long blockKey)
    {
        try
        {
            return store.loadAsync(blockKey);
        }
        catch (final Throwable ex)
        {
            metrics.fallback(StoreFallback.STORE_ERROR);
            return null;
        }
    }

    /**
     * A reference of the expected length (any length up to a block when {@code expectedLength} is negative: the
     * object's size is not known yet), else released and counted as a fallback.
     */
    private BlockRef checked(final BlockRef ref, final int expectedLength)
    {
        if (ref != null && (expectedLength >= 0 ? ref.length() != expectedLength :
            ref.length() <= 0 || ref.length() > blockSize))
        {
            ref.release();
            metrics.fallback(StoreFallback.WRONG_LENGTH);
            return null;
        }
        return ref;
    }
}
