package dev.offcache.range.engine;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import dev.offcache.core.slab.BlockRef;
import dev.offcache.range.fetch.BlockFetcher;
import dev.offcache.range.metrics.CacheStats;
import dev.offcache.range.metrics.RangeMetrics;
import dev.offcache.range.metrics.ReadStatistics;
import dev.offcache.range.origin.ObjectInfo;
import dev.offcache.range.origin.ObjectStore;
import dev.offcache.range.origin.OriginException;
import dev.offcache.range.store.BlockKeys;
import dev.offcache.range.store.BlockStore;
import dev.offcache.range.store.EvictionStats;
import dev.offcache.range.store.FetchClass;

/**
 * A block-granular read-through cache in front of one origin: the range-cache engine of both the in-process L1
 * tier and the L2 server (which differ only in their {@link BlockStore}).
 *
 * <p>Reads are positional: {@code (key, position, length)} into a caller's buffer, the tail of an object, several
 * ranges at once, or a stream in bounded windows. A read that hits every block is served on the calling thread
 * with no allocation; a read that misses fetches its missing blocks once (single flight), coalesced into GETs of at
 * most {@code maxCoalescedGetBytes}, under priority-aware permits for origin GETs. A store failure falls back to
 * the origin and never fails a read: every read path reaches the store through one guard ({@code StoreGuard}).
 * Writes, deletes, listings and conditional reads pass straight through. The package-private section at the end holds
 * what the engine's read paths ({@code ReadOperation}, {@link BlockStream}, {@link SizeProbe}) ask of it.
 *
 * <p>Memory: the engine owns the store, the origin, its staging buffers and its counters, and frees them all on
 * {@link #close()}. Callers own the buffers they read into.
 */
public final class RangeCache implements AutoCloseable
{
    private final ObjectStore origin;
    private final BlockStore store;
    private final RangeMetrics metrics;
    private final BlockFetcher fetcher;
    private final StoreGuard guard;
    private final ObjectDirectory directory;
    private final ScheduledExecutorService timer;
    private final int blockSize;
    private final int blockShift;
    private final String[] bypassPrefixes;
    private final boolean coldReads;
    private final int readAheadBlocks;
    private final int gapBlocks;
    private volatile boolean closed;

    /**
     * A builder that reads like a sentence: {@code RangeCache.newBuilder().origin(o).blockSize(1 << 20).build()}.
     *
     * @return a new builder with the defaults.
     */
    public static RangeCacheBuilder newBuilder()
    {
        return new RangeCacheBuilder();
    }

    /** Built by {@link RangeCacheBuilder#build()}, which has validated and resolved the settings. */
    RangeCache(final RangeCacheBuilder context)
    {
        origin = context.origin();
        store = context.store();
        metrics = new RangeMetrics(context.countersFile());
        if (store instanceof EvictionStats)
        {
            final EvictionStats stats = (EvictionStats) store;
            metrics.evictionSource(stats::evictionCount);
        }
        if (store != null)
        {
            metrics.storeMetrics(store::collectInto);
        }
        metrics.l2BytesSource(origin::l2Bytes);
        blockSize = context.blockSize();
        guard = new StoreGuard(store, metrics, blockSize);
        blockShift = Integer.numberOfTrailingZeros(blockSize);
        gapBlocks = context.coalesceGapBytes() >>> blockShift;
        bypassPrefixes = context.bypassPrefixes().toArray(new String[0]);
        final ScheduledThreadPoolExecutor deadlines = new ScheduledThreadPoolExecutor(1, (runnable) ->
        {
            final Thread thread = new Thread(runnable, "offcache-range-deadlines");
            thread.setDaemon(true);
            return thread;
        });
        // Most deadlines are cancelled when their GET completes: drop them at once rather than keep them queued.
        deadlines.setRemoveOnCancelPolicy(true);
        timer = deadlines;
        final long timeoutNs = context.originTimeout().toNanos();
        fetcher = new BlockFetcher(origin, store, metrics, blockSize, context.maxCoalescedGetBytes(),
            context.fetchPermits(), context.demandReservedPermits(), timeoutNs, timer);
        directory = new ObjectDirectory(origin, metrics, context.maxObjects(), context.originTimeout().toMillis());
        coldReads = origin.readsReportSize();
        // Read-ahead windows are at least one coalesced GET long, so a window never caps a run below the cap.
        readAheadBlocks = context.streamWindowsInFlight() * Math.max(context.streamWindowBlocks(),
            fetcher.maxRunBlocks());
    }

    // ---- sizes ------------------------------------------------------------------------------------------------------

    /**
     * The size of an object: remembered, or one HEAD shared by concurrent callers.
     *
     * @param key the object key.
     * @return its size in bytes.
     */
    public long size(final String key)
    {
        final ObjectEntry entry = directory.entry(key);
        final long size = entry.size;
        return size >= 0 ? size : await(directory.size(entry));
    }

