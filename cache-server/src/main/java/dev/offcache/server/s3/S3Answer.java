package dev.offcache.server.s3;

import io.netty.handler.codec.http.HttpHeaders;

/**
 * What the S3 endpoint answers to one request, decided before any body byte: either a complete answer (an XML
 * document, an empty 200/204/304, an error), or an object body that the transport streams through the cache
 * engine. Headers are complete except {@code Content-Length} of a complete answer, which the transport sets.
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
}
