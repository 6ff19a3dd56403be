package dev.offcache.range.origin;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.LongConsumer;

import dev.offcache.range.store.FetchClass;

/**
 * The origin of a range cache: an object store read by byte range (S3, an HTTP server, a local directory) or the
 * next cache tier in front of one.
 *
 * <p>Only {@link #size(String)} (or {@link #stat(String)}, which says more in the same HEAD) and the reads are ever
 * cached by the engine; put, delete, list and conditional reads pass straight through. A store implements one read,
 * {@link #read(String, long, ByteBuffer, FetchClass, LongConsumer)}; the other read forms default from it, and the
 * capability flags ({@link #readsReportSize()}, {@link #readAnswersCarrySize()}, {@link #readsBlocks()},
 * {@link #readsVectored()}) say what its answers carry and which forms it does in one request. Every method is
 * asynchronous and thread-safe.
 *
 * <p>Memory: a read fills a region the caller owns ({@code destination}'s position to its limit), usually
 * off-heap; the store must not touch it after the returned future completes.
 */
public interface ObjectStore extends AutoCloseable
{
    /**
     * A stable name for this origin (scheme, endpoint, bucket or root), so two origins never share cache keys.
     *
     * @return the namespace, never empty.
     */
    String namespace();

    /**
     * The size of an object (a HEAD).
     *
     * @param key the object key.
     * @return the size in bytes; fails with {@link ObjectNotFoundException} when there is no such object.
     */
    CompletableFuture<Long> size(String key);

    /**
     * The size of an object with its last-modified time and entity tag, where the origin has them (one HEAD). The
     * default knows only the size: an origin that can say more overrides it.
     *
     * @param key the object key.
     * @return what the origin says; fails with {@link ObjectNotFoundException} when there is no such object.
     */
    default CompletableFuture<ObjectInfo> stat(final String key)
    {
        return size(key).thenApply((size) -> new ObjectInfo(key, size, ObjectInfo.UNKNOWN_TIME, null));
    }

    /**
     * Reads {@code destination.remaining()} bytes of an object starting at {@code offset} into {@code destination}
     * (from its position), and hands the object's size to {@code objectSize}, before the returned future completes,
     * when the answer carries it. The store fills as much as the object holds; it never reads past the end. This is
     * the one read a store implements: the other read forms ({@link #read(String, long, ByteBuffer)},
     * {@link #readBlocks}, {@link #readVectored}) default from it, and a store overrides those only where it does
     * them in fewer requests.
     *
     * @param key         the object key.
     * @param offset      the first byte to read; may lie past the end (then 0 bytes are read).
     * @param destination where the bytes go; the caller owns it.
     * @param fetchClass  demand (a caller waits) or prefetch (background warming): a tier in front of the origin (the
     *                    L2 client) treats background warming differently; plain origins ignore it.
     * @param objectSize  told the object's size when the answer carries it, at most once; null when the caller does
     *                    not want it.
     * @return the number of bytes read, less than requested only when the object ends first; fails with
     *     {@link ObjectNotFoundException} when there is no such object.
     */
    CompletableFuture<Integer> read(
        String key, long offset, ByteBuffer destination, FetchClass fetchClass, LongConsumer objectSize);

    /**
     * A demand {@link #read(String, long, ByteBuffer, FetchClass, LongConsumer) read} that wants no size: what a
     * caller outside the engine reads with. Stores do not override it.
     *
     * @param key         the object key.
     * @param offset      the first byte to read.
     * @param destination where the bytes go; the caller owns it.
     * @return the number of bytes read, less than requested only when the object ends first; fails with
     *     {@link ObjectNotFoundException} when there is no such object.
     */
    default CompletableFuture<Integer> read(final String key, final long offset, final ByteBuffer destination)
    {
        return read(key, offset, destination, FetchClass.DEMAND, null);
    }

    /**
     * Whether this store's reads tell the object's size (an HTTP 206 carries it in {@code Content-Range}), so the
     * engine may read an object whose size it does not know yet without asking for the size first: one round trip
     * per cold object instead of a HEAD and a GET. The default is false.
     *
     * @return whether {@link #read(String, long, ByteBuffer, FetchClass, LongConsumer)} reports sizes.
     */
    default boolean readsReportSize()
    {
        return false;
    }

