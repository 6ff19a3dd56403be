package dev.offcache.server.s3;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import dev.offcache.range.origin.ObjectInfo;
import dev.offcache.range.origin.ObjectMetadata;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;

/**
 * The headers S3 puts on an object's {@code GET} and {@code HEAD} answers: a stable {@code ETag} and
 * {@code Last-Modified} per object version, {@code Accept-Ranges}, the headers stored with the version
 * ({@link ObjectMetadata}: {@code Content-Type} — S3's default {@code binary/octet-stream} when none —, user metadata,
 * {@code Cache-Control}...), and the {@code response-*} query overrides a signed request may ask for; and the stored
 * headers a write carries ({@link #written}). The same
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

    /** Headers a write may carry that S3 acts on but does not return as such on reads. */
    private static final Set<String> WRITE_ONLY = Set.of("x-amz-tagging", "x-amz-acl",
        "x-amz-server-side-encryption-context", "x-amz-grant-full-control", "x-amz-grant-read",
        "x-amz-grant-read-acp", "x-amz-grant-write-acp");

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
     * The headers a write ({@code PutObject}, {@code CreateMultipartUpload}) asks the object to be stored with, to
     * pass on to the origin: every header S3 stores ({@link ObjectMetadata#isStored}) and the write-only ones
     * ({@code x-amz-tagging}, {@code x-amz-acl}, the SSE context), with {@code aws-chunked} taken out of
     * {@code Content-Encoding} (it describes the transfer, not the object: S3 does not store it).
     *
     * @param headers the request's headers.
     * @return the metadata.
     * @throws S3Exception ({@code MetadataTooLarge}) past {@link ObjectMetadata#MAX_BYTES}.
     */
    public static ObjectMetadata written(final HttpHeaders headers)
    {
        final Map<String, String> fields = new TreeMap<>();
        for (final Map.Entry<String, String> header : headers)
        {
            final String name = header.getKey().toLowerCase(Locale.ROOT);
            if (!ObjectMetadata.isStored(name) && !WRITE_ONLY.contains(name))
            {
                continue;
            }
            String value = header.getValue();
            if ("content-encoding".equals(name))
            {
                value = withoutAwsChunked(value);
                if (value.isEmpty())
                {
                    continue;
                }
            }
            fields.merge(name, value, (a, b) -> a + "," + b);
        }
        try
        {
            return ObjectMetadata.ofFields(fields);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new S3Exception(S3ErrorCode.METADATA_TOO_LARGE).with("MaxSizeAllowed",
                Integer.toString(ObjectMetadata.MAX_BYTES));
        }
    }

    /** A {@code Content-Encoding} without its {@code aws-chunked} coding, as S3 stores it. */
    static String withoutAwsChunked(final String contentEncoding)
    {
        final StringBuilder out = new StringBuilder(contentEncoding.length());
        for (final String coding : contentEncoding.split(","))
        {
            final String trimmed = coding.trim();
            if (!trimmed.isEmpty() && !"aws-chunked".equalsIgnoreCase(trimmed))
            {
                out.append(out.length() == 0 ? "" : ",").append(trimmed);
            }
        }
        return out.toString();
    }

    /**
     * Sets the headers of an object answer: the version's tag and time, its stored headers (S3's default
     * {@code Content-Type} when it has none), then the {@code response-*} overrides.
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
        info.metadata().forEach(out::set);
        final String encoding = info.metadata().get("content-encoding");
        if (null != encoding && encoding.toLowerCase(Locale.ROOT).contains("aws-chunked"))
        {
            // stored by an origin that kept the transfer coding of an aws-chunked upload: S3 never returns it
            final String stored = withoutAwsChunked(encoding);
            if (stored.isEmpty())
            {
                out.remove(HttpHeaderNames.CONTENT_ENCODING);
            }
            else
            {
                out.set(HttpHeaderNames.CONTENT_ENCODING, stored);
            }
        }
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
