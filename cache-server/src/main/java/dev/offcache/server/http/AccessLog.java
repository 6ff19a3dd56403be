package dev.offcache.server.http;

import java.net.SocketAddress;

import dev.offcache.server.log.Secrets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;

/**
 * One request's line of the access log: the logger {@value #LOGGER} at INFO, off unless configured
 * ({@code --access-log}, or a Logback configuration of one's own). A line is written when the response completes:
 * its last byte handed to the socket, or the stream cut (a failure after the headers, or the client gone), or the
 * connection closed before any answer:
 * <pre>
 * GET /obj/data/part-0.parquet range=0-99 status=206 bytes=100 us=412 api=obj client=/127.0.0.1:50412
 * GET /obj/big.bin range=- status=200 bytes=2097152 us=9120 api=obj client=/127.0.0.1:50414 cut
 * </pre>
 * The target's signing query parameters (a presigned URL's {@code X-Amz-Signature}, {@code X-Amz-Credential},
 * {@code X-Amz-Security-Token}, SigV2's {@code Signature} and {@code AWSAccessKeyId}) show as {@code REDACTED}
 * ({@link Secrets}), whatever Logback configuration writes the line; no header is logged.
 * {@code bytes} counts the body bytes of the object handed to the connection (without {@code /ranges} length
 * prefixes or CRC trailers; for an error, its JSON body), {@code us} the microseconds from the request's arrival.
 * A {@code POST /ranges} shows its range count ({@code range=3 ranges}).
 *
 * <p>When the logger is off, {@link #begin} returns {@code null} after one level check and nothing else runs: no
 * header lookup, no record, no line. When on, the record and the line are the only allocations. Not thread-safe: a
 * record belongs to its connection's event loop.
 */
final class AccessLog
{
    /** The logger's name, for a Logback configuration. */
    static final String LOGGER = "offcache.access";

    private static final Logger LOG = LoggerFactory.getLogger(LOGGER);
    private static final String BYTES_UNIT = "bytes=";

    private final String method;
    private final String target;
    private final String range;
    private final long startNanos;
    private final SocketAddress client;
    private int ranges;
    private boolean written;

    private AccessLog(
        final String method, final String target, final String range, final long startNanos, final SocketAddress client)
    {
        this.method = method;
        this.target = target;
        this.range = range;
        this.startNanos = startNanos;
        this.client = client;
    }

    /**
     * A record for a request, or {@code null} when the access log is off.
     *
     * @param request    the request (only its method, target and {@code Range} header are kept, not the request).
     * @param startNanos when it arrived, {@link System#nanoTime()}.
     * @param client     the connection's remote address.
     * @return the record, or {@code null}.
     */
    static AccessLog begin(final HttpRequest request, final long startNanos, final SocketAddress client)
    {
        if (!LOG.isInfoEnabled())
        {
            return null;
        }
        return new AccessLog(request.method().name(), Secrets.redactTarget(request.uri()),
            request.headers().get(HttpHeaderNames.RANGE), startNanos, client);
    }

    /**
     * Sets how many ranges the response streams, shown when the request has no {@code Range} header and asks for
     * more than one (a {@code POST /ranges}).
     *
     * @param count the number of ranges.
     */
    void ranges(final int count)
    {
        ranges = count;
    }

    /**
     * Writes the line, once (later calls do nothing).
     *
     * @param api     the endpoint: {@code obj}, {@code ranges}, {@code s3_GetObject}..., {@code other}.
     * @param status  the status code sent, or 0 when none was.
     * @param bytes   the body bytes handed to the connection.
     * @param outcome {@code null} for a complete response, else a word appended to the line ({@code cut}).
     */
    void complete(final String api, final int status, final long bytes, final String outcome)
    {
        if (written)
        {
            return;
        }
        written = true;
        final StringBuilder line = new StringBuilder(128 + target.length())
            .append(method).append(' ').append(target)
            .append(" range=");
        if (null != range)
        {
            line.append(range, range.startsWith(BYTES_UNIT) ? BYTES_UNIT.length() : 0, range.length());
        }
        else if (ranges > 1)
        {
            line.append(ranges).append(" ranges");
        }
        else
        {
            line.append('-');
        }
        line.append(" status=").append(status)
            .append(" bytes=").append(bytes)
            .append(" us=").append((System.nanoTime() - startNanos) / 1000)
            .append(" api=").append(api)
            .append(" client=").append(client);
        if (null != outcome)
        {
            line.append(' ').append(outcome);
        }
        LOG.info(line.toString());
    }
}
