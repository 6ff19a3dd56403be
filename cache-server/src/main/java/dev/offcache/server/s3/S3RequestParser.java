package dev.offcache.server.s3;

import java.util.List;
import java.util.Locale;
import java.util.Set;

import io.netty.handler.codec.http.HttpHeaders;

/**
 * Tells which S3 operation a request is, and on which bucket and key: path-style ({@code /bucket/key}), or
 * virtual-host style ({@code bucket.DOMAIN/key}) when a base domain is configured and the {@code Host} is under it.
 * The query decides between operations on one resource as S3's does ({@code ?location}, {@code ?list-type=2},
 * {@code ?uploads}...); a query parameter naming a sub-resource this endpoint does not serve makes the request
 * {@link S3Operation#UNSUPPORTED}, never a silently different operation. Immutable and thread-safe.
 */
public final class S3RequestParser
{
    /** Query parameters that do not name a sub-resource: listing options, overrides, signing, SDK hints. */
    private static final Set<String> PLAIN_PARAMETERS = Set.of(
        "prefix", "delimiter", "marker", "max-keys", "encoding-type", "list-type", "continuation-token",
        "start-after", "fetch-owner", "x-id", "versionId", "partNumber", "AWSAccessKeyId", "Signature", "Expires",
        "response-content-type", "response-content-language", "response-expires", "response-cache-control",
        "response-content-disposition", "response-content-encoding");

    private final String baseDomain;

    /**
     * A parser.
     *
     * @param baseDomain the virtual-host base domain (for example {@code s3.cache.internal}), or {@code null} for
     *                   path-style only.
     */
    public S3RequestParser(final String baseDomain)
    {
        this.baseDomain = null == baseDomain || baseDomain.isEmpty() ? null : baseDomain.toLowerCase(Locale.ROOT);
    }

