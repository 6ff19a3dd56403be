package dev.offcache.range.origin;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;

/**
 * What an origin that takes S3's multipart uploads offers besides {@link ObjectStore}: an upload is created, its parts
 * are written (each answered with its tag), listed, and the upload is completed into one object or aborted; and
 * whole objects and parts are written from a stream of known length ({@link #putObject}, {@link #uploadPart(String,
 * String, int, long, Flow.Publisher)}), so a writer never holds a body whole. Only an S3 origin has it; the L2
 * server's S3 endpoint passes its clients' multipart calls and streamed writes straight to it. Nothing here is
 * cached. Implementations are thread-safe; a part's bytes are the caller's and are not touched after the future
 * completes.
 */
public interface MultipartUploads
{
    /**
     * One part of an upload.
     *
     * @param partNumber         1 to 10 000.
     * @param etag               the tag the origin gave the part.
     * @param size               its size in bytes, -1 where not known (in a completion request).
     * @param lastModifiedMillis when it was written, {@link ObjectInfo#UNKNOWN_TIME} where not known.
     */
    record Part(int partNumber, String etag, long size, long lastModifiedMillis)
    {
    }

    /**
     * Where one part of a completed object lies, as the origin answers a {@code HEAD} with {@code partNumber}.
     *
     * @param start      the part's first byte in the object.
     * @param length     its length in bytes.
     * @param partsCount how many parts the object has; 0 when the origin answered with the whole object rather than a
     *                   part (a server that does not serve parts).
     * @param etag       the tag of the object version the answer is about.
     */
    record PartRange(long start, long length, int partsCount, String etag)
    {
    }

    /**
     * One page of an upload's parts.
     *
     * @param parts                the parts, by part number.
     * @param truncated            whether more parts follow.
     * @param nextPartNumberMarker the marker of the next page, 0 when none.
     */
    record PartsPage(List<Part> parts, boolean truncated, int nextPartNumberMarker)
    {
    }

    /**
     * The origin refused a multipart call (an unknown upload id, a part too small, a part tag that does not match):
     * its error code and status, so a pass-through answers its client as the origin answered.
     */
    final class RefusedException extends OriginException
    {
        private static final long serialVersionUID = 1L;

        private final String code;
        private final int status;

        /**
         * An origin's refusal.
         *
         * @param code    the origin's error code ({@code NoSuchUpload}, {@code InvalidPart}...).
         * @param status  its HTTP status.
         * @param message what it said.
         */
        public RefusedException(final String code, final int status, final String message)
        {
            super(message);
            this.code = code;
            this.status = status;
        }

        /**
         * The origin's error code.
         *
         * @return the code.
         */
        public String code()
        {
            return code;
        }

        /**
         * The origin's HTTP status.
         *
         * @return the status.
         */
        public int status()
        {
            return status;
        }
    }

    /**
     * Where a part of a completed object lies (a {@code HEAD} with {@code partNumber}).
     *
     * @param key        the object key.
     * @param partNumber 1 to 10 000.
     * @return the part's range; fails with {@link RefusedException} ({@code InvalidPartNumber}) for a part the
     *     object does not have, {@link ObjectNotFoundException} for a missing object.
     */
    CompletableFuture<PartRange> partRange(String key, int partNumber);

    /**
     * Starts an upload.
     *
     * @param key      the object key.
     * @param metadata the headers the object is to be stored with ({@code Content-Type}, user metadata...).
     * @return the upload id.
     */
    CompletableFuture<String> createMultipartUpload(String key, ObjectMetadata metadata);

    /**
     * Writes one part.
     *
     * @param key        the object key.
     * @param uploadId   the upload.
     * @param partNumber 1 to 10 000.
     * @param bytes      the part, from its position to its limit.
     * @return the part's tag.
     */
    CompletableFuture<String> uploadPart(String key, String uploadId, int partNumber, ByteBuffer bytes);

    /**
     * Writes one part from a stream: the body is subscribed to once and taken at the origin's pace; an error from it
     * fails the part (the origin keeps no part of it).
     *
     * @param key        the object key.
     * @param uploadId   the upload.
     * @param partNumber 1 to 10 000.
     * @param length     the part's length in bytes: exactly what the body publishes.
     * @param body       the part's bytes (each buffer is the origin's once published).
     * @return the part's tag.
     */
    CompletableFuture<String> uploadPart(
        String key, String uploadId, int partNumber, long length, Flow.Publisher<ByteBuffer> body);

    /**
     * Writes a whole object from a stream, as {@link ObjectStore#put} without holding it: the body is subscribed to
     * once; an error from it fails the write (the origin keeps the previous version, if any).
     *
     * @param key      the object key.
     * @param length   the object's length in bytes: exactly what the body publishes.
     * @param metadata the headers the object is stored with ({@code Content-Type}, user metadata...).
     * @param body     the object's bytes (each buffer is the origin's once published).
     * @return completes when the origin has the object.
     */
    CompletableFuture<Void> putObject(
        String key, long length, ObjectMetadata metadata, Flow.Publisher<ByteBuffer> body);

    /**
     * Lists the parts written so far.
     *
     * @param key              the object key.
     * @param uploadId         the upload.
     * @param partNumberMarker list parts after this number (0 for the first page).
     * @param maxParts         at most this many.
     * @return the page.
     */
    CompletableFuture<PartsPage> listParts(String key, String uploadId, int partNumberMarker, int maxParts);

    /**
     * Completes an upload: the parts, in order, become the object.
     *
     * @param key      the object key.
     * @param uploadId the upload.
     * @param parts    part numbers and tags, ascending.
     * @return the object's tag.
     */
    CompletableFuture<String> completeMultipartUpload(String key, String uploadId, List<Part> parts);

    /**
     * Aborts an upload and drops its parts.
     *
     * @param key      the object key.
     * @param uploadId the upload.
     * @return completes when it is gone.
     */
    CompletableFuture<Void> abortMultipartUpload(String key, String uploadId);
}
