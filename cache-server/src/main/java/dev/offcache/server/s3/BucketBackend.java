package dev.offcache.server.s3;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;

import dev.offcache.range.origin.ListPage;
import dev.offcache.range.origin.MultipartUploads;
import dev.offcache.range.origin.ObjectInfo;
import dev.offcache.range.origin.ObjectMetadata;

/**
 * What the S3 endpoint asks of the storage behind one bucket. Object metadata comes from the cache (one origin HEAD
 * per object version, remembered with its size), listings and {@code HeadBucket} straight from the origin, and
 * pass-through writes (whole objects and multipart uploads) go to the origin and then warm the cache. Implementations
 * are thread-safe.
 */
public interface BucketBackend
{
    /**
     * The key the cache engine knows an object of this bucket by (the key itself, or {@code BUCKET/KEY} when the
     * server serves several buckets): what a response body is streamed from.
     *
     * @param key a validated key.
     * @return the engine's key.
     */
    String cacheKey(String key);

    /**
     * This bucket without the cache: writes of keys the cache never serves (a directory marker {@code dir/}) go
     * straight to the origin, with nothing to forget or warm.
     *
     * @return the backend straight over the origin (this one when it is already).
     */
    default BucketBackend straight()
    {
        return this;
    }

    /**
     * Whether the origin takes any key as an opaque name (an S3 bucket: {@code dir/} and {@code a/./b} are objects of
     * their own), so a key the cache does not serve is read {@linkplain #straight() straight} from it; a directory
     * would read a directory or another file.
     *
     * @return true for an S3 origin.
     */
    default boolean readsAnyKey()
    {
        return false;
    }

    /**
     * The size, time and tag of an object (remembered by the cache for the version it holds).
     *
     * @param key a validated key.
     * @return the metadata; fails with {@link dev.offcache.range.origin.ObjectNotFoundException} when missing.
     */
    CompletableFuture<ObjectInfo> stat(String key);

    /**
     * Reads bytes of an object version straight from the origin, never cached: the body of a key the cache does not
     * serve, read through {@link #straight()}.
     *
     * @param key         a key the origin takes.
     * @param offset      the first byte.
     * @param destination where to, from its position to its limit (the caller owns it).
     * @param etag        the version's tag: the read fails when the origin has another version; {@code null} reads
     *                    whatever it has (an origin without tags).
     * @return the bytes read (fewer only at the end).
     */
    CompletableFuture<Integer> read(String key, long offset, ByteBuffer destination, String etag);

    /**
     * The version of an object and where one of its parts lies, for a {@code partNumber} read: an object not uploaded
     * in parts has one part, the whole object; the parts of one that was are the origin's (asked once per version
     * and part where the backend caches).
     *
     * @param key        a validated key.
     * @param partNumber 1 to 10 000.
     * @return the part; fails with {@link S3Exception} ({@code InvalidPartNumber}) for a part the object does not
     *     have, as {@link #stat} for a missing object.
     */
    CompletableFuture<ObjectPart> part(String key, int partNumber);

    /**
     * One page of a listing, from the origin (never cached).
     *
     * @param request what to list.
     * @return the page.
     */
    CompletableFuture<ListPage> list(ListPage.Request request);

    /**
     * Whether the origin's container exists and answers (never cached).
     *
     * @return completes when it does.
     */
    CompletableFuture<Void> probe();

    /**
     * Writes an object through to the origin, forgets what the cache knew of the key, and warms the cache with the
     * new version.
     *
     * @param key   a validated key.
     * @param bytes the object.
     * @return the new version's metadata once the origin has it.
     */
    CompletableFuture<ObjectInfo> put(String key, ByteBuffer bytes);

    /**
     * Whether writes of this bucket stream their bodies to the origin
     * ({@link #put(String, long, ObjectMetadata, Flow.Publisher)},
     * {@link #uploadPart(String, String, int, long, Flow.Publisher)}) rather than taking them whole.
     *
     * @return true for an S3 origin.
     */
    default boolean streamsWrites()
    {
        return false;
    }

    /**
     * Writes an object through to the origin from a stream, as {@link #put(String, ByteBuffer)} does with a whole
     * body, stored with the write's headers; only where {@link #streamsWrites()}.
     *
     * @param key      a validated key.
     * @param length   the object's length.
     * @param metadata the headers to store with it.
     * @param body     its bytes, subscribed to once.
     * @return the new version's metadata once the origin has it.
     */
    default CompletableFuture<ObjectInfo> put(
        final String key, final long length, final ObjectMetadata metadata, final Flow.Publisher<ByteBuffer> body)
    {
        throw new UnsupportedOperationException("streamed writes");
    }

    /**
     * Writes one part of an upload to the origin from a stream; only where {@link #streamsWrites()}.
     *
     * @param key        a validated key.
     * @param uploadId   the upload.
     * @param partNumber 1 to 10 000.
     * @param length     the part's length.
     * @param body       its bytes, subscribed to once.
     * @return the part's tag.
     */
    default CompletableFuture<String> uploadPart(
        final String key, final String uploadId, final int partNumber, final long length,
        final Flow.Publisher<ByteBuffer> body)
    {
        throw new UnsupportedOperationException("streamed writes");
    }

    /**
     * Deletes an object in the origin and forgets what the cache knew of it.
     *
     * @param key a validated key.
     * @return completes when it is gone.
     */
    CompletableFuture<Void> delete(String key);

    /**
     * Starts a multipart upload in the origin.
     *
     * @param key      a validated key.
     * @param metadata the headers the object is to be stored with.
     * @return the upload id; fails with {@link S3Exception} ({@code NotImplemented}) when the origin takes none.
     */
    CompletableFuture<String> createMultipartUpload(String key, ObjectMetadata metadata);

    /**
     * Writes one part of an upload to the origin.
     *
     * @param key        a validated key.
     * @param uploadId   the upload.
     * @param partNumber 1 to 10 000.
     * @param bytes      the part.
     * @return the part's tag.
     */
    CompletableFuture<String> uploadPart(String key, String uploadId, int partNumber, ByteBuffer bytes);

    /**
     * Lists an upload's parts, from the origin.
     *
     * @param key              a validated key.
     * @param uploadId         the upload.
     * @param partNumberMarker parts after this number.
     * @param maxParts         at most this many.
     * @return the page.
     */
    CompletableFuture<MultipartUploads.PartsPage> listParts(
        String key, String uploadId, int partNumberMarker, int maxParts);

    /**
     * Completes an upload in the origin, forgets what the cache knew of the key and warms it with the new version,
     * as {@link #put} does.
     *
     * @param key      a validated key.
     * @param uploadId the upload.
     * @param parts    part numbers and tags, ascending.
     * @return the new version's metadata once the origin has it.
     */
    CompletableFuture<ObjectInfo> completeMultipartUpload(
        String key, String uploadId, List<MultipartUploads.Part> parts);

    /**
     * Aborts an upload in the origin.
     *
     * @param key      a validated key.
     * @param uploadId the upload.
     * @return completes when it is gone.
     */
    CompletableFuture<Void> abortMultipartUpload(String key, String uploadId);
}
