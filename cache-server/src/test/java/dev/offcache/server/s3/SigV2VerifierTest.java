package dev.offcache.server.s3;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Signature Version 2 against AWS's published examples (S3 developer guide, "Signing and authenticating REST
 * requests": the object GET of {@code johnsmith/photos/puppy.jpg}, header and query-string forms), then each way it
 * can be wrong and the S3 code it gets, through {@link SigV4Verifier}, which hands V2 requests on.
 */
class SigV2VerifierTest
{
    private static final String EXAMPLE_ID = "AKIAIOSFODNN7EXAMPLE";
    private static final S3Credentials CREDENTIALS =
        S3Credentials.parse(EXAMPLE_ID + ":wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY");
    private static final String DATE = "Tue, 27 Mar 2007 19:36:42 +0000";
    private static final Instant AT = Instant.parse("2007-03-27T19:36:42Z");
    private static final String PRESIGNED_QUERY = "AWSAccessKeyId=AKIAIOSFODNN7EXAMPLE&Expires=1175139620&" +
        "Signature=NpgCjnDzrM%2BWFzoENXmpNDUsSn8%3D";

    private static Authentication verify(final Instant now, final String uri, final HttpHeaders headers)
    {
        final int q = uri.indexOf('?');
        return new SigV4Verifier(CREDENTIALS, Clock.fixed(now, ZoneOffset.UTC)).verify("GET",
            q < 0 ? uri : uri.substring(0, q), AwsUriEncoding.parseQuery(q < 0 ? null : uri.substring(q + 1)),
            headers, null, false, "/johnsmith" + (q < 0 ? uri : uri.substring(0, q)));
    }

    private static HttpHeaders signed(final String signature)
    {
        return new DefaultHttpHeaders().set("Host", "johnsmith.s3.amazonaws.com").set("Date", DATE)
            .set("Authorization", "AWS " + EXAMPLE_ID + ":" + signature);
    }

    private static S3ErrorCode refused(final Instant now, final String uri, final HttpHeaders headers)
    {
        return assertThrows(S3Exception.class, () -> verify(now, uri, headers)).code();
    }

    @Test
    void theDocumentedHeaderExampleVerifies()
    {
        assertEquals(EXAMPLE_ID, verify(AT, "/photos/puppy.jpg", signed("bWq2s1WEIj+Ydj0vQ697zp+IXMU="))
            .accessKeyId());
        assertEquals(SignatureV4.UNSIGNED_PAYLOAD, verify(AT, "/photos/puppy.jpg",
            signed("bWq2s1WEIj+Ydj0vQ697zp+IXMU=")).payloadHash(), "a V2 body is not signed");
    }

    @Test
    void aWrongHeaderSignatureIsRefusedWithS3sCodes()
    {
        assertEquals(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH, refused(AT, "/photos/puppy.jpg",
            signed("bWq2s1WEIj+Ydj0vQ697zp+IXMV=")), "tampered signature");
        assertEquals(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH, refused(AT, "/photos/kitten.jpg",
            signed("bWq2s1WEIj+Ydj0vQ697zp+IXMU=")), "another resource");
        assertEquals(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH, refused(AT, "/photos/puppy.jpg",
            signed("bWq2s1WEIj+Ydj0vQ697zp+IXMU=").set("x-amz-meta-added", "1")), "an unsigned x-amz header");
        assertEquals(S3ErrorCode.INVALID_ACCESS_KEY_ID, refused(AT, "/photos/puppy.jpg", signed("x")
            .set("Authorization", "AWS AKIAUNKNOWN0000:bWq2s1WEIj+Ydj0vQ697zp+IXMU=")));
        assertEquals(S3ErrorCode.REQUEST_TIME_TOO_SKEWED, refused(AT.plusSeconds(16 * 60), "/photos/puppy.jpg",
            signed("bWq2s1WEIj+Ydj0vQ697zp+IXMU=")));
        assertEquals(S3ErrorCode.ACCESS_DENIED, refused(AT, "/photos/puppy.jpg",
            signed("bWq2s1WEIj+Ydj0vQ697zp+IXMU=").remove("Date")), "no date");
    }

    @Test
    void theDocumentedPresignedExampleVerifiesUntilItExpires()
    {
        final HttpHeaders host = new DefaultHttpHeaders().set("Host", "johnsmith.s3.amazonaws.com");
        assertEquals(EXAMPLE_ID, verify(Instant.ofEpochSecond(1175139620), "/photos/puppy.jpg?" + PRESIGNED_QUERY,
            host).accessKeyId());
        assertEquals(S3ErrorCode.ACCESS_DENIED, refused(Instant.ofEpochSecond(1175139621),
            "/photos/puppy.jpg?" + PRESIGNED_QUERY, host), "expired");
        assertEquals(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH, refused(Instant.ofEpochSecond(1175139000),
            "/photos/puppy.jpg?" + PRESIGNED_QUERY.replace("1175139620", "1175139999"), host), "expiry moved");
        assertEquals(S3ErrorCode.ACCESS_DENIED, refused(Instant.ofEpochSecond(1175139000),
            "/photos/puppy.jpg?AWSAccessKeyId=AKIAIOSFODNN7EXAMPLE&Expires=1175139620", host), "no signature");
    }

    @Test
    void subResourcesAndOverridesAreSignedSorted()
    {
        final HttpHeaders headers = new DefaultHttpHeaders().set("Content-Type", "text/plain")
            .set("X-Amz-Meta-B", "two").add("x-amz-meta-a", "1").add("x-amz-meta-a", "2");
        assertEquals("GET\n\ntext/plain\nEXPIRES\nx-amz-meta-a:1,2\nx-amz-meta-b:two\n/b/k?response-content-type=a/b" +
            "&uploadId=u", SigV2Verifier.stringToSign("GET", "/b/k", AwsUriEncoding.parseQuery(
                "uploadId=u&list-type=2&response-content-type=a%2Fb"), headers, "EXPIRES"));
    }
}
