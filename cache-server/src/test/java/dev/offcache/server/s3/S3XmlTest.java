package dev.offcache.server.s3;

import java.io.ByteArrayInputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import javax.xml.parsers.DocumentBuilderFactory;

import dev.offcache.range.origin.ListPage;
import dev.offcache.range.origin.MultipartUploads;
import dev.offcache.range.origin.ObjectInfo;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The XML documents, read back with the JDK's XML parser: what a client's parser finds in them.
 */
class S3XmlTest
{
    private static Document parse(final String xml) throws Exception
    {
        final DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        return factory.newDocumentBuilder().parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
    }

    private static String text(final Element parent, final String name)
    {
        final NodeList nodes = parent.getElementsByTagName(name);
        return nodes.getLength() == 0 ? null : nodes.item(0).getTextContent();
    }

    private static List<String> texts(final Document document, final String parent, final String name)
    {
        final List<String> values = new ArrayList<>();
        final NodeList nodes = document.getElementsByTagName(parent);
        for (int i = 0; i < nodes.getLength(); i++)
        {
            values.add(text((Element) nodes.item(i), name));
        }
        return values;
    }

    @Test
    void errorsCarryCodeMessageDetailsAndEscapedText() throws Exception
    {
        final S3Exception error = new S3Exception(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH)
            .with("StringToSign", "AWS4-HMAC-SHA256\n<&>\"'")
            .with("AWSAccessKeyId", "AKID");
        final Document document = parse(S3Xml.error(error, "/lake/a&b", "0000000000000001"));
        final Element root = document.getDocumentElement();
        assertEquals("Error", root.getTagName());
        assertEquals("SignatureDoesNotMatch", text(root, "Code"));
        assertEquals(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH.defaultMessage(), text(root, "Message"));
        assertEquals("AWS4-HMAC-SHA256\n<&>\"'", text(root, "StringToSign"));
        assertEquals("/lake/a&b", text(root, "Resource"));
        assertEquals("0000000000000001", text(root, "RequestId"));
    }

    @Test
    void listingsOfBothVersionsReadBack() throws Exception
    {
        final ListPage page = new ListPage(
            List.of(new ObjectInfo("p/a b&c+\u00e9.parquet", 12, 1_369_353_600_000L, "\"e1\""),
                new ObjectInfo("p/z", 0, ObjectInfo.UNKNOWN_TIME, null)),
            List.of("p/d/"), "TOKEN-2");
        final ListObjectsQuery v2 = ListObjectsQuery.parse(AwsUriEncoding.parseQuery(
            "list-type=2&prefix=p%2F&delimiter=%2F&encoding-type=url&continuation-token=TOKEN-1&max-keys=3"));
        final Document listing = parse(S3Xml.listObjects("lake", v2, page));
        final Element root = listing.getDocumentElement();
        assertEquals(S3Xml.NAMESPACE, root.getNamespaceURI());
        assertEquals("lake", text(root, "Name"));
        assertEquals("3", text(root, "KeyCount"));
        assertEquals("true", text(root, "IsTruncated"));
        assertEquals("TOKEN-1", text(root, "ContinuationToken"));
        assertEquals("TOKEN-2", text(root, "NextContinuationToken"));
        assertEquals("url", text(root, "EncodingType"));
        final List<String> keys = texts(listing, "Contents", "Key");
        assertEquals(List.of("p/a b&c+\u00e9.parquet", "p/z"), decode(keys), "URL-encoded keys decode back");
        assertTrue(keys.get(0).contains("%2B") && keys.get(0).contains("%20"), keys.get(0));
        assertEquals(List.of("\"e1\"", "\"0-0\""), texts(listing, "Contents", "ETag"));
        assertEquals(List.of("2013-05-24T00:00:00.000Z", "1970-01-01T00:00:00.000Z"),
            texts(listing, "Contents", "LastModified"));
        assertEquals(List.of("12", "0"), texts(listing, "Contents", "Size"));
        assertEquals(List.of("p/d/"), decode(texts(listing, "CommonPrefixes", "Prefix")));

        final ListObjectsQuery v1 = ListObjectsQuery.parse(AwsUriEncoding.parseQuery("prefix=p%2F&delimiter=%2F" +
            "&marker=p%2F0"));
        final Document legacy = parse(S3Xml.listObjects("lake", v1, page));
        assertEquals("p/0", text(legacy.getDocumentElement(), "Marker"));
        assertEquals("p/z", text(legacy.getDocumentElement(), "NextMarker"), "the last entry of the page");
        assertEquals(null, text(legacy.getDocumentElement(), "KeyCount"));
        assertEquals("p/a b&c+\u00e9.parquet", texts(legacy, "Contents", "Key").get(0), "unencoded, escaped");
    }

