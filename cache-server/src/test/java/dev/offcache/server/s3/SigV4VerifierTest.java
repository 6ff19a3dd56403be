package dev.offcache.server.s3;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;
import software.amazon.awssdk.services.s3.presigner.model.PresignedGetObjectRequest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Signature Version 4 verification against AWS's published examples (the S3 "Signature Calculations" examples
 * and the generic test suite) and against requests the AWS SDK v2 signer and presigner produce, plus every way a
 * request can be signed wrong and the S3 code it gets.
 */
class SigV4VerifierTest
{
    // AWS's documented example credentials and time (docs: "Examples of signature calculations", S3)
    private static final String EXAMPLE_ID = "AKIAIOSFODNN7EXAMPLE";
    private static final String EXAMPLE_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
    private static final Instant EXAMPLE_TIME = Instant.parse("2013-05-24T00:00:00Z");
    private static final String HOST = "examplebucket.s3.amazonaws.com";

    private static final String ID = "OCTESTKEYID00000001";
    private static final String SECRET = "tEsTsEcReT/0123456789+abcdefghijklmnopqr";
    private static final S3Credentials CREDENTIALS = S3Credentials.parse(
        EXAMPLE_ID + ":" + EXAMPLE_SECRET + "," + ID + ":" + SECRET);

    private static SigV4Verifier verifierAt(final Instant now)
    {
        return new SigV4Verifier(CREDENTIALS, Clock.fixed(now, ZoneOffset.UTC));
    }

    private static Authentication verify(
        final SigV4Verifier verifier, final String method, final String uri, final HttpHeaders headers,
        final ByteBuf body)
    {
        final int q = uri.indexOf('?');
        return verifier.verify(method, q < 0 ? uri : uri.substring(0, q),
            AwsUriEncoding.parseQuery(q < 0 ? null : uri.substring(q + 1)), headers, body);
    }

    @SuppressWarnings("deprecation")
    private static HttpHeaders headers(final String... namesAndValues)
    {
        // unvalidated: the suite's values carry the blanks a client may send, which Netty's validation refuses
        final HttpHeaders headers = new DefaultHttpHeaders(false);
        for (int i = 0; i < namesAndValues.length; i += 2)
        {
            headers.add(namesAndValues[i], namesAndValues[i + 1]);
        }
        return headers;
    }

    private static String authorization(final String signedHeaders, final String signature)
    {
        return "AWS4-HMAC-SHA256 Credential=" + EXAMPLE_ID + "/20130524/us-east-1/s3/aws4_request,SignedHeaders=" +
            signedHeaders + ",Signature=" + signature;
    }

    private static S3Exception refused(final Runnable request)
    {
        return assertThrows(S3Exception.class, request::run);
    }

    private static HttpHeaders exampleGet(final String signature)
    {
        return headers("Host", HOST, "Range", "bytes=0-9", "x-amz-content-sha256", SignatureV4.EMPTY_SHA256,
            "x-amz-date", "20130524T000000Z",
            "Authorization", authorization("host;range;x-amz-content-sha256;x-amz-date", signature));
    }

    private static final String GET_SIGNATURE = "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41";

    @Test
    void theS3ExamplesOfAwsVerify()
    {
        final SigV4Verifier verifier = verifierAt(EXAMPLE_TIME);
        final Authentication get = verify(verifier, "GET", "/test.txt", exampleGet(GET_SIGNATURE), null);
        assertEquals(EXAMPLE_ID, get.accessKeyId());
        assertEquals("20130524/us-east-1/s3/aws4_request", get.scope());

        final String bodyHash = "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072";
        verify(verifier, "PUT", "/test%24file.text", headers("Host", HOST, "Date", "Fri, 24 May 2013 00:00:00 GMT",
            "x-amz-date", "20130524T000000Z", "x-amz-storage-class", "REDUCED_REDUNDANCY",
            "x-amz-content-sha256", bodyHash,
            "Authorization", authorization("date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class",
                "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd")),
            Unpooled.copiedBuffer("Welcome to Amazon S3.", StandardCharsets.US_ASCII));

        final HttpHeaders dated = headers("Host", HOST, "x-amz-content-sha256", SignatureV4.EMPTY_SHA256,
            "x-amz-date", "20130524T000000Z");
        verify(verifier, "GET", "/?lifecycle", dated.copy().add("Authorization",
            authorization("host;x-amz-content-sha256;x-amz-date",
                "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543")), null);
        verify(verifier, "GET", "/?max-keys=2&prefix=J", dated.copy().add("Authorization",
            authorization("host;x-amz-content-sha256;x-amz-date",
                "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7")), null);
    }

