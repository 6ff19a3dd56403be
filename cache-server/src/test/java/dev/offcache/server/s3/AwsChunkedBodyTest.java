package dev.offcache.server.s3;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.zip.CRC32;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@code aws-chunked} bodies: AWS's published streaming example (seed, two chunks, the final chunk, each signature
 * given), tampered chunks and signatures, and an unsigned body with a CRC32 trailer.
 */
class AwsChunkedBodyTest
{
    private static final String SEED = "4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9";

    private static Authentication seed()
    {
        final HttpHeaders headers = new DefaultHttpHeaders()
            .add("Host", "s3.amazonaws.com")
            .add("x-amz-date", "20130524T000000Z")
            .add("x-amz-storage-class", "REDUCED_REDUNDANCY")
            .add("Authorization", "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/" +
                "aws4_request,SignedHeaders=content-encoding;content-length;host;x-amz-content-sha256;x-amz-date;" +
                "x-amz-decoded-content-length;x-amz-storage-class,Signature=" + SEED)
            .add("x-amz-content-sha256", "STREAMING-AWS4-HMAC-SHA256-PAYLOAD")
            .add("Content-Encoding", "aws-chunked")
            .add("x-amz-decoded-content-length", "66560")
            .add("Content-Length", "66824");
        return new SigV4Verifier(S3Credentials.parse("AKIAIOSFODNN7EXAMPLE:wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
            Clock.fixed(Instant.parse("2013-05-24T00:00:00Z"), ZoneOffset.UTC))
            .verify("PUT", "/examplebucket/chunkObject.txt", List.of(), headers, null);
    }

    private static String a(final int count)
    {
        final char[] chars = new char[count];
        Arrays.fill(chars, 'a');
        return new String(chars);
    }

    private static String exampleBody(final String firstSignature)
    {
        return "10000;chunk-signature=" + firstSignature + "\r\n" + a(65_536) + "\r\n" +
            "400;chunk-signature=0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497\r\n" + a(1024) +
            "\r\n0;chunk-signature=b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9\r\n\r\n";
    }

    private static ByteBuf bytes(final String text)
    {
        return Unpooled.copiedBuffer(text, StandardCharsets.ISO_8859_1);
    }

    private static final String FIRST = "ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648";

    @Test
    void theStreamingExampleOfAwsDecodes()
    {
        final Authentication auth = seed();
        assertEquals(SEED, auth.signature());
        final ByteBuf body = bytes(exampleBody(FIRST));
        assertEquals(66_824, body.readableBytes(), "the example's Content-Length");
        final byte[] decoded = new AwsChunkedBody().decode(body, auth, 66_560);
        assertArrayEquals(a(66_560).getBytes(StandardCharsets.US_ASCII), decoded);
    }

    @Test
    void aChangedByteOrSignatureOrLengthIsRefused()
    {
        final Authentication auth = seed();
        final String good = exampleBody(FIRST);
        final String flipped = good.substring(0, 200) + "b" + good.substring(201);
        assertEquals(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH, assertThrows(S3Exception.class,
            () -> new AwsChunkedBody().decode(bytes(flipped), auth, 66_560)).code());
        assertEquals(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH, assertThrows(S3Exception.class,
            () -> new AwsChunkedBody().decode(bytes(exampleBody(FIRST.replace('a', 'b'))), auth, 66_560)).code());
        final String withoutLast = good.substring(0, good.indexOf("0;chunk-signature=b6c6"));
        assertEquals(S3ErrorCode.INVALID_ARGUMENT, assertThrows(S3Exception.class,
            () -> new AwsChunkedBody().decode(bytes(withoutLast), auth, 66_560)).code(), "truncated");
        assertEquals(S3ErrorCode.INVALID_ARGUMENT, assertThrows(S3Exception.class,
            () -> new AwsChunkedBody().decode(bytes(good), auth, 66_000)).code(), "wrong decoded length");
        final String reordered = "400;chunk-signature=" +
            "0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497\r\n" + a(1024) + "\r\n" + good;
        assertThrows(S3Exception.class, () -> new AwsChunkedBody().decode(bytes(reordered), auth, 67_584));
    }

    @Test
    void anUnsignedBodyWithAChecksumTrailerIsChecked()
    {
        final Authentication unsigned = new Authentication("id", "STREAMING-UNSIGNED-PAYLOAD-TRAILER",
            "20260301T000000Z", "20260301/us-east-1/s3/aws4_request", "0".repeat(64), new byte[32]);
        final byte[] data = "hello, offcache".getBytes(StandardCharsets.US_ASCII);
        final CRC32 crc = new CRC32();
        crc.update(data);
        final long value = crc.getValue();
        final String checksum = Base64.getEncoder().encodeToString(
            new byte[] {(byte) (value >>> 24), (byte) (value >>> 16), (byte) (value >>> 8), (byte) value});
        final String body = Integer.toHexString(data.length) + "\r\nhello, offcache\r\n0\r\nx-amz-checksum-crc32:" +
            checksum + "\r\n\r\n";
        assertArrayEquals(data, new AwsChunkedBody().decode(bytes(body), unsigned, data.length));
        final String wrong = body.replace("hello", "jello");
        assertEquals(S3ErrorCode.INVALID_ARGUMENT, assertThrows(S3Exception.class,
            () -> new AwsChunkedBody().decode(bytes(wrong), unsigned, data.length)).code());
    }
}