    /**
     * What the origin says about the version of an object the cache holds: its size, last-modified time and entity
     * tag ({@link ObjectStore#stat}), asked once per object and remembered with its size (so a later read needs no
     * HEAD either), for as long as the engine remembers the object. Never fetches bytes. For callers that answer
     * with the object's metadata, such as the L2 server's S3 API.
     *
     * @param key the object key.
     * @return the metadata; fails with {@link dev.offcache.range.origin.ObjectNotFoundException} for a missing object.
     */
    public CompletableFuture<ObjectInfo> statAsync(final String key)
    {
        try
        {
            return directory.stat(directory.entry(key));
        }
        catch (final RuntimeException ex)
        {
            return CompletableFuture.failedFuture(ex);
        }
    }

    /**
     * The size of an object, asynchronously.
     *
     * @param key the object key.
     * @return its size in bytes.
     */
    public CompletableFuture<Long> sizeAsync(final String key)
    {
        try
        {
            return directory.size(directory.entry(key));
        }
        catch (final RuntimeException ex)
        {
            return CompletableFuture.failedFuture(ex);
        }
    }

    /**
     * How a stream of {@code [position, position + length)} of an object will learn the object's size before it opens
     * (see {@link SizeProbe}): known already; for a new object over an origin whose read answers carry the size, from
     * the demand fetch of the range's first blocks, started here (no HEAD before the GETs); else one shared HEAD. Pass
     * the probe to {@link #openStream(String, long[], long[], StreamCredit, Executor, StreamSink, SizeProbe)} once its
     * size is known, so the stream takes the blocks from the probe's fetches. Never throws: a bad key is a failed size.
     *
     * @param key      the object key.
     * @param position the first byte the stream reads, or -1 when the range counts from the end (a suffix: the size
     *                 is asked first).
     * @param length   the bytes the stream reads from there, or -1 when the end is not known yet (an open range, the
     *                 whole object: one coalesced GET's worth is fetched).
     * @return the probe; its {@link SizeProbe#size()} completes with the size.
     */
    public SizeProbe sizeForStream(final String key, final long position, final long length)
    {
        try
        {
            final ObjectEntry entry = directory.entry(key);
            final long known = entry.size;
            if (known >= 0)
            {
                return SizeProbe.known(entry, known);
            }
            if (closed || position < 0 || length == 0 || store == null || isBypassed(key) ||
                !origin.readAnswersCarrySize())
            {
                return SizeProbe.of(entry, directory.size(entry));
            }
            final long first = position >>> blockShift;
            final long blocks = length < 0 ? fetcher.maxRunBlocks() :
                Math.min(readAheadBlocks, ((position + length - 1) >>> blockShift) - first + 1);
            return SizeProbe.fetching(this, entry, first, (int) blocks);
        }
        catch (final RuntimeException ex)
        {
            return SizeProbe.of(null, CompletableFuture.failedFuture(ex));
        }
    }

    /**
     * Tells the engine an object's size that a trusted record holds (the L2 server's SSD tier stores it with each
     * block), so that reads of the object need no origin HEAD. Objects are write-once, so a recorded size stays
     * right; a size the engine already knows is kept.
     *
     * @param key  the object key.
     * @param size its size in bytes.
     * @throws IllegalArgumentException on a bad key or an implausible size.
     */
    public void rememberSize(final String key, final long size)
    {
        directory.remember(directory.entry(key), size);
    }

    /**
     * The object's size when it is known without asking the origin.
     *
     * @param key the object key.
     * @return the size, or -1 when it is not known yet (or the key is invalid).
     */
    public long sizeNow(final String key)
    {
        if (key == null)
        {
            return -1;
        }
        try
        {
            return directory.entry(key).size;
        }
        catch (final IllegalArgumentException ex)
        {
            return -1;
        }
    }

    // ---- reads into a caller's buffer -------------------------------------------------------------------------------

    /**
     * Copies {@code length} bytes of an object from {@code position} into a caller's buffer.
     *
     * @param key               the object key.
     * @param position          the first byte.
     * @param destination       where the bytes go.
     * @param destinationOffset where in the destination.
     * @param length            how many bytes.
     * @throws IllegalArgumentException on a bad key, negative numbers or a range past the end of the object.
     * @throws OriginException          when the origin fails; nothing is cached then.
     */
    public void read(
        final String key,
        final long position,
        final MutableDirectBuffer destination,
        final int destinationOffset,
        final int length)
    {
        read(key, position, destination, destinationOffset, length, false);
    }

