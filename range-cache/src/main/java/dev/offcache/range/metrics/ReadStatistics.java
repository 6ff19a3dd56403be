package dev.offcache.range.metrics;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * What the reads of one caller (an engine adapter's input stream) did in a range cache, counted exactly as the
 * engine serves them: blocks found in the store and blocks missed (of those, blocks another read was already
 * fetching), the origin requests this caller's reads sent and the bytes they brought (gap blocks read through
 * included), of those the requests L2 served and, for the others sent to L2, why the source served them
 * instead (a failed L2 read, an answer for another object size, a size that could not be checked), the bytes handed
 * to the caller from cached blocks and from fetched ones, and the reads the cache failed that the caller served
 * from its own source. A caller passes one to the {@code RangeCache} reads that take it; the engine's
 * {@link RangeMetrics} (and an L2 server's own counters) count the same events for every caller of the engine.
 *
 * <p>Threads: hits are counted on the reading thread, misses on whichever thread completes the fetch, and one
 * caller may run positional reads on several threads at once, so every update is one atomic add on a plain
 * {@code long} field (a {@link VarHandle}: no counter objects, nothing allocated per read). A read's counts are
 * all in place before its call returns or its future completes. The recording methods are the engine's (and its
 * origin's), except {@link #fallback()} and {@link #fallbackBytes(long)}, which the caller records around its own
 * fallback read. Heap-only, owned by the caller; nothing to free.
 */
public final class ReadStatistics
{
    private static final VarHandle BLOCK_HITS;
    private static final VarHandle HIT_BYTES;
    private static final VarHandle BLOCK_MISSES;
    private static final VarHandle JOINED_BLOCKS;
    private static final VarHandle MISS_BYTES;
    private static final VarHandle ORIGIN_REQUESTS;
    private static final VarHandle ORIGIN_BYTES;
    private static final VarHandle L2_HITS;
    private static final VarHandle L2_BYTES;
    private static final VarHandle L2_FALLBACKS;
    private static final VarHandle L2_SIZE_MISMATCHES;
    private static final VarHandle L2_UNVERIFIED;
    private static final VarHandle FALLBACKS;
    private static final VarHandle FALLBACK_BYTES;

    static
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            BLOCK_HITS = lookup.findVarHandle(ReadStatistics.class, "blockHits", long.class);
            HIT_BYTES = lookup.findVarHandle(ReadStatistics.class, "hitBytes", long.class);
            BLOCK_MISSES = lookup.findVarHandle(ReadStatistics.class, "blockMisses", long.class);
            JOINED_BLOCKS = lookup.findVarHandle(ReadStatistics.class, "joinedBlocks", long.class);
            MISS_BYTES = lookup.findVarHandle(ReadStatistics.class, "missBytes", long.class);
            ORIGIN_REQUESTS = lookup.findVarHandle(ReadStatistics.class, "originRequests", long.class);
            ORIGIN_BYTES = lookup.findVarHandle(ReadStatistics.class, "originBytes", long.class);
            L2_HITS = lookup.findVarHandle(ReadStatistics.class, "l2Hits", long.class);
            L2_BYTES = lookup.findVarHandle(ReadStatistics.class, "l2Bytes", long.class);
            L2_FALLBACKS = lookup.findVarHandle(ReadStatistics.class, "l2Fallbacks", long.class);
            L2_SIZE_MISMATCHES = lookup.findVarHandle(ReadStatistics.class, "l2SizeMismatches", long.class);
            L2_UNVERIFIED = lookup.findVarHandle(ReadStatistics.class, "l2Unverified", long.class);
            FALLBACKS = lookup.findVarHandle(ReadStatistics.class, "fallbacks", long.class);
            FALLBACK_BYTES = lookup.findVarHandle(ReadStatistics.class, "fallbackBytes", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private volatile long blockHits;
    private volatile long hitBytes;
    private volatile long blockMisses;
    private volatile long joinedBlocks;
    private volatile long missBytes;
    private volatile long originRequests;
    private volatile long originBytes;
    private volatile long l2Hits;
    private volatile long l2Bytes;
    private volatile long l2Fallbacks;
    private volatile long l2SizeMismatches;
    private volatile long l2Unverified;
    private volatile long fallbacks;
    private volatile long fallbackBytes;

    /**
     * Blocks the store served, and the bytes copied from them to the caller.
     *
     * @param blocks blocks found in the store.
     * @param bytes  bytes copied from them.
     */
    public void hits(final int blocks, final long bytes)
    {
        BLOCK_HITS.getAndAdd(this, (long) blocks);
        HIT_BYTES.getAndAdd(this, bytes);
    }

    /** A block the store did not hold. */
    public void miss()
    {
        BLOCK_MISSES.getAndAdd(this, 1L);
    }

    /** Of the misses: one whose fetch another read had in flight (this read sent nothing for it). */
    public void joined()
    {
        JOINED_BLOCKS.getAndAdd(this, 1L);
    }

    /**
     * Bytes copied to the caller from blocks that missed (fetched by this read or by the read it joined).
     *
     * @param bytes bytes copied.
     */
    public void missBytes(final long bytes)
    {
        MISS_BYTES.getAndAdd(this, bytes);
    }

    /** An origin request this caller's read sent (one GET, or one vectored request of several spans). */
    public void originRequest()
    {
        ORIGIN_REQUESTS.getAndAdd(this, 1L);
    }

    /**
     * Bytes one of this caller's origin requests brought for one block.
     *
     * @param bytes the block's bytes.
     */
    public void originBytes(final long bytes)
    {
        ORIGIN_BYTES.getAndAdd(this, bytes);
    }

    /**
     * Of the origin requests: one an L2 server (a shared cache server) served whole.
     *
     * @param bytes the bytes it served.
     */
    public void l2Hit(final long bytes)
    {
        L2_HITS.getAndAdd(this, 1L);
        L2_BYTES.getAndAdd(this, bytes);
    }

    /**
     * Of the origin requests: one sent to L2 that the source served instead, because L2 failed it (no
     * answer in time, an error status, a cut body).
     */
    public void l2Fallback()
    {
        L2_FALLBACKS.getAndAdd(this, 1L);
    }

    /**
     * Of the origin requests: one whose L2 answer was for another object size than the caller's (a file rewritten
     * with another length behind an L2 server that holds the old one), so the source served it.
     */
    public void l2SizeMismatch()
    {
        L2_SIZE_MISMATCHES.getAndAdd(this, 1L);
    }

    /**
     * Of the origin requests: one under an L2 root that the source served because L2's object size could not be
     * checked (the file was refused after a mismatch, or the answer reported no size).
     */
    public void l2UnverifiedRead()
    {
        L2_UNVERIFIED.getAndAdd(this, 1L);
    }

    /** A read the cache failed, which the caller then served from its own source (recorded by the caller). */
    public void fallback()
    {
        FALLBACKS.getAndAdd(this, 1L);
    }

    /**
     * Bytes the caller's own source returned for reads the cache failed (recorded by the caller once they are in).
     *
     * @param bytes bytes read from the caller's source.
     */
    public void fallbackBytes(final long bytes)
    {
        FALLBACK_BYTES.getAndAdd(this, bytes);
    }

    /**
     * Returns blocks found in the store.
     *
     * @return block hits.
     */
    public long blockHits()
    {
        return blockHits;
    }

    /**
     * Returns bytes copied to the caller from blocks found in the store.
     *
     * @return bytes served from the cache.
     */
    public long hitBytes()
    {
        return hitBytes;
    }

    /**
     * Returns blocks the store did not hold (whether this read fetched them or joined another's fetch).
     *
     * @return block misses.
     */
    public long blockMisses()
    {
        return blockMisses;
    }

    /**
     * Returns the misses whose fetch another read had in flight.
     *
     * @return joined blocks.
     */
    public long joinedBlocks()
    {
        return joinedBlocks;
    }

    /**
     * Returns bytes copied to the caller from blocks that missed.
     *
     * @return bytes served from fetched blocks.
     */
    public long missBytes()
    {
        return missBytes;
    }

    /**
     * Returns origin requests this caller's reads sent.
     *
     * @return origin requests.
     */
    public long originRequests()
    {
        return originRequests;
    }

    /**
     * Returns bytes this caller's origin requests brought (whole blocks, gap blocks read through included).
     *
     * @return origin bytes.
     */
    public long originBytes()
    {
        return originBytes;
    }

    /**
     * Returns the origin requests an L2 server served (counted only when the origin is one that reports it).
     *
     * @return L2 hits.
     */
    public long l2Hits()
    {
        return l2Hits;
    }

    /**
     * Returns bytes L2 served for this caller's origin requests.
     *
     * @return L2 bytes.
     */
    public long l2Bytes()
    {
        return l2Bytes;
    }

    /**
     * Returns the origin requests sent to L2 that the source served because L2 failed them.
     *
     * @return L2 fallbacks.
     */
    public long l2Fallbacks()
    {
        return l2Fallbacks;
    }

    /**
     * Returns the origin requests whose L2 answer was for another object size (then served by the source).
     *
     * @return L2 size mismatches.
     */
    public long l2SizeMismatches()
    {
        return l2SizeMismatches;
    }

    /**
     * Returns the origin requests under an L2 root the source served because L2's object size could not be checked.
     *
     * @return unverified L2 reads.
     */
    public long l2Unverified()
    {
        return l2Unverified;
    }

    /**
     * Returns the reads the cache failed that the caller served from its own source.
     *
     * @return fallbacks.
     */
    public long fallbacks()
    {
        return fallbacks;
    }

    /**
     * Returns the bytes the caller's own source returned for reads the cache failed.
     *
     * @return fallback bytes.
     */
    public long fallbackBytes()
    {
        return fallbackBytes;
    }

    @Override
    public String toString()
    {
        return "ReadStatistics{blockHits=" + blockHits + ", hitBytes=" + hitBytes + ", blockMisses=" + blockMisses +
            ", joinedBlocks=" + joinedBlocks + ", missBytes=" + missBytes + ", originRequests=" + originRequests +
            ", originBytes=" + originBytes + ", l2Hits=" + l2Hits + ", l2Bytes=" + l2Bytes + ", l2Fallbacks=" +
            l2Fallbacks + ", l2SizeMismatches=" + l2SizeMismatches + ", l2Unverified=" + l2Unverified +
            ", fallbacks=" + fallbacks + ", fallbackBytes=" + fallbackBytes + "}";
    }
}
