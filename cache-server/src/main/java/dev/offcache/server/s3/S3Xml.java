package dev.offcache.server.s3;

import java.util.List;

import dev.offcache.range.origin.ListPage;
import dev.offcache.range.origin.ObjectInfo;

/**
 * The XML bodies of the S3 endpoint, written as S3 writes them: error documents, {@code ListBucketResult} of both
 * listing versions (keys URL-encoded when asked), {@code ListAllMyBucketsResult} and {@code LocationConstraint}.
 * Text is escaped; characters XML 1.0 cannot carry are written as character references. Stateless and thread-safe.
 */
public final class S3Xml
{
    /** The S3 namespace of result documents. */
    public static final String NAMESPACE = "http://s3.amazonaws.com/doc/2006-03-01/";
    private static final String PROLOG = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";

    private S3Xml()
    {
    }

    /**
     * An error document.
     *
     * @param error     the error.
     * @param resource  the resource the request named (its path).
     * @param requestId the request id.
     * @return the document.
     */
    public static String error(final S3Exception error, final String resource, final String requestId)
    {
        final StringBuilder out = new StringBuilder(256).append(PROLOG).append("<Error>");
        element(out, "Code", error.code().code());
        element(out, "Message", error.getMessage());
        for (final String[] detail : error.details())
        {
            element(out, detail[0], detail[1]);
        }
        if (null != resource)
        {
            element(out, "Resource", resource);
        }
        element(out, "RequestId", requestId);
        return out.append("</Error>").toString();
    }

    /**
     * A {@code ListBucketResult} of {@code ListObjectsV2} or {@code ListObjects}.
     *
     * @param bucket the bucket.
     * @param query  the listing asked for.
     * @param page   the origin's page.
     * @return the document.
     */
    public static String listObjects(final String bucket, final ListObjectsQuery query, final ListPage page)
    {
        final boolean encode = query.urlEncoded();
        final StringBuilder out = new StringBuilder(512 + 256 * page.objects().size())
            .append(PROLOG).append("<ListBucketResult xmlns=\"").append(NAMESPACE).append("\">");
        element(out, "Name", bucket);
        element(out, "Prefix", encoded(query.prefix(), encode));
        if (query.version2())
        {
            if (null != query.startAfter())
            {
                element(out, "StartAfter", encoded(query.startAfter(), encode));
            }
        }
        else
        {
            element(out, "Marker", null == query.startAfter() ? "" : encoded(query.startAfter(), encode));
            if (page.truncated() && null != query.delimiter())
            {
                element(out, "NextMarker", encoded(lastEntry(page), encode));
            }
        }
        element(out, "MaxKeys", Integer.toString(query.maxKeys()));
        if (null != query.delimiter())
        {
            element(out, "Delimiter", encoded(query.delimiter(), encode));
        }
        if (encode)
        {
            element(out, "EncodingType", "url");
        }
        if (query.version2())
        {
            element(out, "KeyCount", Integer.toString(page.objects().size() + page.commonPrefixes().size()));
            if (null != query.continuationToken())
            {
                element(out, "ContinuationToken", query.continuationToken());
            }
            if (page.truncated())
            {
                element(out, "NextContinuationToken", page.nextContinuationToken());
            }
        }
        element(out, "IsTruncated", Boolean.toString(page.truncated()));
        for (final ObjectInfo object : page.objects())
        {
            out.append("<Contents>");
            element(out, "Key", encoded(object.key(), encode));
            element(out, "LastModified", AmzDates.formatXmlTime(ObjectHeaders.lastModifiedOf(object)));
            element(out, "ETag", ObjectHeaders.etagOf(object));
            element(out, "Size", Long.toString(object.size()));
            element(out, "StorageClass", "STANDARD");
            out.append("</Contents>");
        }
        for (final String prefix : page.commonPrefixes())
        {
            out.append("<CommonPrefixes>");
            element(out, "Prefix", encoded(prefix, encode));
            out.append("</CommonPrefixes>");
        }
        return out.append("</ListBucketResult>").toString();
    }

    /**
     * A {@code ListAllMyBucketsResult}.
     *
     * @param buckets      the bucket names.
     * @param createdMillis the creation time shown (when the server started).
     * @return the document.
     */
    public static String listBuckets(final List<String> buckets, final long createdMillis)
    {
        final StringBuilder out = new StringBuilder(256).append(PROLOG)
            .append("<ListAllMyBucketsResult xmlns=\"").append(NAMESPACE).append("\"><Owner>");
        element(out, "ID", "offcache");
        element(out, "DisplayName", "offcache");
        out.append("</Owner><Buckets>");
        for (final String bucket : buckets)
        {
            out.append("<Bucket>");
            element(out, "Name", bucket);
            element(out, "CreationDate", AmzDates.formatXmlTime(createdMillis));
            out.append("</Bucket>");
        }
        return out.append("</Buckets></ListAllMyBucketsResult>").toString();
    }

    /**
     * A {@code LocationConstraint} (empty for {@code us-east-1}, as S3 answers).
     *
     * @param region the bucket's region.
     * @return the document.
     */
    public static String location(final String region)
    {
        final StringBuilder out = new StringBuilder(128).append(PROLOG)
            .append("<LocationConstraint xmlns=\"").append(NAMESPACE).append("\">");
        escape(out, "us-east-1".equals(region) ? "" : region);
        return out.append("</LocationConstraint>").toString();
    }

    private static String lastEntry(final ListPage page)
    {
        final String lastKey = page.objects().isEmpty() ? null : page.objects().get(page.objects().size() - 1).key();
        final String lastPrefix = page.commonPrefixes().isEmpty() ? null :
            page.commonPrefixes().get(page.commonPrefixes().size() - 1);
        if (null == lastKey)
        {
            return lastPrefix;
        }
        return null == lastPrefix || lastKey.compareTo(lastPrefix) > 0 ? lastKey : lastPrefix;
    }

    private static String encoded(final String text, final boolean encode)
    {
        return encode ? AwsUriEncoding.encode(text, true) : text;
    }

    private static void element(final StringBuilder out, final String name, final String text)
    {
        out.append('<').append(name).append('>');
        escape(out, text);
        out.append("</").append(name).append('>');
    }

    static void escape(final StringBuilder out, final String text)
    {
        if (null == text)
        {
            return;
        }
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            switch (c)
            {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&apos;");
                default ->
                {
                    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
                    {
                        out.append("&#x").append(Integer.toHexString(c)).append(';');
                    }
                    else
                    {
                        out.append(c);
                    }
                }
            }
        }
    }
}
