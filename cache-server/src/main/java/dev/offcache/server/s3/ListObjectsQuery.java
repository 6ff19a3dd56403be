package dev.offcache.server.s3;

import java.util.List;

import dev.offcache.range.origin.ListPage;

/**
 * The parameters of a {@code ListObjectsV2} ({@code list-type=2}) or a {@code ListObjects} (version 1) request, as
 * S3 reads them: {@code prefix}, {@code delimiter}, {@code max-keys} (default and cap 1000), {@code encoding-type}
 * ({@code url} only), and {@code continuation-token} / {@code start-after} (version 2) or {@code marker} (version 1).
 *
 * @param version2          whether it is {@code ListObjectsV2}.
 * @param prefix            the prefix, empty for none.
 * @param delimiter         the delimiter or {@code null}.
 * @param maxKeys           the page size asked for (capped at 1000).
 * @param urlEncoded        whether keys and prefixes in the answer are URL-encoded.
 * @param continuationToken the version 2 token or {@code null}; empty when the client sent an empty one (echoed, as
 *                          S3 does, and no token for the origin).
 * @param startAfter        version 2's {@code start-after} or version 1's {@code marker}, or {@code null}; empty as
 *                          sent.
 * @param fetchOwner        whether the answer names each object's owner: version 1 always, version 2 with
 *                          {@code fetch-owner=true}.
 */
public record ListObjectsQuery(
    boolean version2,
    String prefix,
    String delimiter,
    int maxKeys,
    boolean urlEncoded,
    String continuationToken,
    String startAfter,
    boolean fetchOwner)
{
    /**
     * Reads the query of a listing request.
     *
     * @param query the decoded query parameters.
     * @return the listing.
     * @throws S3Exception ({@code InvalidArgument}) for a bad {@code list-type}, {@code max-keys} or
     *                     {@code encoding-type}.
     */
    public static ListObjectsQuery parse(final List<AwsUriEncoding.QueryParameter> query)
    {
        final String listType = S3Request.parameter(query, "list-type");
        if (null != listType && !"2".equals(listType))
        {
            throw invalid("Invalid List Type specified in Request", "list-type", listType);
        }
        final boolean version2 = null != listType;
        final String maxKeysText = S3Request.parameter(query, "max-keys");
        int maxKeys = ListPage.MAX_KEYS;
        if (null != maxKeysText)
        {
            try
            {
                final long asked = maxKeysText.length() > 12 ? -1 : Long.parseLong(maxKeysText);
                if (asked < 0)
                {
                    throw new NumberFormatException();
                }
                maxKeys = (int) Math.min(asked, ListPage.MAX_KEYS);
            }
            catch (final NumberFormatException ex)
            {
                throw invalid("Provided max-keys not an integer or within integer range", "max-keys", maxKeysText);
            }
        }
        final String encoding = S3Request.parameter(query, "encoding-type");
        if (null != encoding && !"url".equals(encoding))
        {
            throw invalid("Invalid Encoding Method specified in Request", "encoding-type", encoding);
        }
        final String prefix = S3Request.parameter(query, "prefix");
        final String delimiter = S3Request.parameter(query, "delimiter");
        return new ListObjectsQuery(
            version2,
            null == prefix ? "" : prefix,
            null == delimiter || delimiter.isEmpty() ? null : delimiter,
            maxKeys,
            null != encoding,
            version2 ? S3Request.parameter(query, "continuation-token") : null,
            S3Request.parameter(query, version2 ? "start-after" : "marker"),
            !version2 || "true".equals(S3Request.parameter(query, "fetch-owner")));
    }

    /**
     * The origin's page request for this listing.
     *
     * @return the request.
     */
    public ListPage.Request toPageRequest()
    {
        return new ListPage.Request(prefix, delimiter, continuationToken, startAfter, maxKeys);
    }

    private static S3Exception invalid(final String message, final String name, final String value)
    {
        return new S3Exception(S3ErrorCode.INVALID_ARGUMENT, message)
            .with("ArgumentName", name).with("ArgumentValue", value);
    }
}