    private static final String PRESIGNED = "/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256" +
        "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request" +
        "&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host" +
        "&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404";

    @Test
    void thePresignedExampleOfAwsVerifiesUntilItExpires()
    {
        assertEquals(EXAMPLE_ID, verify(verifierAt(EXAMPLE_TIME.plusSeconds(86_400)), "GET", PRESIGNED,
            headers("Host", HOST), null).accessKeyId());
        final S3Exception expired = refused(() -> verify(verifierAt(EXAMPLE_TIME.plusSeconds(86_401)), "GET",
            PRESIGNED, headers("Host", HOST), null));
        assertEquals(S3ErrorCode.ACCESS_DENIED, expired.code());
        assertEquals("Request has expired", expired.getMessage());
        assertEquals("86400", expired.detail("X-Amz-Expires"));
        final S3Exception early = refused(() -> verify(verifierAt(EXAMPLE_TIME.minusSeconds(16 * 60)), "GET",
            PRESIGNED, headers("Host", HOST), null));
        assertEquals("Request is not valid yet", early.getMessage());
        final S3Exception tampered = refused(() -> verify(verifierAt(EXAMPLE_TIME), "GET",
            PRESIGNED.replace("/test.txt", "/test2.txt"), headers("Host", HOST), null));
        assertEquals(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH, tampered.code());
        final S3Exception otherHost = refused(() -> verify(verifierAt(EXAMPLE_TIME), "GET", PRESIGNED,
            headers("Host", "evil.example"), null));
        assertEquals(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH, otherHost.code());
    }

    @Test
    void theGenericTestSuiteOfAwsComputes()
    {
        // aws-sig-v4-test-suite (service "service"): the canonical request and the arithmetic, outside S3's scope check
        final SigV4Verifier verifier = verifierAt(EXAMPLE_TIME);
        final byte[] key = SignatureV4.signingKey("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "20150830", "us-east-1",
            "service");
        final Map<String, String[]> cases = Map.of(
            "get-vanilla", new String[] {"/", "", "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"},
            "get-vanilla-query-order-key-case", new String[] {"/", "Param2=value2&Param1=value1",
                "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"},
            "get-utf8", new String[] {"/%E1%88%B4", "",
                "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85"},
            "get-unreserved", new String[] {"/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", "",
                "07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f"});
        for (final Map.Entry<String, String[]> entry : cases.entrySet())
        {
            final String[] c = entry.getValue();
            final String canonical = verifier.canonicalRequest("GET", c[0], AwsUriEncoding.parseQuery(c[1]), false,
                headers("Host", "example.amazonaws.com", "X-Amz-Date", "20150830T123600Z"), "host;x-amz-date",
                SignatureV4.EMPTY_SHA256);
            final String sts = SignatureV4.stringToSign("20150830T123600Z", "20150830/us-east-1/service/aws4_request",
                canonical);
            assertEquals(c[2], SignatureV4.sign(SignatureV4.newMac(), key, sts), entry.getKey());
        }
        final String trimmed = verifier.canonicalRequest("GET", "/", List.of(), false,
            headers("Host", "example.amazonaws.com", "My-Header1", " value1", "My-Header2", " \"a   b   c\"",
                "X-Amz-Date", "20150830T123600Z"), "host;my-header1;my-header2;x-amz-date", SignatureV4.EMPTY_SHA256);
        assertTrue(trimmed.contains("\nmy-header1:value1\nmy-header2:\"a b c\"\n"), trimmed);
        assertEquals("acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736", SignatureV4.sign(
            SignatureV4.newMac(), key, SignatureV4.stringToSign("20150830T123600Z",
                "20150830/us-east-1/service/aws4_request", trimmed)), "get-header-value-trim");
        final String duplicate = verifier.canonicalRequest("GET", "/", List.of(), false,
            headers("Host", "example.amazonaws.com", "My-Header1", "value2", "My-Header1", "value2", "My-Header1",
                "value1", "X-Amz-Date", "20150830T123600Z"), "host;my-header1;x-amz-date", SignatureV4.EMPTY_SHA256);
        assertEquals("c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea", SignatureV4.sign(
            SignatureV4.newMac(), key, SignatureV4.stringToSign("20150830T123600Z",
                "20150830/us-east-1/service/aws4_request", duplicate)), "get-header-key-duplicate");
    }