    @Test
    void listQueriesAreReadAsS3ReadsThem()
    {
        final ListObjectsQuery big = ListObjectsQuery.parse(AwsUriEncoding.parseQuery("list-type=2&max-keys=5000"));
        assertEquals(1000, big.maxKeys(), "capped at 1000");
        assertEquals(1000, ListObjectsQuery.parse(AwsUriEncoding.parseQuery("list-type=2")).maxKeys());
        assertEquals(0, ListObjectsQuery.parse(AwsUriEncoding.parseQuery("list-type=2&max-keys=0")).maxKeys());
        for (final String bad : List.of("list-type=3", "list-type=2&max-keys=-1", "max-keys=ten",
            "list-type=2&encoding-type=base64"))
        {
            assertEquals(S3ErrorCode.INVALID_ARGUMENT, assertThrows(S3Exception.class,
                () -> ListObjectsQuery.parse(AwsUriEncoding.parseQuery(bad))).code(), bad);
        }
        final ListObjectsQuery v1 = ListObjectsQuery.parse(AwsUriEncoding.parseQuery("marker=m&start-after=s"));
        assertEquals("m", v1.startAfter(), "version 1 reads marker, not start-after");
        assertEquals("s", ListObjectsQuery.parse(AwsUriEncoding.parseQuery("list-type=2&marker=m&start-after=s"))
            .startAfter());
    }

    @Test
    void bucketListAndLocationReadBack() throws Exception
    {
        final Document buckets = parse(S3Xml.listBuckets(List.of("lake", "warehouse"), 0));
        assertEquals(List.of("lake", "warehouse"), texts(buckets, "Bucket", "Name"));
        assertEquals("", parse(S3Xml.location("us-east-1")).getDocumentElement().getTextContent());
        assertEquals("eu-west-3", parse(S3Xml.location("eu-west-3")).getDocumentElement().getTextContent());
    }

    @Test
    void multipartResultsReadBackAndCompletionBodiesAreReadStrictly() throws Exception
    {
        final Document initiated = parse(S3Xml.initiateMultipartUpload("lake", "a&b.bin", "up/1"));
        assertEquals("a&b.bin", text(initiated.getDocumentElement(), "Key"));
        assertEquals("up/1", text(initiated.getDocumentElement(), "UploadId"));
        final Document completed = parse(S3Xml.completeMultipartUpload("/lake/a%26b.bin", "lake", "a&b.bin",
            "\"e-2\""));
        assertEquals("\"e-2\"", text(completed.getDocumentElement(), "ETag"));
        final Document parts = parse(S3Xml.listParts("lake", "k", "u", 0, 2, new MultipartUploads.PartsPage(
            List.of(new MultipartUploads.Part(1, "\"a\"", 5 << 20, 0), new MultipartUploads.Part(2, "\"b\"", 7, -1)),
            true, 2)));
        assertEquals(List.of("1", "2"), texts(parts, "Part", "PartNumber"));
        assertEquals(List.of("5242880", "7"), texts(parts, "Part", "Size"));
        assertEquals("true", text(parts.getDocumentElement(), "IsTruncated"));
        assertEquals("2", text(parts.getDocumentElement(), "NextPartNumberMarker"));

        final String body = "<CompleteMultipartUpload xmlns=\"" + S3Xml.NAMESPACE + "\"><Part><ETag>\"a\"</ETag>" +
            "<PartNumber>1</PartNumber><ChecksumCRC32>AAAAAA==</ChecksumCRC32></Part><Part><PartNumber> 2 " +
            "</PartNumber><ETag>&quot;b&quot;</ETag></Part></CompleteMultipartUpload>";
        assertEquals(List.of(new MultipartUploads.Part(1, "\"a\"", -1, ObjectInfo.UNKNOWN_TIME),
            new MultipartUploads.Part(2, "\"b\"", -1, ObjectInfo.UNKNOWN_TIME)),
            S3Xml.completedParts(body.getBytes(StandardCharsets.UTF_8)));
        for (final String bad : List.of("", "<CompleteMultipartUpload/>", "<Other><Part><PartNumber>1</PartNumber>" +
            "<ETag>x</ETag></Part></Other>", "<CompleteMultipartUpload><Part><PartNumber>one</PartNumber><ETag>x" +
            "</ETag></Part></CompleteMultipartUpload>", "<CompleteMultipartUpload><Part><ETag>x</ETag></Part>" +
            "</CompleteMultipartUpload>", "<!DOCTYPE d [<!ENTITY e SYSTEM \"file:///etc/passwd\">]>" +
            "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>&e;</ETag></Part>" +
            "</CompleteMultipartUpload>"))
        {
            assertEquals(S3ErrorCode.MALFORMED_XML, assertThrows(S3Exception.class,
                () -> S3Xml.completedParts(bad.getBytes(StandardCharsets.UTF_8))).code(), bad);
        }
    }

    private static List<String> decode(final List<String> values)
    {
        final List<String> decoded = new ArrayList<>();
        for (final String value : values)
        {
            decoded.add(URLDecoder.decode(value, StandardCharsets.UTF_8));
        }
        return decoded;
    }
}
