package dev.offcache.server.s3;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;

import dev.offcache.range.origin.ListPage;
import dev.offcache.range.origin.MultipartUploads;
import dev.offcache.range.origin.ObjectInfo;
import dev.offcache.range.origin.ObjectMetadata;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.SAXException;
import org.xml.sax.helpers.DefaultHandler;

/**
 * The XML bodies of the S3 endpoint, written as S3 writes them: error documents, {@code ListBucketResult} of both
 * listing versions (keys URL-encoded when asked), {@code ListAllMyBucketsResult}, {@code LocationConstraint} and the
 * multipart results; and the one request body it reads, {@code CompleteMultipartUpload}. Text is escaped;
 * characters XML 1.0 cannot carry are written as character references. Stateless and thread-safe.
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
            final String owner = object.metadata().get(ObjectMetadata.OWNER_ID);
            if (query.fetchOwner() && null != owner)
            {
                out.append("<Owner>");
                element(out, "ID", owner);
                element(out, "DisplayName", object.metadata().get(ObjectMetadata.OWNER_DISPLAY_NAME));
                out.append("</Owner>");
            }
            final String storageClass = object.metadata().get("x-amz-storage-class");
            element(out, "StorageClass", null == storageClass ? "STANDARD" : storageClass);
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

    /**
     * An {@code InitiateMultipartUploadResult}.
     *
     * @param bucket   the bucket.
     * @param key      the key.
     * @param uploadId the origin's upload id.
     * @return the document.
     */
    public static String initiateMultipartUpload(final String bucket, final String key, final String uploadId)
    {
        final StringBuilder out = new StringBuilder(256).append(PROLOG)
            .append("<InitiateMultipartUploadResult xmlns=\"").append(NAMESPACE).append("\">");
        element(out, "Bucket", bucket);
        element(out, "Key", key);
        element(out, "UploadId", uploadId);
        return out.append("</InitiateMultipartUploadResult>").toString();
    }

    /**
     * A {@code CompleteMultipartUploadResult}.
     *
     * @param location the object's path ({@code /bucket/key}).
     * @param bucket   the bucket.
     * @param key      the key.
     * @param etag     the object's tag, quoted.
     * @return the document.
     */
    public static String completeMultipartUpload(
        final String location, final String bucket, final String key, final String etag)
    {
        final StringBuilder out = new StringBuilder(256).append(PROLOG)
            .append("<CompleteMultipartUploadResult xmlns=\"").append(NAMESPACE).append("\">");
        element(out, "Location", location);
        element(out, "Bucket", bucket);
        element(out, "Key", key);
        element(out, "ETag", etag);
        return out.append("</CompleteMultipartUploadResult>").toString();
    }

    /**
     * A {@code ListPartsResult}.
     *
     * @param bucket           the bucket.
     * @param key              the key.
     * @param uploadId         the upload.
     * @param partNumberMarker the marker asked for.
     * @param maxParts         the most parts asked for.
     * @param page             the origin's page.
     * @return the document.
     */
    public static String listParts(final String bucket, final String key, final String uploadId,
        final int partNumberMarker, final int maxParts, final MultipartUploads.PartsPage page)
    {
        final StringBuilder out = new StringBuilder(512 + 160 * page.parts().size()).append(PROLOG)
            .append("<ListPartsResult xmlns=\"").append(NAMESPACE).append("\">");
        element(out, "Bucket", bucket);
        element(out, "Key", key);
        element(out, "UploadId", uploadId);
        element(out, "PartNumberMarker", Integer.toString(partNumberMarker));
        if (page.truncated())
        {
            element(out, "NextPartNumberMarker", Integer.toString(page.nextPartNumberMarker()));
        }
        element(out, "MaxParts", Integer.toString(maxParts));
        element(out, "IsTruncated", Boolean.toString(page.truncated()));
        element(out, "StorageClass", "STANDARD");
        for (final MultipartUploads.Part part : page.parts())
        {
            out.append("<Part>");
            element(out, "PartNumber", Integer.toString(part.partNumber()));
            if (part.lastModifiedMillis() >= 0)
            {
                element(out, "LastModified", AmzDates.formatXmlTime(part.lastModifiedMillis()));
            }
            element(out, "ETag", part.etag());
            element(out, "Size", Long.toString(Math.max(0, part.size())));
            out.append("</Part>");
        }
        return out.append("</ListPartsResult>").toString();
    }

    /**
     * The parts of a {@code CompleteMultipartUpload} request body (part numbers and tags; checksums are left to the
     * origin), in the order sent. The parser reads no DTD and no external entity.
     *
     * @param body the body.
     * @return the parts.
     * @throws S3Exception ({@code MalformedXML}) when the body is not such a document.
     */
    public static List<MultipartUploads.Part> completedParts(final byte[] body)
    {
        final org.w3c.dom.Document document;
        try
        {
            final DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            factory.setExpandEntityReferences(false);
            factory.setNamespaceAware(true);
            final DocumentBuilder builder = factory.newDocumentBuilder();
            builder.setErrorHandler(new DefaultHandler());
            document = builder.parse(new ByteArrayInputStream(body));
        }
        catch (final ParserConfigurationException | SAXException | IOException ex)
        {
            throw new S3Exception(S3ErrorCode.MALFORMED_XML);
        }
        final Element root = document.getDocumentElement();
        if (!"CompleteMultipartUpload".equals(root.getLocalName()))
        {
            throw new S3Exception(S3ErrorCode.MALFORMED_XML);
        }
        final List<MultipartUploads.Part> parts = new ArrayList<>();
        for (Node node = root.getFirstChild(); null != node; node = node.getNextSibling())
        {
            if (node instanceof Element part && "Part".equals(part.getLocalName()))
            {
                final String number = childText(part, "PartNumber");
                final String etag = childText(part, "ETag");
                if (null == number || null == etag)
                {
                    throw new S3Exception(S3ErrorCode.MALFORMED_XML);
                }
                try
                {
                    parts.add(new MultipartUploads.Part(Integer.parseInt(number.trim()), etag.trim(), -1,
                        ObjectInfo.UNKNOWN_TIME));
                }
                catch (final NumberFormatException ex)
                {
                    throw new S3Exception(S3ErrorCode.MALFORMED_XML);
                }
            }
        }
        if (parts.isEmpty())
        {
            throw new S3Exception(S3ErrorCode.MALFORMED_XML);
        }
        return parts;
    }

    private static String childText(final Element parent, final String name)
    {
        for (Node node = parent.getFirstChild(); null != node; node = node.getNextSibling())
        {
            if (node instanceof Element child && name.equals(child.getLocalName()))
            {
                return child.getTextContent();
            }
        }
        return null;
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