    @Test
    void everyWayOfSigningWrongGetsItsS3Code()
    {
        final SigV4Verifier verifier = verifierAt(EXAMPLE_TIME);
        final S3Exception badSignature = refused(() -> verify(verifier, "GET", "/test.txt",
            exampleGet(GET_SIGNATURE.replace('f', 'e')), null));
        assertEquals(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH, badSignature.code());
        assertNotNull(badSignature.detail("StringToSign"));
        assertTrue(badSignature.detail("CanonicalRequest").startsWith("GET\n/test.txt\n"));

        final HttpHeaders tamperedRange = exampleGet(GET_SIGNATURE);
        tamperedRange.set("Range", "bytes=0-99");
        assertEquals(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH,
            refused(() -> verify(verifier, "GET", "/test.txt", tamperedRange, null)).code());

        final HttpHeaders unknownId = exampleGet(GET_SIGNATURE);
        unknownId.set("Authorization", unknownId.get("Authorization").replace(EXAMPLE_ID, "AKIANOBODY"));
        final S3Exception unknown = refused(() -> verify(verifier, "GET", "/test.txt", unknownId, null));
        assertEquals(S3ErrorCode.INVALID_ACCESS_KEY_ID, unknown.code());
        assertEquals("AKIANOBODY", unknown.detail("AWSAccessKeyId"));

        final S3Exception wrongSecret = refused(() -> verify(
            new SigV4Verifier(S3Credentials.parse(EXAMPLE_ID + ":someOtherSecret/0123456789"),
                Clock.fixed(EXAMPLE_TIME, ZoneOffset.UTC)), "GET", "/test.txt", exampleGet(GET_SIGNATURE), null));
        assertEquals(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH, wrongSecret.code());

        verify(verifierAt(EXAMPLE_TIME.plusSeconds(15 * 60)), "GET", "/test.txt", exampleGet(GET_SIGNATURE), null);
        final S3Exception skewed = refused(() -> verify(verifierAt(EXAMPLE_TIME.plusSeconds(15 * 60 + 1)), "GET",
            "/test.txt", exampleGet(GET_SIGNATURE), null));
        assertEquals(S3ErrorCode.REQUEST_TIME_TOO_SKEWED, skewed.code());
        assertEquals("900000", skewed.detail("MaxAllowedSkewMilliseconds"));
        assertEquals(S3ErrorCode.REQUEST_TIME_TOO_SKEWED, refused(() -> verify(
            verifierAt(EXAMPLE_TIME.minusSeconds(16 * 60)), "GET", "/test.txt", exampleGet(GET_SIGNATURE),
            null)).code());

        final HttpHeaders unsigned = exampleGet(GET_SIGNATURE);
        unsigned.add("x-amz-meta-sneaky", "1");
        final S3Exception notSigned = refused(() -> verify(verifier, "GET", "/test.txt", unsigned, null));
        assertEquals(S3ErrorCode.ACCESS_DENIED, notSigned.code());
        assertEquals("x-amz-meta-sneaky", notSigned.detail("HeadersNotSigned"));

        assertEquals(S3ErrorCode.CONTENT_SHA256_MISMATCH, refused(() -> verify(verifier, "GET", "/test.txt",
            exampleGet(GET_SIGNATURE), Unpooled.wrappedBuffer(new byte[] {1}))).code(),
            "a body that is not the signed empty body");

        final HttpHeaders noHash = exampleGet(GET_SIGNATURE);
        noHash.remove("x-amz-content-sha256");
        assertEquals(S3ErrorCode.INVALID_REQUEST,
            refused(() -> verify(verifier, "GET", "/test.txt", noHash, null)).code());
        final HttpHeaders noDate = exampleGet(GET_SIGNATURE);
        noDate.remove("x-amz-date");
        assertEquals(S3ErrorCode.ACCESS_DENIED, refused(() -> verify(verifier, "GET", "/test.txt", noDate, null))
            .code());

        assertEquals(S3ErrorCode.ACCESS_DENIED,
            refused(() -> verify(verifier, "GET", "/test.txt", headers("Host", HOST), null)).code(), "anonymous");
        assertEquals(S3ErrorCode.ACCESS_DENIED, refused(() -> verify(verifier, "GET", "/test.txt",
            headers("Host", HOST, "Authorization", "AWS " + EXAMPLE_ID + ":c2lnbmF0dXJl"), null)).code(),
            "SigV2 without a date");
        assertEquals(S3ErrorCode.INVALID_ARGUMENT, refused(() -> verify(verifier, "GET", PRESIGNED,
            exampleGet(GET_SIGNATURE), null)).code(), "header and query signature at once");
        final HttpHeaders otherService = exampleGet(GET_SIGNATURE);
        otherService.set("Authorization", otherService.get("Authorization").replace("/s3/", "/ec2/"));
        assertEquals(S3ErrorCode.AUTHORIZATION_HEADER_MALFORMED,
            refused(() -> verify(verifier, "GET", "/test.txt", otherService, null)).code());
        assertEquals(S3ErrorCode.AUTHORIZATION_HEADER_MALFORMED, refused(() -> verify(verifier, "GET", "/test.txt",
            headers("Host", HOST, "Authorization", "AWS4-HMAC-SHA256 Credential=x"), null)).code());
        assertEquals(S3ErrorCode.AUTHORIZATION_QUERY_PARAMETERS_ERROR, refused(() -> verify(verifier, "GET",
            PRESIGNED.replace("X-Amz-Expires=86400", "X-Amz-Expires=604801"), headers("Host", HOST), null)).code());
        assertEquals(S3ErrorCode.AUTHORIZATION_QUERY_PARAMETERS_ERROR, refused(() -> verify(verifier, "GET",
            PRESIGNED.replace("&X-Amz-SignedHeaders=host", ""), headers("Host", HOST), null)).code());
    }