    /**
     * Copies bytes of an object into a caller's buffer, optionally skipping the store (data read once).
     *
     * @param key               the object key.
     * @param position          the first byte.
     * @param destination       where the bytes go.
     * @param destinationOffset where in the destination.
     * @param length            how many bytes.
     * @param bypassStore       read from the next level without touching the store.
     */
    public void read(
        final String key,
        final long position,
        final MutableDirectBuffer destination,
        final int destinationOffset,
        final int length,
        final boolean bypassStore)
    {
        checkDestination(destination, destinationOffset, length);
        final ObjectEntry entry = directory.entry(key);
        long size = entry.size;
        final boolean bypass = bypassStore || isBypassed(key);
        if (size < 0)
        {
            if (coldReads && length > 0)
            {
                // One round trip: the GET's answer tells the size, and the range is checked against it then.
                checkRange(key, position, length, Long.MAX_VALUE);
                await(slowRead(entry, -1, FetchClass.DEMAND, bypass,
                    List.of(new RangeRequest(position, length, destination, destinationOffset)), new ReadFuture(),
                    null));
                return;
            }
            size = await(directory.size(entry));
        }
        checkRange(key, position, length, size);
        long at = position;
        int offset = destinationOffset;
        int remaining = length;
        if (!bypass)
        {
            // Hit path: no allocation, no lock, and (in L1) no reference count: the store copies out directly.
            while (remaining > 0)
            {
                final long blockIndex = at >>> blockShift;
                final int blockLength = blockLength(blockIndex, size);
                final int inBlock = (int) (at & (blockSize - 1));
                final int n = Math.min(remaining, blockLength - inBlock);
                if (!guard.copyHit(BlockKeys.pack(entry.id, blockIndex), blockLength, inBlock, destination, offset, n))
                {
                    break;
                }
                metrics.blockRequest();
                metrics.blockHit(n);
                at += n;
                offset += n;
                remaining -= n;
            }
            if (remaining == 0)
            {
                return;
            }
        }
        await(slowRead(entry, size, FetchClass.DEMAND, bypass,
            List.of(new RangeRequest(at, remaining, destination, offset)), new ReadFuture(), null));
    }

    /**
     * Copies bytes of an object into a caller's buffer, asynchronously. If the caller gives up on the future
     * (cancel, timeout) nothing is written to the buffer after that; fetches others wait on carry on.
     *
     * @param key               the object key.
     * @param position          the first byte.
     * @param destination       where the bytes go.
     * @param destinationOffset where in the destination.
     * @param length            how many bytes.
     * @param bypassStore       read from the next level without touching the store.
     * @return completes when the bytes are in the destination.
     */
    public CompletableFuture<Void> readAsync(
        final String key, final long position, final MutableDirectBuffer destination, final int destinationOffset,
        final int length, final boolean bypassStore)
    {
        try
        {
            checkDestination(destination, destinationOffset, length);
            return readVectoredAsync(key, List.of(new RangeRequest(position, length, destination, destinationOffset)),
                bypassStore);
        }
        catch (final RuntimeException ex)
        {
            return CompletableFuture.failedFuture(ex);
        }
    }

    /**
     * {@link #read(String, long, MutableDirectBuffer, int, int)} into a {@code byte[]}, for callers that use no
     * Agrona type. A read whose blocks all hit copies straight from the cached blocks and allocates nothing.
     *
     * @param key               the object key.
     * @param position          the first byte.
     * @param destination       where the bytes go.
     * @param destinationOffset where in the destination.
     * @param length            how many bytes.
     * @throws IllegalArgumentException on a bad key, negative numbers or a range past the end of the object.
     * @throws OriginException          when the origin fails; nothing is cached then.
     */
    public void read(
        final String key, final long position, final byte[] destination, final int destinationOffset, final int length)
    {
        if (destination == null)
        {
            throw new IllegalArgumentException("destination array is null");
        }
        checkSpan(destinationOffset, length, destination.length);
        readInto(key, position, destination, null, destinationOffset, length, null);
    }

    /**
     * {@link #read(String, long, byte[], int, int)} that also counts what the read did in the caller's
     * {@code statistics} (hits, misses, origin requests and bytes: {@link ReadStatistics}), for callers that report
     * their own reads, such as an engine adapter's input stream. A read whose blocks all hit allocates nothing.
     *
     * @param key               the object key.
     * @param position          the first byte.
     * @param destination       where the bytes go.
     * @param destinationOffset where in the destination.
     * @param length            how many bytes.
     * @param statistics        the caller's counters, updated before this returns; null for none.
     * @throws IllegalArgumentException on a bad key, negative numbers or a range past the end of the object.
     * @throws OriginException          when the origin fails; nothing is cached then.
     */
    public void read(
        final String key, final long position, final byte[] destination, final int destinationOffset, final int length,
        final ReadStatistics statistics)
    {
        if (destination == null)
        {
            throw new IllegalArgumentException("destination array is null");
        }
        checkSpan(destinationOffset, length, destination.length);
        readInto(key, position, destination, null, destinationOffset, length, statistics);
    }

    /**
     * {@link #read(String, long, MutableDirectBuffer, int, int)} into a {@link ByteBuffer} (heap or direct): fills it
     * from its position to its limit and advances the position by that many bytes, like a positional channel read
     * that never returns short. A read whose blocks all hit allocates nothing.
     *
     * @param key         the object key.
     * @param position    the first byte of the object.
     * @param destination where the bytes go: {@code destination.remaining()} of them.
     * @throws IllegalArgumentException on a bad key, a read-only buffer or a range past the end of the object.
     * @throws OriginException          when the origin fails; nothing is cached then.
     */
    public void read(final String key, final long position, final ByteBuffer destination)
    {
        read(key, position, destination, null);
    }