    /**
     * Parses a request.
     *
     * @param method  the HTTP method.
     * @param uri     the request target as sent (path and query).
     * @param headers the headers ({@code Host}, {@code x-amz-copy-source}).
     * @return the request.
     * @throws S3Exception ({@code InvalidArgument}) for a malformed URI, ({@code MethodNotAllowed}) for a method
     *                     S3 does not have on the resource.
     */
    public S3Request parse(final String method, final String uri, final HttpHeaders headers)
    {
        if (uri.isEmpty() || uri.charAt(0) != '/')
        {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "the request target must be a path");
        }
        final int q = uri.indexOf('?');
        final String rawPath = q < 0 ? uri : uri.substring(0, q);
        final List<AwsUriEncoding.QueryParameter> query =
            AwsUriEncoding.parseQuery(q < 0 ? null : uri.substring(q + 1));
        final String path = AwsUriEncoding.decodePath(rawPath);
        String bucket = virtualHostBucket(headers.get("Host"));
        String key;
        if (null != bucket)
        {
            key = path.length() > 1 ? path.substring(1) : null;
        }
        else
        {
            final int slash = path.indexOf('/', 1);
            bucket = path.length() <= 1 ? null : path.substring(1, slash < 0 ? path.length() : slash);
            key = slash < 0 || slash == path.length() - 1 ? null : path.substring(slash + 1);
        }
        return new S3Request(operationOf(method, bucket, key, query, headers), bucket, key, rawPath, query);
    }

    /**
     * Whether a request addresses its bucket by host name (virtual-host style).
     *
     * @param headers the request's headers ({@code Host}).
     * @return true when the host names a bucket under the base domain.
     */
    public boolean isVirtualHost(final HttpHeaders headers)
    {
        return null != virtualHostBucket(headers.get("Host"));
    }

    private String virtualHostBucket(final String host)
    {
        if (null == baseDomain || null == host)
        {
            return null;
        }
        String name = host.toLowerCase(Locale.ROOT);
        final int colon = name.lastIndexOf(':');
        if (colon > 0 && name.indexOf(']') < colon)
        {
            name = name.substring(0, colon);
        }
        if (name.length() > baseDomain.length() + 1 && name.endsWith(baseDomain) &&
            name.charAt(name.length() - baseDomain.length() - 1) == '.')
        {
            return name.substring(0, name.length() - baseDomain.length() - 1);
        }
        return null;
    }

    private static S3Operation operationOf(
        final String method,
        final String bucket,
        final String key,
        final List<AwsUriEncoding.QueryParameter> query,
        final HttpHeaders headers)
    {
        if ("OPTIONS".equals(method))
        {
            // a CORS preflight, unsigned: S3's answers for a bucket without a CORS configuration
            if (!headers.contains("Origin"))
            {
                throw new S3Exception(S3ErrorCode.BAD_REQUEST);
            }
            if (!headers.contains("Access-Control-Request-Method"))
            {
                throw new S3Exception(S3ErrorCode.BAD_REQUEST, "Invalid Access-Control-Request-Method: null");
            }
            throw new S3Exception(S3ErrorCode.ACCESS_FORBIDDEN);
        }
        if (null == bucket)
        {
            if ("GET".equals(method))
            {
                return S3Operation.LIST_BUCKETS;
            }
            throw notAllowed(method);
        }
        final boolean subresource = hasSubresource(query);
        if (null == key)
        {
            switch (method)
            {
                case "GET":
                    if (has(query, "location"))
                    {
                        return S3Operation.GET_BUCKET_LOCATION;
                    }
                    if (subresource)
                    {
                        return S3Operation.UNSUPPORTED;
                    }
                    return null != S3Request.parameter(query, "list-type") ? S3Operation.LIST_OBJECTS_V2 :
                        S3Operation.LIST_OBJECTS;
                case "HEAD":
                    return subresource ? S3Operation.UNSUPPORTED : S3Operation.HEAD_BUCKET;
                case "POST":
                    return has(query, "delete") ? S3Operation.DELETE_OBJECTS : S3Operation.OTHER_WRITE;
                case "PUT":
                case "DELETE":
                    return S3Operation.OTHER_WRITE;
                default:
                    throw notAllowed(method);
            }
        }
        switch (method)
        {
            case "GET":
                if (has(query, "uploadId"))
                {
                    return S3Operation.LIST_PARTS;
                }
                return subresource ? S3Operation.UNSUPPORTED : S3Operation.GET_OBJECT;
            case "HEAD":
                return subresource ? S3Operation.UNSUPPORTED : S3Operation.HEAD_OBJECT;
            case "PUT":
                if (has(query, "uploadId") && has(query, "partNumber"))
                {
                    // UploadPartCopy is a copy: not passed through
                    return headers.contains("x-amz-copy-source") ? S3Operation.COPY_OBJECT : S3Operation.UPLOAD_PART;
                }
                if (subresource)
                {
                    return S3Operation.OTHER_WRITE;
                }
                return headers.contains("x-amz-copy-source") ? S3Operation.COPY_OBJECT : S3Operation.PUT_OBJECT;
            case "DELETE":
                if (has(query, "uploadId"))
                {
                    return S3Operation.ABORT_MULTIPART_UPLOAD;
                }
                return subresource ? S3Operation.OTHER_WRITE : S3Operation.DELETE_OBJECT;
            case "POST":
                if (has(query, "uploads"))
                {
                    return S3Operation.CREATE_MULTIPART_UPLOAD;
                }
                return has(query, "uploadId") ? S3Operation.COMPLETE_MULTIPART_UPLOAD : S3Operation.OTHER_WRITE;
            default:
                throw notAllowed(method);
        }
    }

    private static boolean hasSubresource(final List<AwsUriEncoding.QueryParameter> query)
    {
        for (final AwsUriEncoding.QueryParameter parameter : query)
        {
            if (!PLAIN_PARAMETERS.contains(parameter.name()) && !parameter.name().startsWith("X-Amz-"))
            {
                return true;
            }
        }
        return false;
    }

    private static boolean has(final List<AwsUriEncoding.QueryParameter> query, final String name)
    {
        return null != S3Request.parameter(query, name);
    }

    private static S3Exception notAllowed(final String method)
    {
        return new S3Exception(S3ErrorCode.METHOD_NOT_ALLOWED).with("Method", method);
    }
}