    @Test
    void requestsTheSdkSignerSignsVerifyAndStopVerifyingWhenChanged()
    {
        final Instant now = Instant.parse("2026-03-01T10:15:30Z");
        final SigV4Verifier verifier = verifierAt(now);
        for (final boolean signPayload : new boolean[] {true, false})
        {
            final SdkHttpRequest unsigned = SdkHttpRequest.builder()
                .method(SdkHttpMethod.GET)
                .uri(URI.create("http://127.0.0.1:8081/lake/dir/a%20b%2Bc%C3%A9~%24.parquet?" +
                    "response-content-type=text%2Fplain&x-id=GetObject"))
                .putHeader("Range", "bytes=100-199")
                .putHeader("x-amz-checksum-mode", "ENABLED")
                .build();
            final SignedRequest signed = AwsV4HttpSigner.create().sign((r) -> r
                .identity(AwsCredentialsIdentity.create(ID, SECRET))
                .request(unsigned)
                .payload(signPayload ? ContentStreamProvider.fromUtf8String("") : null)
                .putProperty(AwsV4FamilyHttpSigner.SERVICE_SIGNING_NAME, "s3")
                .putProperty(AwsV4HttpSigner.REGION_NAME, "eu-west-3")
                .putProperty(AwsV4FamilyHttpSigner.DOUBLE_URL_ENCODE, false)
                .putProperty(AwsV4FamilyHttpSigner.NORMALIZE_PATH, false)
                .putProperty(AwsV4FamilyHttpSigner.PAYLOAD_SIGNING_ENABLED, signPayload)
                .putProperty(HttpSigner.SIGNING_CLOCK, Clock.fixed(now, ZoneOffset.UTC)));
            final HttpHeaders headers = nettyHeaders(signed.request());
            final String uri = uriOf(signed.request());
            assertEquals(signPayload ? SignatureV4.EMPTY_SHA256 : SignatureV4.UNSIGNED_PAYLOAD,
                headers.get("x-amz-content-sha256"));
            assertEquals(ID, verify(verifier, "GET", uri, headers, null).accessKeyId(),
                "SDK-signed, payload signed: " + signPayload);
            assertEquals(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH, refused(() -> verify(verifier, "GET",
                uri.replace("response-content-type=text%2Fplain", "response-content-type=text%2Fhtml"), headers,
                null)).code());
            assertEquals(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH,
                refused(() -> verify(verifier, "HEAD", uri, headers, null)).code());
        }
    }