    /**
     * {@link #read(String, long, ByteBuffer)} that also counts what the read did in the caller's {@code statistics}
     * ({@link ReadStatistics}).
     *
     * @param key         the object key.
     * @param position    the first byte of the object.
     * @param destination where the bytes go: {@code destination.remaining()} of them.
     * @param statistics  the caller's counters, updated before this returns; null for none.
     * @throws IllegalArgumentException on a bad key, a read-only buffer or a range past the end of the object.
     * @throws OriginException          when the origin fails; nothing is cached then.
     */
    public void read(
        final String key, final long position, final ByteBuffer destination, final ReadStatistics statistics)
    {
        checkWritable(destination);
        final int length = destination.remaining();
        readInto(key, position, null, destination, destination.position(), length, statistics);
        destination.position(destination.position() + length);
    }

    /**
     * Reads the last bytes of an object (a Parquet footer, say) into a caller's buffer.
     *
     * @param key               the object key.
     * @param destination       where the bytes go.
     * @param destinationOffset where in the destination.
     * @param length            bytes wanted; fewer when the object is smaller.
     * @return the bytes read, which are the object's last ones.
     */
    public int readTail(
        final String key, final MutableDirectBuffer destination, final int destinationOffset, final int length)
    {
        final long size = sizeForTail(key, length);
        final int n = (int) Math.min(length, size);
        read(key, size - n, destination, destinationOffset, n);
        return n;
    }

    /**
     * {@link #readTail(String, MutableDirectBuffer, int, int)} into a {@code byte[]}.
     *
     * @param key               the object key.
     * @param destination       where the bytes go.
     * @param destinationOffset where in the destination.
     * @param length            bytes wanted; fewer when the object is smaller.
     * @return the bytes read, which are the object's last ones.
     */
    public int readTail(final String key, final byte[] destination, final int destinationOffset, final int length)
    {
        final long size = sizeForTail(key, length);
        final int n = (int) Math.min(length, size);
        read(key, size - n, destination, destinationOffset, n);
        return n;
    }

    /**
     * The object's last {@code destination.remaining()} bytes (fewer when the object is smaller) into a
     * {@link ByteBuffer}, from its position on; the position advances by the bytes read.
     *
     * @param key         the object key.
     * @param destination where the bytes go.
     * @return the bytes read, which are the object's last ones.
     */
    public int readTail(final String key, final ByteBuffer destination)
    {
        checkWritable(destination);
        final long size = size(key);
        final int n = (int) Math.min(destination.remaining(), size);
        final int limit = destination.limit();
        destination.limit(destination.position() + n);
        try
        {
            read(key, size - n, destination);
        }
        finally
        {
            destination.limit(limit);
        }
        return n;
    }

    /**
     * The shared body of the {@code byte[]} and {@link ByteBuffer} reads: exactly one of {@code array} and
     * {@code buffer} is set, and {@code offset} is an index into it. Hits are copied from the blocks on the calling
     * thread; from the first miss on, the rest goes through the miss path into a wrapper of the same memory.
     */
    private void readInto(
        final String key, final long position, final byte[] array, final ByteBuffer buffer, final int offset,
        final int length, final ReadStatistics stats)
    {
        final ObjectEntry entry = directory.entry(key);
        long size = entry.size;
        if (size < 0)
        {
            size = await(directory.size(entry));
        }
        checkRange(key, position, length, size);
        final boolean bypass = isBypassed(key);
        long at = position;
        int to = offset;
        int remaining = length;
        int hits = 0;
        if (!bypass)
        {
            while (remaining > 0)
            {
                final long blockIndex = at >>> blockShift;
                final int blockLength = blockLength(blockIndex, size);
                final BlockRef ref = guard.acquire(BlockKeys.pack(entry.id, blockIndex), blockLength);
                if (ref == null)
                {
                    break;
                }
                final int inBlock = (int) (at & (blockSize - 1));
                final int n = Math.min(remaining, blockLength - inBlock);
                try
                {
                    if (array != null)
                    {
                        ref.buffer().getBytes(inBlock, array, to, n);
                    }
                    else
                    {
                        ref.buffer().getBytes(inBlock, buffer, to, n);
                    }
                }
                finally
                {
                    ref.release();
                }
                metrics.blockRequest();
                metrics.blockHit(n);
                hits++;
                at += n;
                to += n;
                remaining -= n;
            }
            if (stats != null && hits > 0)
            {
                stats.hits(hits, length - remaining);
            }
            if (remaining == 0)
            {
                return;
            }
        }
        final UnsafeBuffer wrapper = array != null ? new UnsafeBuffer(array) : new UnsafeBuffer(buffer);
        await(slowRead(entry, size, FetchClass.DEMAND, bypass,
            List.of(new RangeRequest(at, remaining, wrapper, to)), new ReadFuture(), stats));
    }

