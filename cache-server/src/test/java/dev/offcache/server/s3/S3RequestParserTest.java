package dev.offcache.server.s3;

import java.util.List;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Which operation, bucket and key a request is: path-style and virtual-host style, sub-resources, decoding, and the
 * methods S3 does not have.
 */
class S3RequestParserTest
{
    private final S3RequestParser pathStyle = new S3RequestParser(null);
    private final S3RequestParser virtualHost = new S3RequestParser("s3.cache.internal");

    private static HttpHeaders host(final String host)
    {
        return new DefaultHttpHeaders().set("Host", host);
    }

    private S3Request parse(final String method, final String uri)
    {
        return pathStyle.parse(method, uri, host("127.0.0.1:8081"));
    }

    @Test
    void pathStyleNamesBucketAndKey()
    {
        final S3Request get = parse("GET", "/lake/dir/part%200+1%C3%A9.parquet?x-id=GetObject");
        assertEquals(S3Operation.GET_OBJECT, get.operation());
        assertEquals("lake", get.bucket());
        assertEquals("dir/part 0+1\u00e9.parquet", get.key(), "%20 is a space, + stays a plus in a path");
        assertEquals("/lake/dir/part%200+1%C3%A9.parquet", get.rawPath());
        assertEquals(S3Operation.HEAD_OBJECT, parse("HEAD", "/lake/k").operation());
        assertEquals(S3Operation.LIST_BUCKETS, parse("GET", "/").operation());
        final S3Request bucketOnly = parse("HEAD", "/lake/");
        assertEquals(S3Operation.HEAD_BUCKET, bucketOnly.operation());
        assertNull(bucketOnly.key());
        assertEquals(S3Operation.HEAD_BUCKET, parse("HEAD", "/lake").operation());
    }

    @Test
    void theQueryPicksTheBucketOperation()
    {
        final S3Request v2 = parse("GET", "/lake?list-type=2&prefix=a+b%2Fc&delimiter=%2F&encoding-type=url");
        assertEquals(S3Operation.LIST_OBJECTS_V2, v2.operation());
        assertEquals("a b/c", v2.parameter("prefix"), "+ is a space in a query");
        assertEquals(S3Operation.LIST_OBJECTS, parse("GET", "/lake?marker=x&max-keys=5").operation());
        assertEquals(S3Operation.GET_BUCKET_LOCATION, parse("GET", "/lake?location").operation());
        assertEquals("", parse("GET", "/lake?location").parameter("location"));
        for (final String subresource : List.of("acl", "versioning", "versions", "uploads", "policy", "tagging"))
        {
            assertEquals(S3Operation.UNSUPPORTED, parse("GET", "/lake?" + subresource).operation(), subresource);
        }
        assertEquals(S3Operation.UNSUPPORTED, parse("GET", "/lake/k?acl").operation());
        assertEquals(S3Operation.LIST_PARTS, parse("GET", "/lake/k?uploadId=7").operation());
        assertEquals(S3Operation.LIST_PARTS, parse("GET", "/lake/k?uploadId=7&max-parts=2&part-number-marker=1")
            .operation());
        assertEquals(S3Operation.GET_OBJECT, parse("GET", "/lake/k?response-content-type=text%2Fplain" +
            "&X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=ab").operation(), "overrides and signing are no " +
            "sub-resource");
    }

    @Test
    void writesAreRecognisedWhateverTheirForm()
    {
        assertEquals(S3Operation.PUT_OBJECT, parse("PUT", "/lake/k").operation());
        assertEquals(S3Operation.COPY_OBJECT, pathStyle.parse("PUT", "/lake/k",
            host("h").set("x-amz-copy-source", "/lake/other")).operation());
        assertEquals(S3Operation.DELETE_OBJECT, parse("DELETE", "/lake/k").operation());
        assertEquals(S3Operation.DELETE_OBJECTS, parse("POST", "/lake?delete").operation());
        assertEquals(S3Operation.CREATE_MULTIPART_UPLOAD, parse("POST", "/lake/k?uploads").operation());
        assertEquals(S3Operation.UPLOAD_PART, parse("PUT", "/lake/k?partNumber=1&uploadId=u").operation());
        assertEquals(S3Operation.COPY_OBJECT, pathStyle.parse("PUT", "/lake/k?partNumber=1&uploadId=u",
            host("h").set("x-amz-copy-source", "/lake/other")).operation(), "UploadPartCopy is a copy");
        assertEquals(S3Operation.COMPLETE_MULTIPART_UPLOAD, parse("POST", "/lake/k?uploadId=u").operation());
        assertEquals(S3Operation.ABORT_MULTIPART_UPLOAD, parse("DELETE", "/lake/k?uploadId=u").operation());
        assertEquals(S3Operation.OTHER_WRITE, parse("PUT", "/lake").operation(), "CreateBucket");
        assertEquals(S3Operation.OTHER_WRITE, parse("DELETE", "/lake").operation(), "DeleteBucket");
        assertEquals(S3Operation.OTHER_WRITE, parse("PUT", "/lake/k?tagging").operation());
        for (final S3Operation operation : S3Operation.values())
        {
            if (operation.name().contains("PUT") || operation.name().contains("DELETE") ||
                operation.name().contains("MULTIPART") || operation.name().contains("COPY") ||
                operation.name().contains("PART"))
            {
                assertEquals(S3Operation.Kind.WRITE, operation.kind(), operation.name());
            }
        }
    }

    @Test
    void virtualHostStyleTakesTheBucketFromTheHost()
    {
        final S3Request get = virtualHost.parse("GET", "/dir/k.parquet", host("lake.s3.cache.internal:8081"));
        assertEquals("lake", get.bucket());
        assertEquals("dir/k.parquet", get.key());
        assertEquals(S3Operation.LIST_OBJECTS_V2,
            virtualHost.parse("GET", "/?list-type=2", host("Lake-2.S3.Cache.Internal")).operation());
        assertEquals("lake-2", virtualHost.parse("GET", "/?list-type=2", host("Lake-2.S3.Cache.Internal")).bucket());
        final S3Request fallback = virtualHost.parse("GET", "/lake/k", host("127.0.0.1:8081"));
        assertEquals("lake", fallback.bucket(), "a host outside the domain is path-style");
        assertEquals("k", fallback.key());
        assertEquals("lake", virtualHost.parse("GET", "/lake/k", host("s3.cache.internal")).bucket(),
            "the bare domain is path-style");
        assertEquals("lake", virtualHost.parse("GET", "/lake/k", host("evils3.cache.internal")).bucket(),
            "a host that only ends with the domain's text is not under it");
    }

    @Test
    void badRequestsGetTheirCodes()
    {
        assertEquals(S3ErrorCode.METHOD_NOT_ALLOWED,
            assertThrows(S3Exception.class, () -> parse("PATCH", "/lake/k")).code());
        assertEquals(S3ErrorCode.METHOD_NOT_ALLOWED,
            assertThrows(S3Exception.class, () -> parse("PUT", "/")).code());
        assertEquals(S3ErrorCode.INVALID_ARGUMENT,
            assertThrows(S3Exception.class, () -> parse("GET", "/lake/bad%zz")).code());
        assertEquals(S3ErrorCode.INVALID_ARGUMENT,
            assertThrows(S3Exception.class, () -> parse("GET", "/lake/%C3")).code(), "not UTF-8");
        assertEquals(S3ErrorCode.INVALID_ARGUMENT,
            assertThrows(S3Exception.class, () -> parse("GET", "http://host/lake/k")).code());
    }
}