    @Test
    void urlsTheSdkPresignerMakesVerifyUntilTheyExpire()
    {
        final Instant signedAt = Instant.now();
        try (S3Presigner presigner = S3Presigner.builder()
            .endpointOverride(URI.create("http://127.0.0.1:8081"))
            .region(Region.of("us-east-1"))
            .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ID, SECRET)))
            .serviceConfiguration(S3Configuration.builder().pathStyleAccessEnabled(true).build())
            .build())
        {
            final PresignedGetObjectRequest presigned = presigner.presignGetObject((r) -> r
                .signatureDuration(Duration.ofMinutes(5))
                .getObjectRequest((g) -> g.bucket("lake").key("data/part 1+x.parquet")));
            final URI url = URI.create(presigned.url().toString());
            final String uri = url.getRawPath() + "?" + url.getRawQuery();
            final HttpHeaders headers = headers("Host", url.getHost() + ":" + url.getPort());
            assertEquals(ID, verify(verifierAt(signedAt.plusSeconds(60)), "GET", uri, headers, null).accessKeyId());
            assertEquals("Request has expired", refused(() -> verify(verifierAt(signedAt.plusSeconds(6 * 60)), "GET",
                uri, headers, null)).getMessage());
            assertEquals(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH, refused(() -> verify(verifierAt(signedAt), "GET",
                uri.replace("part%201", "part%202"), headers, null)).code());
        }
    }

    @Test
    void signingKeysAreRememberedBoundedly()
    {
        final S3Credentials credentials = S3Credentials.parse(ID + ":" + SECRET);
        final byte[] first = credentials.signingKey(ID, "20260301", "us-east-1", "s3");
        assertTrue(first == credentials.signingKey(ID, "20260301", "us-east-1", "s3"), "derived once");
        for (int i = 0; i < S3Credentials.MAX_SIGNING_KEYS + 10; i++)
        {
            credentials.signingKey(ID, "20260301", "region-" + i, "s3");
        }
        assertTrue(credentials.cachedSigningKeys() <= S3Credentials.MAX_SIGNING_KEYS);
        assertEquals(null, credentials.signingKey("nobody", "20260301", "us-east-1", "s3"));
    }

    @Test
    void credentialsAreParsedStrictlyAndGeneratedUsable()
    {
        for (final String bad : new String[] {"", "nocolon", "id:short", "a:0123456789abcdefgh", "id with space:" +
            "0123456789abcdef", "ID1:0123456789abcdef,ID1:0123456789abcdeg", "ID2:0123456789 abcdef"})
        {
            final IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> S3Credentials.parse(bad), bad);
            assertTrue(!error.getMessage().contains("0123456789abcdef"), "never echoes a secret: " + error);
        }
        final S3Credentials generated = S3Credentials.generate(new java.security.SecureRandom());
        final String id = generated.accessKeyIds().get(0);
        assertTrue(id.matches("OC[A-Z0-9]{18}"), id);
        assertEquals(40, generated.secretOf(id).length());
    }

    private static HttpHeaders nettyHeaders(final SdkHttpRequest request)
    {
        final HttpHeaders headers = new DefaultHttpHeaders();
        request.forEachHeader((name, values) -> values.forEach((value) -> headers.add(name, value)));
        if (!headers.contains("Host"))
        {
            headers.add("Host", request.host() + ":" + request.port());
        }
        return headers;
    }

    private static String uriOf(final SdkHttpRequest request)
    {
        final URI uri = request.getUri();
        return uri.getRawPath() + (null == uri.getRawQuery() ? "" : "?" + uri.getRawQuery());
    }
}