    /**
     * A zero-copy, reference-counted view of the cached block holding {@code [position, position + length)}, which
     * must lie in one block; the bytes start at {@code position % blockSize()} in {@link BlockRef#buffer()}. A
     * missing block is fetched (demand) first. The caller owns the returned reference and must
     * {@link BlockRef#release()} it; the hit path allocates nothing.
     *
     * @param key      the object key.
     * @param position the first byte.
     * @param length   bytes wanted, all in one block.
     * @return the retained block, or {@code null} when the engine has no store or the store did not keep the
     *     block (read with a copy instead).
     */
    public BlockRef readView(final String key, final long position, final int length)
    {
        final ObjectEntry entry = directory.entry(key);
        long size = entry.size;
        final long blockIndex = position >>> blockShift;
        if (size < 0 && coldReads && length > 0 && store != null && !isBypassed(key))
        {
            // One round trip, as read(): the block's GET tells the size, and the range is checked against it then.
            checkRange(key, position, length, Long.MAX_VALUE);
            checkOneBlock(key, position, length, blockIndex);
            await(slowRead(entry, -1, FetchClass.DEMAND, false,
                List.of(new RangeRequest(position, length, null, 0)), new ReadFuture(), null));
            size = entry.size;
            if (size >= 0)
            {
                return guard.acquire(BlockKeys.pack(entry.id, blockIndex), blockLength(blockIndex, size));
            }
        }
        if (size < 0)
        {
            size = await(directory.size(entry));
        }
        checkRange(key, position, length, size);
        checkOneBlock(key, position, length, blockIndex);
        if (store == null || isBypassed(key) || size == 0)
        {
            return null;
        }
        final long blockKey = BlockKeys.pack(entry.id, blockIndex);
        final int blockLength = blockLength(blockIndex, size);
        BlockRef ref = guard.acquire(blockKey, blockLength);
        if (ref != null)
        {
            metrics.blockRequest();
            metrics.blockHit(length);
            return ref;
        }
        final long blockStart = blockIndex << blockShift;
        await(slowRead(entry, size, FetchClass.DEMAND, false,
            List.of(new RangeRequest(blockStart, blockLength, null, 0)), new ReadFuture(), null));
        ref = guard.acquire(blockKey, blockLength);
        return ref;
    }

    // ---- vectored reads and prefetches ------------------------------------------------------------------------------

    /**
     * Reads several ranges of one object at once; their missing blocks are fetched together, so ranges that
     * share or adjoin blocks share GETs.
     *
     * @param key    the object key.
     * @param ranges the ranges and where each goes.
     */
    public void readVectored(final String key, final List<RangeRequest> ranges)
    {
        await(readVectoredAsync(key, ranges, false));
    }

    /**
     * Reads several ranges of one object at once, asynchronously.
     *
     * @param key         the object key.
     * @param ranges      the ranges and where each goes.
     * @param bypassStore read from the next level without touching the store.
     * @return completes when every range is in its destination.
     */
    public CompletableFuture<Void> readVectoredAsync(
        final String key, final List<RangeRequest> ranges, final boolean bypassStore)
    {
        return readVectoredAsync(key, ranges, bypassStore, null);
    }

    /**
     * {@link #readVectoredAsync(String, List, boolean)} that also counts what the read did in the caller's
     * {@code statistics} ({@link ReadStatistics}); the counts are in place when the future completes. The counters
     * are updated on whichever thread serves each block.
     *
     * @param key         the object key.
     * @param ranges      the ranges and where each goes.
     * @param bypassStore read from the next level without touching the store.
     * @param statistics  the caller's counters; null for none.
     * @return completes when every range is in its destination.
     */
    public CompletableFuture<Void> readVectoredAsync(
        final String key, final List<RangeRequest> ranges, final boolean bypassStore,
        final ReadStatistics statistics)
    {
        final ReadFuture future = new ReadFuture();
        try
        {
            final ObjectEntry entry = directory.entry(key);
            for (final RangeRequest range : ranges)
            {
                checkDestination(range.destination(), range.destinationOffset(), range.length());
                if (range.position() < 0)
                {
                    throw new IllegalArgumentException("negative position " + range.position() + " for '" + key + "'");
                }
            }
            final List<RangeRequest> copy = List.copyOf(ranges);
            final boolean bypass = bypassStore || isBypassed(key);
            if (entry.size < 0 && coldReads && anyBytes(copy))
            {
                // One round trip: the answer tells the size; the ranges are checked against it before any copy.
                slowRead(entry, -1, FetchClass.DEMAND, bypass, copy, future, statistics);
                return future;
            }
            directory.size(entry).whenComplete((size, error) ->
            {
                if (error != null)
                {
                    future.fail(error);
                    return;
                }
                try
                {
                    for (final RangeRequest range : copy)
                    {
                        checkRange(key, range.position(), range.length(), size);
                    }
                    slowRead(entry, size, FetchClass.DEMAND, bypass, copy, future, statistics);
                }
                catch (final RuntimeException ex)
                {
                    future.fail(ex);
                }
            });
        }
        catch (final RuntimeException ex)
        {
            future.fail(ex);
        }
        return future;
    }

