package dev.offcache.server.s3;

import java.util.List;

import dev.offcache.range.origin.ObjectInfo;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;

/**
 * The headers S3 puts on an object's {@code GET} and {@code HEAD} answers: a stable {@code ETag} and
 * {@code Last-Modified} per object version, {@code Accept-Ranges}, S3's default {@code Content-Type}
 * ({@code binary/octet-stream}), and the {@code response-*} query overrides a signed request may ask for. The same
 * tag appears in listings ({@link #etagOf}), so a client that lists and then reads with {@code If-Match} (S3A does)
 * is answered consistently. Stateless and thread-safe.
 */
public final class ObjectHeaders
{
    /** S3's content type when an object has none recorded. */
    public static final String DEFAULT_CONTENT_TYPE = "binary/octet-stream";
    private static final String[][] OVERRIDES = {
        {"response-content-type", "Content-Type"},
        {"response-content-language", "Content-Language"},
        {"response-expires", "Expires"},
        {"response-cache-control", "Cache-Control"},
        {"response-content-disposition", "Content-Disposition"},
        {"response-content-encoding", "Content-Encoding"},
    };

    private ObjectHeaders()
    {
    }

    /**
     * The entity tag of a version: the origin's, or, when it gives none, one made of the size and time (with a dash,
     * so that no client takes it for an MD5 of the bytes).
     *
     * @param info the version.
     * @return the quoted tag.
     */
    public static String etagOf(final ObjectInfo info)
    {
        if (null != info.etag() && !info.etag().isEmpty())
        {
            final String tag = info.etag();
            return tag.charAt(0) == '"' || tag.startsWith("W/") ? tag : '"' + tag + '"';
        }
        return "\"" + Long.toHexString(Math.max(0, info.lastModifiedMillis())) + "-" + Long.toHexString(info.size()) +
            "\"";
    }

    /**
     * The last-modified time shown for a version: the origin's, or the epoch when it gives none.
     *
     * @param info the version.
     * @return epoch milliseconds.
     */
    public static long lastModifiedOf(final ObjectInfo info)
    {
        return info.hasLastModified() ? info.lastModifiedMillis() : 0;
    }

    /**
     * Checks the {@code response-*} overrides of a request: each value must be a valid header value. (S3 refuses
     * them on anonymous requests; this endpoint has none: every request is signed, or authentication is off.)
     *
     * @param query the request's query.
     * @throws S3Exception ({@code InvalidArgument}) otherwise.
     */
    public static void checkOverrides(final List<AwsUriEncoding.QueryParameter> query)
    {
        for (final String[] override : OVERRIDES)
        {
            final String value = S3Request.parameter(query, override[0]);
            if (null == value)
            {
                continue;
            }
            for (int i = 0; i < value.length(); i++)
            {
                final char c = value.charAt(i);
                if ((c < 0x20 && c != '\t') || c == 0x7F || c > 0xFF)
                {
                    throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "a response header override is not a valid " +
                        "header value").with("ArgumentName", override[0]);
                }
            }
        }
    }

    /**
     * Sets the headers of an object answer.
     *
     * @param out   the response headers.
     * @param info  the version.
     * @param query the request's query (its {@code response-*} overrides, already checked), or {@code null}.
     */
    public static void apply(
        final HttpHeaders out, final ObjectInfo info, final List<AwsUriEncoding.QueryParameter> query)
    {
        out.set(HttpHeaderNames.ETAG, etagOf(info))
            .set(HttpHeaderNames.LAST_MODIFIED, AmzDates.formatHttpDate(lastModifiedOf(info)))
            .set(HttpHeaderNames.ACCEPT_RANGES, "bytes")
            .set(HttpHeaderNames.CONTENT_TYPE, DEFAULT_CONTENT_TYPE);
        if (null == query)
        {
            return;
        }
        for (final String[] override : OVERRIDES)
        {
            final String value = S3Request.parameter(query, override[0]);
            if (null != value)
            {
                out.set(override[1], value);
            }
        }
    }
}