    /**
     * Whether the answers of {@link #read(String, long, ByteBuffer, FetchClass, LongConsumer)} report the object's
     * size to its {@code objectSize} consumer as a rule (an HTTP or S3 {@code 206}'s {@code Content-Range}, a local
     * file's length), and a read at or past the end returns 0 bytes (reporting the size where the store can tell). A
     * caller that must know the size before it answers (the L2 server, which sends its headers first) can then learn
     * a new object's size from the first GET of its blocks instead of a HEAD before them
     * ({@link dev.offcache.range.engine.RangeCache#sizeForStream}); an answer that told nothing costs a HEAD after it.
     * Unlike {@link #readsReportSize()} it does not make the engine's plain reads start without the size. The default
     * is {@link #readsReportSize()}.
     *
     * @return whether read answers carry the object's size.
     */
    default boolean readAnswersCarrySize()
    {
        return readsReportSize();
    }

    /**
     * Whether {@link #readBlocks} lands one answer straight in a list of the caller's buffers (the engine's block
     * slots), telling each as it fills, so a block needs no staging copy and goes on before the answer ends. The
     * default is false: the engine then reads a run into one staging buffer with one {@link #read(String, long,
     * ByteBuffer, FetchClass, LongConsumer)} rather than use the default {@link #readBlocks} (one read per buffer).
     *
     * @return whether {@link #readBlocks} is one request.
     */
    default boolean readsBlocks()
    {
        return false;
    }

    /**
     * One GET of the bytes from {@code offset} on, as many as the destinations' remaining bytes add up to, landing in
     * the destinations in order; {@code progress} hears of each destination once it holds its bytes, on the reading
     * thread, before the returned future completes. Reports the size as {@link #read(String, long, ByteBuffer,
     * FetchClass, LongConsumer)} does, before any destination is told filled. The default reads the destinations one
     * after the other, one {@link #read(String, long, ByteBuffer, FetchClass, LongConsumer)} each (the first reports
     * the size), until one comes back short; a store that does it in one request says so with {@link #readsBlocks()}.
     *
     * @param key          the object key.
     * @param offset       the first byte to read; may lie past the end (then 0 bytes are read).
     * @param destinations where the bytes go, in order; the caller owns them.
     * @param fetchClass   demand or prefetch.
     * @param objectSize   told the object's size when the answer carries it; called at most once.
     * @param progress     told each destination that holds its bytes.
     * @return the bytes read in all, fewer than asked only where the object ends.
     */
    default CompletableFuture<Integer> readBlocks(
        final String key, final long offset, final ByteBuffer[] destinations, final FetchClass fetchClass,
        final LongConsumer objectSize, final BlockProgress progress)
    {
        return readBlocksFrom(key, offset, destinations, 0, 0, fetchClass, objectSize, progress);
    }

    /** The default {@link #readBlocks} from destination {@code index} on, {@code total} bytes read before it. */
    private CompletableFuture<Integer> readBlocksFrom(
        final String key, final long offset, final ByteBuffer[] destinations, final int index, final int total,
        final FetchClass fetchClass, final LongConsumer objectSize, final BlockProgress progress)
    {
        if (index == destinations.length)
        {
            return CompletableFuture.completedFuture(total);
        }
        final int asked = destinations[index].remaining();
        final CompletableFuture<Integer> read;
        try
        {
            read = read(key, offset, destinations[index].duplicate(), fetchClass, 0 == index ? objectSize : null);
        }
        catch (final RuntimeException ex)
        {
            return CompletableFuture.failedFuture(ex);
        }
        return read.thenCompose((bytes) ->
        {
            if (bytes > 0)
            {
                progress.filled(index, bytes);
            }
            return bytes < asked ? CompletableFuture.completedFuture(total + bytes) : readBlocksFrom(
                key, offset + bytes, destinations, index + 1, total + bytes, fetchClass, objectSize, progress);
        });
    }

    /**
     * Whether {@link #readVectored} sends several ranges as one request (the L2 client: one {@code POST /ranges}),
     * so the engine gathers the missing ranges of a vectored read into one call. The default is false.
     *
     * @return whether vectored reads are one request.
     */
    default boolean readsVectored()
    {
        return false;
    }

    /**
     * Reads several ranges of one object, each into its own destination (from its position to its limit), filling
     * each as far as the object holds. The default starts one {@link #read(String, long, ByteBuffer, FetchClass,
     * LongConsumer)} per range, all at once.
     *
     * @param key          the object key.
     * @param offsets      the first byte of each range.
     * @param destinations where each range goes; the caller owns them.
     * @param fetchClass   demand or prefetch.
     * @param objectSize   told the object's size when an answer carries it; may be called more than once, with the
     *                     same value.
     * @return the bytes read into each destination; fails as a single read would.
     */
    default CompletableFuture<int[]> readVectored(
        final String key, final long[] offsets, final ByteBuffer[] destinations, final FetchClass fetchClass,
        final LongConsumer objectSize)
    {
        final int n = offsets.length;
        final int[] counts = new int[n];
        final CompletableFuture<?>[] reads = new CompletableFuture<?>[n];
        for (int i = 0; i < n; i++)
        {
            final int index = i;
            CompletableFuture<Integer> read;
            try
            {
                read = read(key, offsets[i], destinations[i], fetchClass, objectSize);
            }
            catch (final RuntimeException ex)
            {
                read = CompletableFuture.failedFuture(ex);
            }
            reads[i] = read.thenAccept((bytes) -> counts[index] = bytes);
        }
        return CompletableFuture.allOf(reads).thenApply((ignored) -> counts);
    }

