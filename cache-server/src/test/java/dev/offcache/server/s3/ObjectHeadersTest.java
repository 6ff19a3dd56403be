package dev.offcache.server.s3;

import java.util.Map;

import dev.offcache.range.origin.ObjectInfo;
import dev.offcache.range.origin.ObjectMetadata;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ObjectHeadersTest
{
    @Test
    void aWriteCarriesTheStoredHeadersWithoutTheAwsChunkedTransferCoding()
    {
        final HttpHeaders request = new DefaultHttpHeaders()
            .set("Content-Type", "text/csv").set("Content-Encoding", "aws-chunked,gzip")
            .set("X-Amz-Meta-Rows", "42").set("x-amz-tagging", "a=b").set("x-amz-content-sha256", "UNSIGNED-PAYLOAD")
            .set("Authorization", "AWS4-HMAC-SHA256 ...").set("Content-Length", "10")
            .set("x-amz-decoded-content-length", "3");
        final ObjectMetadata written = ObjectHeaders.written(request);
        assertEquals(ObjectMetadata.ofFields(Map.of("content-type", "text/csv", "content-encoding", "gzip",
            "x-amz-meta-rows", "42", "x-amz-tagging", "a=b")), written);
        assertNull(ObjectHeaders.written(new DefaultHttpHeaders().set("Content-Encoding", "aws-chunked"))
            .get("content-encoding"));
        assertEquals("gzip,br", ObjectHeaders.withoutAwsChunked("gzip, aws-chunked ,br"));
    }

    @Test
    void anObjectAnswerCarriesItsStoredHeadersAndNeverTheAwsChunkedCoding()
    {
        final ObjectInfo info = new ObjectInfo("k", 5, 0, "\"t\"", ObjectMetadata.ofFields(Map.of(
            "content-type", "application/json", "content-encoding", "aws-chunked", "x-amz-meta-a", "1")));
        final HttpHeaders out = new DefaultHttpHeaders();
        ObjectHeaders.apply(out, info, null);
        assertEquals("application/json", out.get("Content-Type"));
        assertEquals("1", out.get("x-amz-meta-a"));
        assertNull(out.get("Content-Encoding"));
        final HttpHeaders none = new DefaultHttpHeaders();
        ObjectHeaders.apply(none, new ObjectInfo("k", 5, 0, null), null);
        assertEquals(ObjectHeaders.DEFAULT_CONTENT_TYPE, none.get("Content-Type"));
    }

    @Test
    void metadataPastS3sBoundIsRefused()
    {
        final HttpHeaders request = new DefaultHttpHeaders().set("x-amz-meta-big", "x".repeat(
            ObjectMetadata.MAX_BYTES));
        assertEquals(S3ErrorCode.METADATA_TOO_LARGE,
            assertThrows(S3Exception.class, () -> ObjectHeaders.written(request)).code());
    }
}
