package dev.offcache.server.s3;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

import io.netty.handler.codec.http.HttpHeaders;

/**
 * What the S3 endpoint answers to one request, decided before any body byte: either a complete answer (an XML
 * document, an empty 200/204/304, an error), an object body that the transport streams through the cache engine,
 * or one it reads straight from the origin (a key the cache does not serve). Headers are complete except
 * {@code Content-Length} of a complete answer, which the transport sets.
 */
public sealed interface S3Answer
{
    /**
     * The HTTP status.
     *
     * @return the status.
     */
    int status();

    /**
     * The response headers.
     *
     * @return the headers.
     */
    HttpHeaders headers();

    /**
     * A complete answer.
     *
     * @param status    the status.
     * @param headers   the headers.
     * @param body      the body text (XML, UTF-8), empty for none; never sent for {@code HEAD}.
     * @param errorCode the S3 error code of an error answer (for the metrics), {@code null} otherwise.
     */
    record Complete(int status, HttpHeaders headers, String body, S3ErrorCode errorCode) implements S3Answer
    {
        /**
         * A successful answer.
         *
         * @param status  the status.
         * @param headers the headers.
         * @param body    the body, empty for none.
         */
        public Complete(final int status, final HttpHeaders headers, final String body)
        {
            this(status, headers, body, null);
        }
    }

    /**
     * Object bytes {@code [start, start + length)} of {@code key}, streamed through the cache with these headers
     * ({@code Content-Length}, {@code Content-Range} included); a {@code HEAD} sends the headers only.
     *
     * @param status  200 or 206.
     * @param headers the headers.
     * @param key     the object key.
     * @param start   the first byte.
     * @param length  the byte count.
     */
    record ObjectBody(int status, HttpHeaders headers, String key, long start, long length) implements S3Answer
    {
    }

    /**
     * Object bytes {@code [start, start + length)} read straight from the origin, nothing cached: the answer to a key
     * the cache does not serve (a directory marker {@code dir/}, a {@code .} segment, a control character). The
     * transport reads them in bounded pieces, one at a time, and cuts the connection if a read fails (the object
     * changed since its headers were decided, say); a {@code HEAD} sends the headers only.
     *
     * @param status  200 or 206.
     * @param headers the headers.
     * @param reader  reads the version the headers describe.
     * @param start   the first byte.
     * @param length  the byte count.
     */
    record OriginBody(int status, HttpHeaders headers, OriginReader reader, long start, long length)
        implements S3Answer
    {
    }

    /** Reads bytes of one object version from the origin, for {@link OriginBody}. */
    @FunctionalInterface
    interface OriginReader
    {
        /**
         * Reads {@code destination.remaining()} bytes from {@code offset} (fewer only at the object's end).
         *
         * @param offset      the first byte.
         * @param destination where to (from its position; the caller owns it).
         * @return the bytes read; fails when the version is gone or the origin fails.
         */
        CompletableFuture<Integer> read(long offset, ByteBuffer destination);
    }
}