    /**
     * Warms the store with ranges of an object at prefetch priority. Blocks already cached or in flight are not
     * fetched again. Does nothing for a pass-through engine or a bypassed key.
     *
     * @param key    the object key.
     * @param ranges the ranges; empty for the whole object.
     * @return completes when every block is stored or has failed.
     */
    public CompletableFuture<Void> prefetch(final String key, final List<ByteRange> ranges)
    {
        try
        {
            final ObjectEntry entry = directory.entry(key);
            if (store == null || isBypassed(key))
            {
                return CompletableFuture.completedFuture(null);
            }
            if (entry.size < 0 && coldReads && !ranges.isEmpty())
            {
                // the ranges are known: their GETs tell the size (ranges past the end fail the prefetch then)
                final List<RangeRequest> requests = new ArrayList<>();
                for (final ByteRange range : ranges)
                {
                    checkRange(key, range.position(), range.length(), Long.MAX_VALUE);
                    addChunked(requests, range.position(), range.length());
                }
                if (anyBytes(requests))
                {
                    return slowRead(entry, -1, FetchClass.PREFETCH, false, requests, new ReadFuture(), null);
                }
            }
            return directory.size(entry).thenCompose((size) ->
            {
                final List<RangeRequest> requests = new ArrayList<>();
                if (ranges.isEmpty())
                {
                    addChunked(requests, 0, size);
                }
                for (final ByteRange range : ranges)
                {
                    checkRange(key, range.position(), range.length(), size);
                    addChunked(requests, range.position(), range.length());
                }
                return slowRead(entry, size, FetchClass.PREFETCH, false, requests, new ReadFuture(), null);
            });
        }
        catch (final RuntimeException ex)
        {
            return CompletableFuture.failedFuture(ex);
        }
    }

    // ---- response streams -------------------------------------------------------------------------------------------

    /**
     * Opens a stream of ranges of an object, handed to {@code sink} chunk by chunk in body order on
     * {@code executor} (see {@link BlockStream}): the L2 server's response bodies. The object's size must already be
     * known ({@link #sizeAsync}), so the caller can send its headers first. Nothing happens until
     * {@link BlockStream#start()}.
     *
     * @param key      the object key.
     * @param starts   the first byte of each range, in body order.
     * @param lengths  the length of each range (0 allowed).
     * @param credit   memory the stream may hold ahead of the sink (the response budget).
     * @param executor where the stream runs and calls the sink (the consumer's event loop).
     * @param sink     receives the chunks.
     * @return the stream, not started.
     * @throws IllegalArgumentException on a bad key, an object whose size is not known yet, or a range outside it.
     */
    public BlockStream openStream(
        final String key, final long[] starts, final long[] lengths, final StreamCredit credit,
        final Executor executor, final StreamSink sink)
    {
        return openStream(key, starts, lengths, credit, executor, sink, null);
    }

    /**
     * {@link #openStream(String, long[], long[], StreamCredit, Executor, StreamSink)} after a {@link SizeProbe} of the
     * same object told the size: the blocks the probe fetched are taken from its fetches (counted once per chunk, as
     * misses) instead of being looked up again.
     *
     * @param key      the object key.
     * @param starts   the first byte of each range, in body order.
     * @param lengths  the length of each range (0 allowed).
     * @param credit   memory the stream may hold ahead of the sink (the response budget).
     * @param executor where the stream runs and calls the sink (the consumer's event loop).
     * @param sink     receives the chunks.
     * @param probe    the probe whose size the caller waited for, or null.
     * @return the stream, not started.
     * @throws IllegalArgumentException on a bad key, an object whose size is not known yet, or a range outside it.
     */
    public BlockStream openStream(
        final String key,
        final long[] starts,
        final long[] lengths,
        final StreamCredit credit,
        final Executor executor,
        final StreamSink sink,
        final SizeProbe probe)
    {
        if (closed)
        {
            throw new IllegalStateException("range cache is closed");
        }
        final ObjectEntry entry = directory.entry(key);
        final long size = entry.size;
        if (size < 0)
        {
            throw new IllegalArgumentException("the size of '" + key + "' is not known yet: ask sizeAsync first");
        }
        if (starts.length != lengths.length)
        {
            throw new IllegalArgumentException("starts and lengths differ in length: " + starts.length + " != " +
                lengths.length);
        }
        for (int i = 0; i < starts.length; i++)
        {
            checkRange(key, starts[i], lengths[i], size);
        }
        return new BlockStream(this, entry, size, starts, lengths, isBypassed(key), credit, executor, sink, probe);
    }

    // ---- straight to the origin: writes, deletes, listings, conditional reads ---------------------------------------

