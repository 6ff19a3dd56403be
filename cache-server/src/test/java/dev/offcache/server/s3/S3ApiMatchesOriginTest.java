package dev.offcache.server.s3;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import dev.offcache.server.cli.ServerProgram;
import dev.offcache.testkit.s3.S3ProxyServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The S3 endpoint in front of S3Proxy answers as S3Proxy does: each request is sent, signed alike, to the server and
 * straight to S3Proxy, and the two answers are compared — status, error code, the headers S3 defines for the
 * request, and the body (bytes of objects). Where S3Proxy departs from S3's documentation the test expects S3's
 * answer and says so. Writes go through the server's pass-through and are read back at S3Proxy.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class S3ApiMatchesOriginTest
{
    private static final String ID = S3ApiClientsTest.ID;
    private static final String SECRET = S3ApiClientsTest.SECRET;
    /**
     * The headers S3 defines on object answers, compared between the two answers. Not {@code Accept-Ranges}: S3
     * sends it on every object answer, S3Proxy does not (the server does, as S3).
     */
    private static final List<String> OBJECT_HEADERS = List.of("content-type", "content-length", "content-range",
        "etag", "last-modified", "cache-control", "expires", "content-encoding", "content-language",
        "content-disposition", "x-amz-storage-class", "x-amz-mp-parts-count", "x-amz-website-redirect-location");

    private final HttpClient http = HttpClient.newHttpClient();
    private S3ProxyServer proxy;
    private S3Client direct;
    private Path scratch;
    private ServerProgram program;
    private URI endpoint;
    private S3Client client;

    @BeforeAll
    void start() throws Exception
    {
        proxy = S3ProxyServer.start("lake", "logs", "spare");
        direct = sdk(proxy.endpoint(), S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY);
        scratch = Files.createTempDirectory("offcache-s3-same");
        program = S3ApiClientsTest.startProgram(List.of("--s3-endpoint", proxy.endpoint().toString(),
            "--s3-bucket", "lake,logs,spare", "--s3-access-key", S3ProxyServer.ACCESS_KEY, "--s3-secret-key",
            S3ProxyServer.SECRET_KEY), scratch.resolve("ssd"), "32", "--s3-api-writes", "PASS_THROUGH");
        endpoint = URI.create("http://127.0.0.1:" + program.server().s3Address().getPort());
        client = sdk(endpoint, ID, SECRET);
    }

    @AfterAll
    void stop() throws Exception
    {
        client.close();
        program.close();
        direct.close();
        proxy.close();
        S3ApiClientsTest.deleteTree(scratch);
    }

    private static S3Client sdk(final URI at, final String id, final String secret)
    {
        return S3Client.builder()
            .endpointOverride(at)
            .region(Region.US_EAST_1)
            .forcePathStyle(true)
            .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(id, secret)))
            .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
            .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
            .httpClientBuilder(Apache5HttpClient.builder())
            .build();
    }

    // ---- object metadata ---------------------------------------------------------------------------------------

    @Test
    void storedHeadersOfAnObjectWrittenAtTheOriginAreReturnedOnGetAndHead() throws Exception
    {
        final byte[] bytes = bytes(150_000, 11);
        direct.putObject((r) -> r.bucket("lake").key("meta/at-origin.json").contentType("application/json")
            .cacheControl("max-age=60").contentDisposition("attachment; filename=\"a.json\"")
            .contentEncoding("gzip").contentLanguage("fr").expires(Instant.parse("2031-01-02T03:04:05Z"))
            .metadata(Map.of("owner", "team-a", "Mixed-Case", "v 1")), RequestBody.fromBytes(bytes));
        for (int round = 0; round < 2; round++)
        {
            // the second round from the cache: the metadata is kept with the version's size and tag
            same("GET", "/lake/meta/at-origin.json", Map.of(), true);
            same("HEAD", "/lake/meta/at-origin.json", Map.of(), false);
            same("GET", "/lake/meta/at-origin.json", Map.of("Range", "bytes=100-70000"), true);
            same("GET", "/lake/meta/at-origin.json?response-content-type=text%2Fplain", Map.of(), true);
        }
        final Answer head = send(endpoint, ID, SECRET, "HEAD", "/lake/meta/at-origin.json", Map.of(), null);
        assertEquals("application/json", head.header("content-type"));
        assertEquals("team-a", head.header("x-amz-meta-owner"));
        assertEquals("v 1", head.header("x-amz-meta-mixed-case"));
        assertEquals("bytes", head.acceptRanges());
    }

    @Test
    void passThroughWritesCarryEveryStoredHeaderToTheOrigin() throws Exception
    {
        final byte[] bytes = bytes(70_000, 12);
        client.putObject((r) -> r.bucket("lake").key("meta/put.bin").contentType("image/png")
            .cacheControl("no-cache").contentDisposition("inline").contentLanguage("de")
            .expires(Instant.parse("2030-05-06T07:08:09Z")).metadata(Map.of("color", "blue")),
            RequestBody.fromBytes(bytes));
        final HeadObjectResponse atOrigin = direct.headObject((r) -> r.bucket("lake").key("meta/put.bin"));
        assertEquals("image/png", atOrigin.contentType());
        assertEquals("no-cache", atOrigin.cacheControl());
        assertEquals("inline", atOrigin.contentDisposition());
        assertEquals("de", atOrigin.contentLanguage());
        assertEquals("Mon, 06 May 2030 07:08:09 GMT",
            atOrigin.sdkHttpResponse().firstMatchingHeader("Expires").orElse(null));
        assertEquals(Map.of("color", "blue"), atOrigin.metadata());
        same("HEAD", "/lake/meta/put.bin", Map.of(), false);
        same("GET", "/lake/meta/put.bin", Map.of(), true);
        // a header the origin does not implement is the origin's refusal (S3Proxy: 501 NotImplemented), as
        // straight, several times. S3Proxy answers without reading the body and closes the connection. A body
        // this small goes to the origin's client whole once in, as the direct client sends it, not piece by piece
        // as it arrives, so it meets that close as straight's does; and it is kept until the answer, so the
        // client's retry on a new connection gets it again even after it went. A body larger than the sockets'
        // buffers is not compared: S3Proxy's close resets the connection while the origin's client still writes,
        // and the client reports the reset, not the refusal (500 InternalError here; the same race as straight,
        // which a client reading while it writes wins)
        for (int i = 0; i < 3; i++)
        {
            same("PUT", "/lake/meta/redirect.bin", Map.of("x-amz-website-redirect-location", "/elsewhere"), false,
                bytes);
        }

        // a put without a content type is stored with S3's default, as S3 does
        client.putObject((r) -> r.bucket("logs").key("meta/plain.bin"), RequestBody.fromBytes(bytes));
        direct.putObject((r) -> r.bucket("logs").key("meta/plain-direct.bin"), RequestBody.fromBytes(bytes));
        assertEquals(direct.headObject((r) -> r.bucket("logs").key("meta/plain-direct.bin")).contentType(),
            direct.headObject((r) -> r.bucket("logs").key("meta/plain.bin")).contentType());

        // multipart: the headers of CreateMultipartUpload are the object's
        final String upload = client.createMultipartUpload((r) -> r.bucket("lake").key("meta/mp.bin")
            .contentType("text/csv").contentLanguage("en").metadata(Map.of("rows", "42"))).uploadId();
        final String tag = client.uploadPart((r) -> r.bucket("lake").key("meta/mp.bin").uploadId(upload)
            .partNumber(1), RequestBody.fromBytes(bytes)).eTag();
        client.completeMultipartUpload((r) -> r.bucket("lake").key("meta/mp.bin").uploadId(upload)
            .multipartUpload((m) -> m.parts(CompletedPart.builder().partNumber(1).eTag(tag).build())));
        final HeadObjectResponse mp = direct.headObject((r) -> r.bucket("lake").key("meta/mp.bin"));
        assertEquals("text/csv", mp.contentType());
        assertEquals("en", mp.contentLanguage());
        assertEquals(Map.of("rows", "42"), mp.metadata());
        same("HEAD", "/lake/meta/mp.bin", Map.of(), false);
    }

    @Test
    void anOverwriteThroughTheCacheReplacesTheMetadataItReturns() throws Exception
    {
        final byte[] bytes = bytes(10_000, 13);
        client.putObject((r) -> r.bucket("logs").key("meta/over.bin").contentType("text/one")
            .metadata(Map.of("v", "1")), RequestBody.fromBytes(bytes));
        same("HEAD", "/logs/meta/over.bin", Map.of(), false);
        client.putObject((r) -> r.bucket("logs").key("meta/over.bin").contentType("text/two")
            .metadata(Map.of("v", "2")), RequestBody.fromBytes(bytes));
        final Answer after = same("GET", "/logs/meta/over.bin", Map.of(), true);
        assertEquals("text/two", after.header("content-type"));
        assertEquals("2", after.header("x-amz-meta-v"));
    }

    @Test
    void awsChunkedIsNotPartOfTheStoredContentEncoding() throws Exception
    {
        final byte[] bytes = bytes(5_000, 14);
        // sent by the SDK as an aws-chunked body (payload signing over http) with the object's own coding
        client.putObject((r) -> r.bucket("lake").key("meta/chunked.gz").contentEncoding("gzip"),
            RequestBody.fromBytes(bytes));
        assertEquals("gzip", direct.headObject((r) -> r.bucket("lake").key("meta/chunked.gz")).contentEncoding());
        final Answer through = same("HEAD", "/lake/meta/chunked.gz", Map.of(), false);
        assertEquals("gzip", through.header("content-encoding"));
    }

    // ---- keys the cache does not serve ----------------------------------------------------------------------------

    /**
     * Keys the block path cannot serve (a directory marker, a {@code .} segment, control characters) are read
     * straight from the origin: GET, HEAD, ranges, conditions, {@code partNumber} and a missing key answer as S3Proxy
     * does, every read costs an origin request (nothing is cached), and an overwrite at the origin is seen at once.
     */
    @Test
    void keysTheCacheDoesNotServeAreReadStraightFromTheOrigin() throws Exception
    {
        // the large marker spans several of the server's pieces read from the origin (256 KiB each)
        final Map<String, byte[]> objects = new TreeMap<>(Map.of(
            "odd/dir/", new byte[0],
            "odd/big-marker/", bytes(700_001, 61),
            "odd/./dot", bytes(1_000, 62),
            "odd/tab\tkey", bytes(2_000, 63),
            "odd/ctl\u0001key", bytes(3_000, 64)));
        final List<String> paths = new ArrayList<>();
        for (final Map.Entry<String, byte[]> object : objects.entrySet())
        {
            // a whole signed body: the SDK's aws-chunked upload leaves 'aws-chunked' in S3Proxy's stored
            // Content-Encoding (S3 drops it, as the endpoint does)
            paths.add("/lake/" + AwsUriEncoding.encode(object.getKey(), true));
            assertEquals(200, send(proxy.endpoint(), S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY, "PUT",
                paths.get(paths.size() - 1), Map.of("Content-Type", "text/odd", "x-amz-meta-k", "v"),
                object.getValue()).status(), object.getKey());
        }
        assertEquals(objects.size(),
            direct.listObjectsV2((r) -> r.bucket("lake").prefix("odd/").encodingType("url")).keyCount());
        for (int round = 0; round < 2; round++)
        {
            for (final String path : paths)
            {
                final Answer whole = same("GET", path, Map.of(), true);
                assertEquals(200, whole.status(), path);
                assertEquals("v", whole.header("x-amz-meta-k"), path);
                same("HEAD", path, Map.of(), false);
                same("GET", path, Map.of("Range", "bytes=5-600000"), true);
                same("GET", path, Map.of("Range", "bytes=-10"), true);
                same("GET", path, Map.of("Range", "bytes=900000-"), true);
                // a 304's headers are not compared (S3Proxy sends no Last-Modified on it, S3 and the endpoint do)
                assertEquals(304, send(endpoint, ID, SECRET, "GET", path, Map.of("If-None-Match",
                    whole.header("etag")), null).status(), path);
                same("GET", path, Map.of("If-Match", "\"0123\""), false);
                // partNumber: S3Proxy ignores it (200, the whole object); S3 answers an object not uploaded in
                // parts as its own part 1, 206 with every byte, as the endpoint does
                final Answer part = send(endpoint, ID, SECRET, "GET", path + "?partNumber=1", Map.of(), null);
                assertArrayEquals(objects.get(AwsUriEncoding.decodePath(path.substring("/lake/".length()))),
                    part.body(), path);
                assertEquals(objects.get(AwsUriEncoding.decodePath(path.substring("/lake/".length()))).length == 0 ?
                    200 : 206, part.status(), path);
            }
            // every read through the server is an origin read: nothing is cached
            final long before = proxy.counters().bytes((k) -> k.startsWith("lake/odd/"));
            assertEquals(700_001, send(endpoint, ID, SECRET, "GET", "/lake/odd/big-marker/", Map.of(), null)
                .body().length);
            assertEquals(700_001, proxy.counters().bytes((k) -> k.startsWith("lake/odd/")) - before);
        }
        // an overwrite behind the cache is seen at once (same size, other bytes)
        final byte[] other = bytes(700_001, 65);
        assertEquals(200, send(proxy.endpoint(), S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY, "PUT",
            "/lake/odd/big-marker/", Map.of(), other).status());
        final Answer after = same("GET", "/lake/odd/big-marker/", Map.of(), true);
        assertArrayEquals(other, after.body());

        // missing such keys: NoSuchKey on GET, 404 on HEAD, as the origin answers
        for (final String path : List.of("/lake/odd/missing/", "/lake/odd/./missing", "/lake/odd/mis%09sing"))
        {
            assertEquals("NoSuchKey", same("GET", path, Map.of(), false).code(), path);
            assertEquals(404, same("HEAD", path, Map.of(), false).status(), path);
        }
    }

    // ---- parts -------------------------------------------------------------------------------------------------

    @Test
    void aPartNumberReadServesThatPartsBytesWithThePartCount() throws Exception
    {
        final int mib = 1024 * 1024;
        final byte[] first = bytes(5 * mib, 21);
        final byte[] second = bytes(300_001, 22);
        final String upload = direct.createMultipartUpload((r) -> r.bucket("lake").key("parts/two.bin")
            .contentType("text/two")).uploadId();
        final String tag1 = direct.uploadPart((r) -> r.bucket("lake").key("parts/two.bin").uploadId(upload)
            .partNumber(1), RequestBody.fromBytes(first)).eTag();
        final String tag2 = direct.uploadPart((r) -> r.bucket("lake").key("parts/two.bin").uploadId(upload)
            .partNumber(2), RequestBody.fromBytes(second)).eTag();
        direct.completeMultipartUpload((r) -> r.bucket("lake").key("parts/two.bin").uploadId(upload)
            .multipartUpload((m) -> m.parts(CompletedPart.builder().partNumber(1).eTag(tag1).build(),
                CompletedPart.builder().partNumber(2).eTag(tag2).build())));
        // S3Proxy 2.6 does not serve parts (its GetObject and HeadObject never read partNumber): it answers any
        // part number with the whole object, 200, no count. The endpoint asks the origin where a part lies and, told
        // nothing, answers part 1 as the origin does and refuses the others (S3 would answer part N's bytes, which
        // cannot be known here; S3Proxy's whole object again would corrupt a client joining parts 1..N)
        final long headsBefore = proxy.counters().heads();
        for (int round = 0; round < 2; round++)
        {
            same("GET", "/lake/parts/two.bin?partNumber=1", Map.of(), true);
            same("HEAD", "/lake/parts/two.bin?partNumber=1", Map.of(), false);
            final Answer second2 = send(endpoint, ID, SECRET, "GET", "/lake/parts/two.bin?partNumber=2", Map.of(),
                null);
            assertEquals(501, second2.status());
            assertEquals("NotImplemented", second2.code());
            assertEquals(501, send(endpoint, ID, SECRET, "HEAD", "/lake/parts/two.bin?partNumber=2", Map.of(), null)
                .status());
        }
        // the comparison's own two HEADs straight at S3Proxy, and the server's three: the version, parts 1 and 2,
        // each once (the second round from what the server keeps)
        assertEquals(2 + 3, proxy.counters().heads() - headsBefore);

        // real clients: the AWS SDK's GetObject with a part number, and its multipart download (which asks for
        // part 1 first and reads the part count): the object's bytes, never other ones
        final byte[] both = new byte[first.length + second.length];
        System.arraycopy(first, 0, both, 0, first.length);
        System.arraycopy(second, 0, both, first.length, second.length);
        final var part1 = client.getObjectAsBytes((r) -> r.bucket("lake").key("parts/two.bin").partNumber(1));
        assertArrayEquals(both, part1.asByteArray());
        assertEquals(null, part1.response().partsCount());
        final var part2 = org.junit.jupiter.api.Assertions.assertThrows(
            software.amazon.awssdk.services.s3.model.S3Exception.class,
            () -> client.getObjectAsBytes((r) -> r.bucket("lake").key("parts/two.bin").partNumber(2)));
        assertEquals(501, part2.statusCode());
        try (software.amazon.awssdk.services.s3.S3AsyncClient async =
            software.amazon.awssdk.services.s3.S3AsyncClient.builder()
                .endpointOverride(endpoint)
                .region(Region.US_EAST_1)
                .forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ID, SECRET)))
                .multipartEnabled(true)
                .build())
        {
            assertArrayEquals(both, async.getObject((r) -> r.bucket("lake").key("parts/two.bin"),
                software.amazon.awssdk.core.async.AsyncResponseTransformer.toBytes()).get(60,
                    java.util.concurrent.TimeUnit.SECONDS).asByteArray());
        }
        // boto3 (Debian's): get_object with PartNumber, through the endpoint
        final Path partsScript = scratch.resolve("boto3_parts.py");
        try (java.io.InputStream in = getClass().getResourceAsStream("boto3_parts.py"))
        {
            Files.copy(in, partsScript, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        if (null == boto3("/usr/bin/python3"))
        {
            org.junit.jupiter.api.Assumptions.assumeFalse(Boolean.getBoolean("offcache.test.s3ToolsOptional"),
                "boto3 is not installed; skipped because -Doffcache.test.s3ToolsOptional=true");
            org.junit.jupiter.api.Assertions.fail("boto3 is not installed: apt-get install python3-boto3");
        }
        final ProcessBuilder boto = new ProcessBuilder("/usr/bin/python3", partsScript.toString(),
            endpoint.toString(), "lake", "parts/two.bin", "1", "2").redirectErrorStream(true);
        boto.environment().keySet().removeIf((name) -> name.startsWith("AWS_"));
        boto.environment().putAll(Map.of("AWS_ACCESS_KEY_ID", ID, "AWS_SECRET_ACCESS_KEY", SECRET,
            "AWS_CONFIG_FILE", scratch.resolve("no-aws-config").toString(),
            "AWS_SHARED_CREDENTIALS_FILE", scratch.resolve("no-aws-credentials").toString(),
            "AWS_EC2_METADATA_DISABLED", "true"));
        final Process botoRun = boto.start();
        final String botoOut = new String(botoRun.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, botoRun.waitFor(), botoOut);
        final String bothSha = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
            .digest(both));
        assertEquals(true, botoOut.contains("part1=200 None " + bothSha), botoOut);
        assertEquals(true, botoOut.contains("part2=501 NotImplemented"), botoOut);

        // S3's refusals where S3Proxy ignores the part number: part 0, and a part with a Range
        assertEquals("InvalidArgument", send(endpoint, ID, SECRET, "GET", "/lake/parts/two.bin?partNumber=0",
            Map.of(), null).code());
        assertEquals("InvalidRequest", send(endpoint, ID, SECRET, "GET", "/lake/parts/two.bin?partNumber=1",
            Map.of("Range", "bytes=0-9"), null).code());
        // a part past the count the object's tag gives: S3's 416 InvalidPartNumber (S3Proxy answers 200 whole)
        final Answer third = send(endpoint, ID, SECRET, "GET", "/lake/parts/two.bin?partNumber=3", Map.of(), null);
        assertEquals(416, third.status());
        assertEquals("InvalidPartNumber", third.code());

        // an object not uploaded in parts is its own part 1 and has no part 2, as S3 documents (206 with the whole
        // object, 416); S3Proxy answers both with 200 and the whole object
        direct.putObject((r) -> r.bucket("lake").key("parts/one.bin"), RequestBody.fromBytes(second));
        final Answer whole = send(endpoint, ID, SECRET, "GET", "/lake/parts/one.bin?partNumber=1", Map.of(), null);
        assertEquals(206, whole.status());
        assertEquals("bytes 0-300000/300001", whole.header("content-range"));
        assertArrayEquals(second, whole.body());
        assertEquals(null, whole.header("x-amz-mp-parts-count"));
        assertEquals(416, send(endpoint, ID, SECRET, "HEAD", "/lake/parts/one.bin?partNumber=2", Map.of(), null)
            .status());
    }

    // ---- listings ----------------------------------------------------------------------------------------------

    @Test
    void listingsAreTheOriginsWithEveryKeyPageAndOwner() throws Exception
    {
        final List<String> keys = List.of("ls/dir/", "ls/dir/a.txt", "ls/dir/sub/", "ls/dir/sub/b.txt", "ls//double",
            "ls/./dot", "ls/a b+c", "ls/tab\tkey", "ls/ctl\u0001key", "ls/\u00e9t\u00e9", "ls/z", "/ls-leading");
        final List<String> stored = new ArrayList<>();
        for (final String key : keys)
        {
            try
            {
                direct.putObject((r) -> r.bucket("logs").key(key), RequestBody.fromString(key));
                stored.add(key);
            }
            catch (final software.amazon.awssdk.services.s3.model.S3Exception ex)
            {
                System.out.println("S3Proxy refuses the key '" + key + "': " + ex.getMessage());
            }
        }
        final List<String> queries = new ArrayList<>(List.of(
            "list-type=2&prefix=ls%2F&encoding-type=url",
            "list-type=2&prefix=ls%2F&max-keys=2&encoding-type=url",
            "list-type=2&prefix=ls%2F&delimiter=%2F&encoding-type=url",
            "list-type=2&prefix=ls%2Fdir%2F&delimiter=%2F",
            "list-type=2&prefix=ls%2Fdir%2F&fetch-owner=true",
            "list-type=2&prefix=ls%2Fdir%2F&continuation-token=",
            "list-type=2&prefix=ls%2Fdir%2F&start-after=ls%2Fdir%2Fa.txt",
            "list-type=2&max-keys=3&encoding-type=url&fetch-owner=true",
            "prefix=ls%2Fdir%2F",
            "prefix=ls%2F&max-keys=3&encoding-type=url",
            "prefix=ls%2F&delimiter=%2F&max-keys=1&encoding-type=url",
            "prefix=ls%2F&marker=ls%2Fdir%2F&encoding-type=url"));
        for (final String query : queries)
        {
            final Answer origin = send(proxy.endpoint(), S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY, "GET",
                "/logs?" + query, Map.of(), null);
            final Answer through = send(endpoint, ID, SECRET, "GET", "/logs?" + query, Map.of(), null);
            assertEquals(origin.status(), through.status(), query);
            assertEquals(200, through.status(), query + ": " + through.text());
            assertEquals(listing(origin.text(), query), listing(through.text(), query), query);
        }
        // an empty continuation-token is echoed, as S3 does
        assertEquals(List.of(""), elements(send(endpoint, ID, SECRET, "GET", "/logs?list-type=2&continuation-token=",
            Map.of(), null).text().replace("<ContinuationToken/>", "<ContinuationToken></ContinuationToken>"),
            "ContinuationToken"));
        // every page of a paged V2 listing, following the tokens, holds the origin's keys
        String token = null;
        final List<String> paged = new ArrayList<>();
        do
        {
            final String query = "list-type=2&prefix=ls%2F&max-keys=2&encoding-type=url" +
                (null == token ? "" : "&continuation-token=" +
                    java.net.URLEncoder.encode(token, StandardCharsets.UTF_8));
            final String origin = send(proxy.endpoint(), S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY, "GET",
                "/logs?" + query, Map.of(), null).text();
            final String through = send(endpoint, ID, SECRET, "GET", "/logs?" + query, Map.of(), null).text();
            final Map<String, List<String>> originPage = listing(origin, query);
            final Map<String, List<String>> throughPage = listing(through, query);
            if (null != token)
            {
                // S3Proxy URL-encodes the token it echoes under encoding-type=url; S3 echoes it as sent (the
                // encoding is for keys, prefixes, delimiters and start-after, not the opaque token)
                assertEquals(List.of(token), throughPage.remove("ContinuationToken"));
                originPage.remove("ContinuationToken");
            }
            assertEquals(originPage, throughPage, query);
            assertEquals(elements(through, "Key").isEmpty() ? 0 : elements(through, "Key").size(),
                Integer.parseInt(elements(through, "KeyCount").get(0)));
            paged.addAll(elements(through, "Key"));
            final List<String> next = elements(through, "NextContinuationToken");
            token = next.isEmpty() ? null : next.get(0);
        }
        while (null != token);
        assertEquals(stored.stream().filter((k) -> k.startsWith("ls/")).count(), paged.size(), paged.toString());

        // a directory marker written through the cache is the origin's object
        client.putObject((r) -> r.bucket("logs").key("ls/new-dir/"), RequestBody.empty());
        assertEquals(0L, direct.headObject((r) -> r.bucket("logs").key("ls/new-dir/")).contentLength());
        client.deleteObject((r) -> r.bucket("logs").key("ls/new-dir/"));
        assertEquals(404, send(proxy.endpoint(), S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY, "HEAD",
            "/logs/ls/new-dir/", Map.of(), null).status());
    }

    /**
     * A listing's meaning: each top-level element's text, and each {@code Contents} / {@code CommonPrefixes} entry
     * as its sorted fields, in order. Two departures of S3Proxy from S3 are read past: its times have no
     * milliseconds ({@code ...:54Z}, S3's {@code ...:54.000Z}: compared as instants), and it always echoes
     * {@code ContinuationToken} and {@code StartAfter}, empty when not sent (S3 only when sent: an empty one is left
     * out here unless the query has it), and a version 1 {@code NextMarker} without a delimiter (S3 has none).
     */
    private static Map<String, List<String>> listing(final String xml, final String query) throws Exception
    {
        final javax.xml.parsers.DocumentBuilderFactory factory = javax.xml.parsers.DocumentBuilderFactory.newInstance();
        final org.w3c.dom.Element root = factory.newDocumentBuilder()
            .parse(new java.io.ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8))).getDocumentElement();
        final Map<String, List<String>> meaning = new TreeMap<>();
        for (org.w3c.dom.Node node = root.getFirstChild(); null != node; node = node.getNextSibling())
        {
            if (node instanceof org.w3c.dom.Element element)
            {
                meaning.computeIfAbsent(element.getTagName(), (k) -> new ArrayList<>()).add(fields(element));
            }
        }
        if (List.of("").equals(meaning.get("ContinuationToken")) && !query.contains("continuation-token="))
        {
            meaning.remove("ContinuationToken");
        }
        if (List.of("").equals(meaning.get("StartAfter")) && !query.contains("start-after="))
        {
            meaning.remove("StartAfter");
        }
        if (!query.contains("delimiter="))
        {
            // S3 gives a version 1 NextMarker only with a delimiter (the client goes on from the last key);
            // S3Proxy gives it always
            meaning.remove("NextMarker");
        }
        return meaning;
    }

    private static String fields(final org.w3c.dom.Element element)
    {
        final List<String> fields = new ArrayList<>();
        boolean nested = false;
        for (org.w3c.dom.Node node = element.getFirstChild(); null != node; node = node.getNextSibling())
        {
            if (node instanceof org.w3c.dom.Element child)
            {
                nested = true;
                fields.add(child.getTagName() + "=" + fields(child));
            }
        }
        if (!nested)
        {
            return "LastModified".equals(element.getTagName()) ?
                Instant.parse(element.getTextContent()).toString() : element.getTextContent();
        }
        fields.sort(null);
        return String.join(";", fields);
    }

    // ---- errors ------------------------------------------------------------------------------------------------

    @Test
    void errorsAreS3s() throws Exception
    {
        // a bucket the origin no longer has: NoSuchBucket on listings and reads, as the origin answers
        direct.deleteBucket((r) -> r.bucket("spare"));
        for (final String path : List.of("/spare?list-type=2", "/spare", "/spare?prefix=a", "/spare/some/key"))
        {
            assertEquals("NoSuchBucket", same("GET", path, Map.of(), false).code(), path);
        }
        assertEquals(404, same("HEAD", "/spare/some/key", Map.of(), false).status());
        // a PutObject, streamed to the origin, that the origin refuses before it reads the body: its status and
        // code, small and large (the large one past the connection's buffer bound, so the server holds it unread)
        for (final int size : new int[] {10, 200_000, 3 * 1024 * 1024})
        {
            assertEquals("NoSuchBucket", same("PUT", "/spare/put/key", Map.of(), false, bytes(size, 16)).code());
            assertEquals("NoSuchBucket", same("PUT", "/spare/put/key?partNumber=1&uploadId=none", Map.of(),
                false, bytes(size, 16)).code());
        }

        // a CORS preflight without an Origin: 400 (S3's BadRequest); with one, this endpoint has no CORS rules
        final Answer noOrigin = send(endpoint, ID, SECRET, "OPTIONS", "/lake/k", Map.of(), null);
        assertEquals(400, noOrigin.status());
        assertEquals("BadRequest", noOrigin.code());
        final Answer withOrigin = send(endpoint, ID, SECRET, "OPTIONS", "/lake/k", Map.of("Origin",
            "http://example.test", "Access-Control-Request-Method", "GET"), null);
        assertEquals(403, withOrigin.status());
        assertEquals("AccessForbidden", withOrigin.code());

        // a PutObject whose body comes in HTTP chunks without a length: 411 MissingContentLength, nothing written
        final HttpRequest chunked = HttpRequest.newBuilder(URI.create(endpoint + "/lake/err/chunked.bin"))
            .PUT(HttpRequest.BodyPublishers.fromPublisher(HttpRequest.BodyPublishers.ofByteArray(bytes(1000, 31))))
            .header("Authorization", "AWS4-HMAC-SHA256 Credential=" + ID + "/20260101/us-east-1/s3/aws4_request, " +
                "SignedHeaders=host, Signature=00")
            .header("x-amz-content-sha256", "UNSIGNED-PAYLOAD").build();
        final HttpResponse<String> refused = http.send(chunked, HttpResponse.BodyHandlers.ofString());
        assertEquals(411, refused.statusCode(), refused.body());
        assertEquals(List.of("MissingContentLength"), elements(refused.body(), "Code"));
        assertEquals(404, send(proxy.endpoint(), S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY, "HEAD",
            "/lake/err/chunked.bin", Map.of(), null).status());
    }

    // ---- Signature Version 2 from boto3 ------------------------------------------------------------------------

    /**
     * boto3 as it comes: a presigned URL made without a {@code signature_version} (Debian's botocore 1.29 makes a
     * Signature Version 2 URL), fetched as made, tampered and expired, and a client signing headers with V2; each
     * answer equal to S3Proxy's (which accepts V2 too), run with every boto3 on the machine: Debian's
     * {@code python3-boto3} ({@code /usr/bin/python3}) and the one on the PATH, if another.
     */
    @Test
    void boto3SignatureVersion2IsAcceptedAndItsWrongFormsRefusedAsS3Does() throws Exception
    {
        final byte[] object = bytes(50_000, 41);
        direct.putObject((r) -> r.bucket("lake").key("v2/o.bin"), RequestBody.fromBytes(object));
        final Path script = scratch.resolve("boto3_sigv2.py");
        try (java.io.InputStream in = getClass().getResourceAsStream("boto3_sigv2.py"))
        {
            Files.copy(in, script);
        }
        final List<String> pythons = new ArrayList<>();
        for (final String candidate : List.of("/usr/bin/python3", "python3"))
        {
            final String version = boto3(candidate);
            if (null != version && pythons.stream().noneMatch((p) -> version.equals(boto3(p))))
            {
                pythons.add(candidate);
            }
        }
        if (pythons.isEmpty())
        {
            org.junit.jupiter.api.Assumptions.assumeFalse(Boolean.getBoolean("offcache.test.s3ToolsOptional"),
                "boto3 is not installed; skipped because -Doffcache.test.s3ToolsOptional=true");
            org.junit.jupiter.api.Assertions.fail("boto3 is not installed: apt-get install python3-boto3");
        }
        boolean sawV2 = false;
        for (final String python : pythons)
        {
            final Map<String, String> through = python(python, script, endpoint, ID, SECRET);
            final Map<String, String> origin = python(python, script, proxy.endpoint(), S3ProxyServer.ACCESS_KEY,
                S3ProxyServer.SECRET_KEY);
            // the presigned URLs, as made, tampered and expired: S3Proxy's answers
            for (final String url : List.of("presigned-version", "presigned", "tampered", "expired", "v2-presigned"))
            {
                assertEquals(origin.get(url), through.get(url), python + " " + url);
            }
            // the V2 header-signed calls: S3's answers; S3Proxy refuses some of them (a V2-signed ListObjects from
            // boto3 is SignatureDoesNotMatch there; botocore 1.43's GetObject asks for checksums, NotImplemented)
            System.out.println("S3Proxy, V2-signed calls from " + python + ": " + origin);
            final String sha = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                .digest(object));
            assertEquals("200 " + sha, through.get("presigned"), python);
            assertEquals("403 SignatureDoesNotMatch", through.get("tampered"), python);
            assertEquals("403 AccessDenied", through.get("expired"), python);
            assertEquals("200 " + sha, through.get("v2-presigned"), python);
            assertEquals("90 " + java.util.HexFormat.of().formatHex(java.security.MessageDigest
                .getInstance("SHA-256").digest(java.util.Arrays.copyOfRange(object, 10, 100))),
                through.get("v2-range"));
            assertEquals("50000", through.get("v2-head"));
            assertEquals("NoSuchKey", through.get("v2-missing"));
            assertEquals("403", through.get("v2-wrong-secret"));
            sawV2 |= "2".equals(through.get("presigned-version"));
            System.out.println(python + ": botocore " + through.get("botocore") + ", default presigned URL version " +
                through.get("presigned-version"));
        }
        assertEquals(true, sawV2, "a boto3 whose default presigned URL is Signature Version 2 was run");
    }

    /** The boto3 version of a Python, or {@code null} when it has none. */
    private static String boto3(final String python)
    {
        try
        {
            final Process process = new ProcessBuilder(python, "-c", "import boto3; print(boto3.__version__)")
                .redirectErrorStream(true).start();
            final String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return process.waitFor() == 0 ? out : null;
        }
        catch (final java.io.IOException ex)
        {
            return null;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** Runs the script against an endpoint with a key pair; its {@code key=value} lines. */
    private Map<String, String> python(final String python, final Path script, final URI at, final String id,
        final String secret) throws Exception
    {
        final ProcessBuilder builder = new ProcessBuilder(python, script.toString(), at.toString(), "lake", "v2/o.bin")
            .redirectErrorStream(true);
        builder.environment().keySet().removeIf((name) -> name.startsWith("AWS_"));
        builder.environment().putAll(Map.of("AWS_ACCESS_KEY_ID", id, "AWS_SECRET_ACCESS_KEY", secret,
            "AWS_CONFIG_FILE", scratch.resolve("no-aws-config").toString(),
            "AWS_SHARED_CREDENTIALS_FILE", scratch.resolve("no-aws-credentials").toString(),
            "AWS_EC2_METADATA_DISABLED", "true"));
        final Process process = builder.start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.waitFor(), output);
        final Map<String, String> lines = new TreeMap<>();
        for (final String line : output.split("\n"))
        {
            final int equals = line.indexOf('=');
            if (equals > 0 && !line.startsWith("botocore"))
            {
                lines.put(line.substring(0, equals), line.substring(equals + 1));
            }
            else if (line.startsWith("botocore="))
            {
                lines.put("botocore", line.substring(9));
            }
        }
        return lines;
    }

    // ---- comparing answers -------------------------------------------------------------------------------------

    /** Sends a request to the server and to S3Proxy and asserts the answers are the same; returns the server's. */
    private Answer same(final String method, final String pathAndQuery, final Map<String, String> headers,
        final boolean compareBody) throws Exception
    {
        return same(method, pathAndQuery, headers, compareBody, null);
    }

    private Answer same(final String method, final String pathAndQuery, final Map<String, String> headers,
        final boolean compareBody, final byte[] requestBody) throws Exception
    {
        final Answer origin = send(proxy.endpoint(), S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY, method,
            pathAndQuery, headers, requestBody);
        final Answer through = send(endpoint, ID, SECRET, method, pathAndQuery, headers, requestBody);
        final String what = method + " " + pathAndQuery + " " + headers;
        assertEquals(origin.status(), through.status(), what);
        assertEquals(origin.code(), through.code(), what);
        if (null != origin.code() || origin.status() >= 400)
        {
            // an error: its status and code (the document's other elements, request ids, are each server's own)
            return through;
        }
        assertEquals(origin.defined(), through.defined(), what);
        if (compareBody)
        {
            assertArrayEquals(origin.body(), through.body(), what);
        }
        return through;
    }

    /** A request signed with SigV4 (the body's hash signed) as the SDK's signer does it. */
    Answer send(final URI at, final String id, final String secret, final String method, final String pathAndQuery,
        final Map<String, String> headers, final byte[] body) throws Exception
    {
        final SdkHttpRequest.Builder unsigned = SdkHttpRequest.builder().method(SdkHttpMethod.fromValue(method))
            .uri(URI.create(at + pathAndQuery));
        headers.forEach(unsigned::putHeader);
        final byte[] payload = null == body ? new byte[0] : body;
        final SdkHttpRequest signed = AwsV4HttpSigner.create().sign((r) -> r
            .identity(AwsCredentialsIdentity.create(id, secret))
            .request(unsigned.build())
            .payload(ContentStreamProvider.fromByteArray(payload))
            .putProperty(AwsV4FamilyHttpSigner.SERVICE_SIGNING_NAME, "s3")
            .putProperty(AwsV4HttpSigner.REGION_NAME, "us-east-1")
            .putProperty(AwsV4FamilyHttpSigner.DOUBLE_URL_ENCODE, false)
            .putProperty(AwsV4FamilyHttpSigner.NORMALIZE_PATH, false)
            .putProperty(AwsV4FamilyHttpSigner.PAYLOAD_SIGNING_ENABLED, true)
            .putProperty(AwsV4FamilyHttpSigner.CHUNK_ENCODING_ENABLED, false)).request();
        final HttpRequest.Builder builder = HttpRequest.newBuilder(signed.getUri())
            .method(method, null == body ? HttpRequest.BodyPublishers.noBody() :
                HttpRequest.BodyPublishers.ofByteArray(body));
        signed.forEachHeader((name, values) ->
        {
            if (!name.equalsIgnoreCase("Host") && !name.equalsIgnoreCase("Content-Length"))
            {
                values.forEach((value) -> builder.header(name, value));
            }
        });
        final HttpResponse<byte[]> response = http.send(builder.build(), HttpResponse.BodyHandlers.ofByteArray());
        final Map<String, String> defined = new TreeMap<>();
        response.headers().map().forEach((name, values) ->
        {
            final String lower = name.toLowerCase(Locale.ROOT);
            if (OBJECT_HEADERS.contains(lower) || lower.startsWith("x-amz-meta-"))
            {
                defined.put(lower, String.join(",", values));
            }
        });
        return new Answer(response.statusCode(), defined, response.body(),
            response.headers().firstValue("Accept-Ranges").orElse(null));
    }

    /** An answer: its status, the S3-defined headers, its body. */
    record Answer(int status, Map<String, String> defined, byte[] body, String acceptRanges)
    {
        String header(final String name)
        {
            return defined.get(name);
        }

        /** The error code of an error document, or {@code null}. */
        String code()
        {
            final String text = new String(body, StandardCharsets.UTF_8);
            final int at = text.indexOf("<Code>");
            return status < 300 || at < 0 ? null : text.substring(at + 6, text.indexOf("</Code>"));
        }

        String text()
        {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    static byte[] bytes(final int size, final long seed)
    {
        final byte[] bytes = new byte[size];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    static List<String> elements(final String xml, final String name)
    {
        final List<String> values = new ArrayList<>();
        final String open = "<" + name + ">";
        int at = xml.indexOf(open);
        while (at >= 0)
        {
            final int end = xml.indexOf("</" + name + ">", at);
            values.add(xml.substring(at + open.length(), end));
            at = xml.indexOf(open, end);
        }
        return values;
    }
}