    /**
     * Reads a byte range only if the object still has the given entity tag (or version). Never cached.
     *
     * @param key         the object key.
     * @param offset      the first byte to read.
     * @param destination where the bytes go; the caller owns it.
     * @param ifMatch     the entity tag or version the object must have.
     * @return the number of bytes read; fails with {@link PreconditionFailedException} when the tag differs.
     */
    CompletableFuture<Integer> readIfMatch(String key, long offset, ByteBuffer destination, String ifMatch);

    /**
     * The current entity tag (or version) of an object, for {@link #readIfMatch}. Never cached.
     *
     * @param key the object key.
     * @return the tag.
     */
    CompletableFuture<String> version(String key);

    /**
     * Writes a whole object. Never cached.
     *
     * @param key    the object key.
     * @param source the bytes from its position to its limit.
     * @return completes when the object is durable in the origin.
     */
    CompletableFuture<Void> put(String key, ByteBuffer source);

    /**
     * Deletes an object. Never cached.
     *
     * @param key the object key.
     * @return completes when the object is gone (also when it never existed).
     */
    CompletableFuture<Void> delete(String key);

    /**
     * Lists object keys under a prefix. Never cached.
     *
     * @param prefix the key prefix, empty for all.
     * @return the keys, sorted.
     */
    CompletableFuture<List<String>> list(String prefix);

    /**
     * One page of a listing with each object's size, time and tag (what S3's {@code ListObjectsV2} answers). Never
     * cached. The default pages {@link #list(String)} with {@link ListPages} and asks {@link #stat(String)} for each
     * object on the page (one HEAD each, a key deleted meanwhile is left out); origins that list with metadata
     * override it.
     *
     * @param request what to list.
     * @return the page; fails with {@link IllegalArgumentException} for a continuation token this origin did not
     *     make, with {@link UnsupportedOperationException} when the origin cannot list.
     */
    default CompletableFuture<ListPage> listPage(final ListPage.Request request)
    {
        return list(request.prefix()).thenCompose((keys) ->
        {
            final ListPages.Selection page = ListPages.select(keys, request);
            final List<CompletableFuture<ObjectInfo>> stats = new ArrayList<>(page.objectKeys().size());
            for (final String key : page.objectKeys())
            {
                stats.add(stat(key).exceptionally((error) ->
                {
                    final Throwable cause = error instanceof CompletionException && null != error.getCause() ?
                        error.getCause() : error;
                    if (cause instanceof ObjectNotFoundException)
                    {
                        return null;
                    }
                    throw error instanceof CompletionException ? (CompletionException) error :
                        new CompletionException(error);
                }));
            }
            return CompletableFuture.allOf(stats.toArray(new CompletableFuture<?>[0])).thenApply((v) ->
            {
                final List<ObjectInfo> objects = new ArrayList<>(stats.size());
                for (final CompletableFuture<ObjectInfo> stat : stats)
                {
                    final ObjectInfo info = stat.join();
                    if (null != info)
                    {
                        objects.add(info);
                    }
                }
                return new ListPage(objects, page.commonPrefixes(), page.nextContinuationToken());
            });
        });
    }

    /**
     * Asks the origin whether the container it serves (a bucket, a root directory) exists and answers: what S3's
     * {@code HeadBucket} asks. Never cached. The default assumes it does; origins that can check override it.
     *
     * @return completes when it exists; fails with {@link ObjectNotFoundException} when it does not, with an
     *     {@link OriginException} when the origin cannot be reached.
     */
    default CompletableFuture<Void> probe()
    {
        return CompletableFuture.completedFuture(null);
    }

    /**
     * Bytes this store took from L2 cache servers since it was made, for the engine's
     * {@link dev.offcache.range.metrics.CacheStats#l2Bytes()}: an L2 client counts them; every other store took
     * none. Read at snapshot time only.
     *
     * @return the bytes; 0 for a store that is not an L2 client.
     */
    default long l2Bytes()
    {
        return 0;
    }

    /**
     * Releases connections and threads the store owns.
     */
    @Override
    void close();
}