    /**
     * Writes an object straight to the origin (never cached) and forgets what the engine knew of the key.
     *
     * @param key    the object key.
     * @param source the bytes.
     * @return completes when the origin has it.
     */
    public CompletableFuture<Void> put(final String key, final ByteBuffer source)
    {
        directory.invalidate(key);
        return origin.put(key, source).whenComplete((v, t) -> directory.invalidate(key));
    }

    /**
     * Deletes an object in the origin (never cached) and forgets what the engine knew of the key.
     *
     * @param key the object key.
     * @return completes when it is gone.
     */
    public CompletableFuture<Void> delete(final String key)
    {
        directory.invalidate(key);
        return origin.delete(key).whenComplete((v, t) -> directory.invalidate(key));
    }

    /**
     * Forgets what the engine knew of a key (its size, tag and blocks), for a write that reached the origin by a path
     * other than {@link #put} or {@link #delete} (a multipart upload completed there): called before the write starts
     * and again once it ended, as those two do, no reader takes the old version's blocks for the new one's.
     *
     * @param key the object key.
     */
    public void invalidate(final String key)
    {
        directory.invalidate(key);
    }

    /**
     * Lists keys under a prefix, straight from the origin.
     *
     * @param prefix the prefix.
     * @return the keys.
     */
    public CompletableFuture<List<String>> list(final String prefix)
    {
        return origin.list(prefix);
    }

    /**
     * A conditional read, straight from the origin: never served from or stored in the cache.
     *
     * @param key         the object key.
     * @param position    the first byte.
     * @param destination where the bytes go.
     * @param ifMatch     the entity tag or version the object must have.
     * @return bytes read.
     */
    public CompletableFuture<Integer> readIfMatch(
        final String key, final long position, final ByteBuffer destination, final String ifMatch)
    {
        return origin.readIfMatch(key, position, destination, ifMatch);
    }

    // ---- parts, figures and close -----------------------------------------------------------------------------------

    /**
     * Returns the origin (next level).
     *
     * @return the origin (next level).
     */
    public ObjectStore origin()
    {
        return origin;
    }

    /**
     * Returns the store, or {@code null} for a pass-through engine.
     *
     * @return the store, or {@code null} for a pass-through engine.
     */
    public BlockStore store()
    {
        return store;
    }

    /**
     * Returns the counters.
     *
     * @return the counters.
     */
    public RangeMetrics metrics()
    {
        return metrics;
    }

    /**
     * An immutable snapshot of this cache's statistics (hits, misses, hit rate, bytes from the store, from L2 and
     * from the object store, origin GETs, evictions, store fallbacks by reason), read from the same counters
     * {@link #metrics()} publishes; register it as a platform MXBean with
     * {@link dev.offcache.range.metrics.CacheStatsMXBeans#register}.
     *
     * @return a new snapshot.
     */
    public CacheStats stats()
    {
        return metrics.stats();
    }

    /**
     * Returns the fetcher, for inspection (permits, in-flight blocks, staging memory).
     *
     * @return the fetcher, for inspection (permits, in-flight blocks, staging memory).
     */
    public BlockFetcher fetcher()
    {
        return fetcher;
    }

    /**
     * Returns bytes per block.
     *
     * @return bytes per block.
     */
    public int blockSize()
    {
        return blockSize;
    }

    /**
     * Returns the origin's namespace.
     *
     * @return the origin's namespace.
     */
    public String namespace()
    {
        return origin.namespace();
    }

    /**
     * Resolves an object id (the high bits of a block key this engine gave its store, {@link BlockKeys#objectId})
     * back to the object's key, so a store that outlives the process can name blocks durably as
     * {@code (namespace(), objectKey)}. Ids are process-local and never reused; an id whose entry the engine has
     * forgotten (evicted past {@code maxObjects}, or invalidated by a put or delete) resolves to {@code null}.
     *
     * @param objectId an object id from a block key.
     * @return the object key, or {@code null} when this engine does not (or no longer) know the id.
     */
    public String objectKey(final long objectId)
    {
        return directory.keyOf(objectId);
    }

    /**
     * Closes the store, the origin, the staging memory and the counters. Reads in flight fail.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        timer.shutdownNow();
        try
        {
            fetcher.close();
        }
        finally
        {
            try
            {
                if (store != null)
                {
                    store.close();
                }
            }
            finally
            {
                try
                {
                    origin.close();
                }
                finally
                {
                    metrics.close();
                }
            }
        }
    }

    // ---- hooks of the read paths (ReadOperation, BlockStream, SizeProbe) --------------------------------------------

    ObjectDirectory directory()
    {
        return directory;
    }

    int blockShift()
    {
        return blockShift;
    }

    /**
     * Blocks a read or stream keeps in flight at most: {@code streamWindowsInFlight} windows of
     * {@code max(streamWindowBlocks, maxCoalescedGetBytes / blockSize)} blocks.
     */
    int readAheadBlocks()
    {
        return readAheadBlocks;
    }

    /** A cold read learned the object's size from the origin's answer. */
    void learnedSize(final ObjectEntry entry, final long size)
    {
        if (size >= 0 && size <= ObjectDirectory.MAX_OBJECT_SIZE)
        {
            directory.remember(entry, size);
        }
    }

    int gapBlocks()
    {
        return gapBlocks;
    }

    int blockLength(final long blockIndex, final long objectSize)
    {
        return (int) Math.min(blockSize, objectSize - (blockIndex << blockShift));
    }

    /** The guard the read paths reach the store through. */
    StoreGuard guard()
    {
        return guard;
    }

    ReadFuture slowRead(
        final ObjectEntry entry,
        final long size,
        final FetchClass fetchClass,
        final boolean bypass,
        final List<RangeRequest> ranges,
        final ReadFuture future,
        final ReadStatistics stats)
    {
        if (closed)
        {
            throw new IllegalStateException("range cache is closed");
        }
        if (bypass && store != null)
        {
            metrics.bypassRead();
        }
        return new ReadOperation(this, entry, size, fetchClass, bypass || store == null, ranges, future, stats)
            .start();
    }

    // ---- argument checks and waiting --------------------------------------------------------------------------------

    private boolean isBypassed(final String key)
    {
        for (final String prefix : bypassPrefixes)
        {
            if (key.startsWith(prefix))
            {
                return true;
            }
        }
        return false;
    }

    private static boolean anyBytes(final List<RangeRequest> ranges)
    {
        for (final RangeRequest range : ranges)
        {
            if (range.length() > 0)
            {
                return true;
            }
        }
        return false;
    }

    private static void addChunked(final List<RangeRequest> requests, final long position, final long length)
    {
        long at = position;
        long remaining = length;
        while (remaining > 0)
        {
            final int n = (int) Math.min(remaining, 1 << 30);
            requests.add(new RangeRequest(at, n, null, 0));
            at += n;
            remaining -= n;
        }
    }

    private void checkOneBlock(final String key, final long position, final int length, final long blockIndex)
    {
        if (length > 0 && ((position + length - 1) >>> blockShift) != blockIndex)
        {
            throw new IllegalArgumentException("range [" + position + ", " + (position + length) + ") of '" + key +
                "' spans more than one block of " + blockSize + " bytes");
        }
    }

    private static void checkWritable(final ByteBuffer destination)
    {
        if (destination == null)
        {
            throw new IllegalArgumentException("destination buffer is null");
        }
        if (destination.isReadOnly())
        {
            throw new IllegalArgumentException("destination buffer is read-only");
        }
    }

    private static void checkSpan(final int offset, final int length, final int capacity)
    {
        if (length < 0)
        {
            throw new IllegalArgumentException("negative length: " + length);
        }
        if (offset < 0 || (long) offset + length > capacity)
        {
            throw new IllegalArgumentException("destination [" + offset + ", " + ((long) offset + length) +
                ") is outside its buffer of " + capacity + " bytes");
        }
    }

    /** The object's size, for a tail read of {@code length} bytes (checked not to be negative). */
    private long sizeForTail(final String key, final int length)
    {
        if (length < 0)
        {
            throw new IllegalArgumentException("negative length " + length + " for the tail of '" + key + "'");
        }
        return size(key);
    }

    private static void checkDestination(
        final MutableDirectBuffer destination, final int destinationOffset, final int length)
    {
        if (length < 0)
        {
            throw new IllegalArgumentException("negative length: " + length);
        }
        if (destination == null)
        {
            throw new IllegalArgumentException("destination buffer is null");
        }
        if (destinationOffset < 0 || (long) destinationOffset + length > destination.capacity())
        {
            throw new IllegalArgumentException("destination [" + destinationOffset + ", " +
                ((long) destinationOffset + length) + ") is outside its buffer of " + destination.capacity() +
                " bytes");
        }
    }

    private static void checkRange(final String key, final long position, final long length, final long size)
    {
        if (position < 0)
        {
            throw new IllegalArgumentException("negative position " + position + " for '" + key + "'");
        }
        if (length < 0)
        {
            throw new IllegalArgumentException("negative length " + length + " for '" + key + "'");
        }
        if (position + length > size)
        {
            throw new IllegalArgumentException("range [" + position + ", " + (position + length) + ") is past the end" +
                " of '" + key + "' (" + size + " bytes)");
        }
    }

    static <T> T await(final CompletableFuture<T> future)
    {
        try
        {
            return future.get();
        }
        catch (final InterruptedException ex)
        {
            future.cancel(false);
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted while reading");
        }
        catch (final ExecutionException ex)
        {
            throw rethrow(ex.getCause());
        }
    }

    private static RuntimeException rethrow(final Throwable error)
    {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) &&
            cause.getCause() != null)
        {
            cause = cause.getCause();
        }
        if (cause instanceof RuntimeException)
        {
            return (RuntimeException) cause;
        }
        if (cause instanceof Error)
        {
            throw (Error) cause;
        }
        return new OriginException("read failed", cause);
    }
}
