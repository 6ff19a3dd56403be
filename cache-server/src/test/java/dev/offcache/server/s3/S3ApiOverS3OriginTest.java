package dev.offcache.server.s3;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import dev.offcache.range.metrics.MetricNames;
import dev.offcache.server.cli.ServerProgram;
import dev.offcache.server.tier.ObjectName;
import dev.offcache.testkit.s3.S3ProxyServer;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetric;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import org.apache.hc.client5.http.DnsResolver;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.Bucket;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.ListPartsResponse;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.Part;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.s3.multipart.MultipartConfiguration;
import software.amazon.awssdk.transfer.s3.S3TransferManager;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The real {@code offcache-server} program serving several buckets over an S3 origin (S3Proxy, two buckets) and a
 * local directory (a third), with pass-through writes: the same key in every bucket is its own object, byte for byte;
 * virtual-host style requests from the AWS SDK (its host names resolved to 127.0.0.1 by the client's own resolver);
 * multipart uploads through the SDK's multipart API, {@link S3TransferManager} and {@code aws s3 cp}, read back
 * through the cache, with no old byte after an overwrite; and the AWS CLI and boto3 (a Python script) reading ranges,
 * heads, listings and a presigned URL. Bytes are compared with the origin's.
 *
 * <p>The AWS CLI and boto3 are outside programs ({@code apt-get install awscli python3-boto3}, which {@code .ci/run}
 * does). Without them their tests fail, naming the packages; run with {@code -Doffcache.test.s3ToolsOptional=true}
 * to skip those two instead (a machine without the packages, never CI).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class S3ApiOverS3OriginTest
{
    private static final String ID = S3ApiClientsTest.ID;
    private static final String SECRET = S3ApiClientsTest.SECRET;
    private static final String BEARER = "bearer-key-0123456789";
    private static final String DOMAIN = "s3.offcache.test";
    private static final int MIB = 1024 * 1024;

    private S3ProxyServer proxy;
    private S3Client direct;
    private Path scratch;
    private Path localDir;
    private ServerProgram program;
    private URI endpoint;
    private S3Client client;

    @BeforeAll
    void start() throws Exception
    {
        proxy = S3ProxyServer.start("lake", "logs");
        direct = S3Client.builder()
            .endpointOverride(proxy.endpoint())
            .region(Region.US_EAST_1)
            .forcePathStyle(true)
            .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(
                S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY)))
            .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
            .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
            .httpClientBuilder(Apache5HttpClient.builder())
            .build();
        scratch = Files.createTempDirectory("offcache-s3-buckets");
        localDir = Files.createDirectories(scratch.resolve("local"));
        program = S3ApiClientsTest.startProgram(List.of("--s3-endpoint", proxy.endpoint().toString(),
            "--s3-bucket", "lake,logs", "--s3-access-key", S3ProxyServer.ACCESS_KEY, "--s3-secret-key",
            S3ProxyServer.SECRET_KEY, "--bucket-dirs", "local=" + localDir), scratch.resolve("ssd"), "32",
            "--s3-api-writes", "PASS_THROUGH", "--s3-api-domain", DOMAIN);
        endpoint = URI.create("http://127.0.0.1:" + program.server().s3Address().getPort());
        client = S3Client.builder()
            .endpointOverride(endpoint)
            .region(Region.US_EAST_1)
            .forcePathStyle(true)
            .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ID, SECRET)))
            .httpClientBuilder(Apache5HttpClient.builder())
            .build();
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

    private static byte[] bytes(final int size, final long seed)
    {
        final byte[] bytes = new byte[size];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    private static byte[] get(final S3Client s3, final String bucket, final String key, final String range)
    {
        return s3.getObject((r) -> r.bucket(bucket).key(key).range(range), ResponseTransformer.toBytes())
            .asByteArray();
    }

    private long originGets()
    {
        return program.cache().metrics().value(MetricNames.ORIGIN_GETS + MetricNames.DEMAND) +
            program.cache().metrics().value(MetricNames.ORIGIN_GETS + MetricNames.PREFETCH);
    }

    /** First: its count of origin GETs must not see the warming that follows the other methods' writes. */
    @Test
    @Order(1)
    void theSameKeyInEveryBucketIsItsOwnObject() throws Exception
    {
        final byte[] lake = bytes(300_000, 1);
        final byte[] logs = bytes(300_000, 2);
        final byte[] local = bytes(300_000, 3);
        direct.putObject((r) -> r.bucket("lake").key("t/same.bin"), RequestBody.fromBytes(lake));
        direct.putObject((r) -> r.bucket("logs").key("t/same.bin"), RequestBody.fromBytes(logs));
        Files.createDirectories(localDir.resolve("t"));
        Files.write(localDir.resolve("t/same.bin"), local);
        final Map<String, byte[]> buckets = Map.of("lake", lake, "logs", logs, "local", local);
        long gets = 0;
        for (int round = 0; round < 2; round++)
        {
            if (round == 1)
            {
                gets = originGets();
            }
            for (final Map.Entry<String, byte[]> bucket : buckets.entrySet())
            {
                final byte[] expected = bucket.getValue();
                assertArrayEquals(expected, get(client, bucket.getKey(), "t/same.bin", null), bucket.getKey());
                assertArrayEquals(Arrays.copyOfRange(expected, 70_000, 200_001), get(client, bucket.getKey(),
                    "t/same.bin", "bytes=70000-200000"), bucket.getKey());
                assertEquals(300_000L, client.headObject((r) -> r.bucket(bucket.getKey()).key("t/same.bin"))
                    .contentLength());
            }
        }
        assertEquals(gets, originGets(), "the second round came from the cache, each bucket's own blocks");

        assertEquals(List.of("lake", "local", "logs"), client.listBuckets().buckets().stream().map(Bucket::name)
            .toList());
        for (final String bucket : buckets.keySet())
        {
            client.headBucket((r) -> r.bucket(bucket));
            final List<S3Object> listed = client.listObjectsV2((r) -> r.bucket(bucket).prefix("t/")).contents();
            assertEquals(List.of("t/same.bin"), listed.stream().map(S3Object::key).toList(), bucket);
            assertEquals(300_000L, listed.get(0).size());
        }
        assertThrows(NoSuchBucketException.class, () -> get(client, "other", "t/same.bin", null));
        assertThrows(NoSuchBucketException.class, () -> client.headBucket((r) -> r.bucket("other")));
        assertThrows(NoSuchKeyException.class, () -> get(client, "logs", "t/none.bin", null));

        // /obj reads the same engine keys: BUCKET/KEY
        final HttpResponse<byte[]> obj = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                "http://127.0.0.1:" + program.server().address().getPort() + "/obj/logs/t/same.bin"))
            .header("Authorization", "Bearer " + BEARER).header("Range", "bytes=10-99").build(),
            HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(206, obj.statusCode());
        assertArrayEquals(Arrays.copyOfRange(logs, 10, 100), obj.body());
    }

    @Test
    void virtualHostStyleRequestsFromTheSdkNameTheBucketInTheHost() throws Exception
    {
        final byte[] lake = bytes(200_000, 4);
        final byte[] logs = bytes(200_000, 5);
        direct.putObject((r) -> r.bucket("lake").key("v/x.bin"), RequestBody.fromBytes(lake));
        direct.putObject((r) -> r.bucket("logs").key("v/x.bin"), RequestBody.fromBytes(logs));
        final List<String> resolved = new CopyOnWriteArrayList<>();
        final DnsResolver loopback = new DnsResolver()
        {
            @Override
            public InetAddress[] resolve(final String host) throws UnknownHostException
            {
                resolved.add(host);
                if (host.equals(DOMAIN) || host.endsWith("." + DOMAIN))
                {
                    return new InetAddress[] {InetAddress.getByAddress(host, new byte[] {127, 0, 0, 1})};
                }
                throw new UnknownHostException(host);
            }

            @Override
            public String resolveCanonicalHostname(final String host)
            {
                return host;
            }
        };
        try (S3Client vhost = S3Client.builder()
            .endpointOverride(URI.create("http://" + DOMAIN + ":" + endpoint.getPort()))
            .region(Region.US_EAST_1)
            .forcePathStyle(false)
            .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ID, SECRET)))
            .httpClientBuilder(Apache5HttpClient.builder().dnsResolver(loopback))
            .build())
        {
            assertArrayEquals(Arrays.copyOfRange(lake, 1000, 150_000), get(vhost, "lake", "v/x.bin",
                "bytes=1000-149999"));
            assertArrayEquals(logs, get(vhost, "logs", "v/x.bin", null));
            assertEquals(200_000L, vhost.headObject((r) -> r.bucket("lake").key("v/x.bin")).contentLength());
            assertEquals(List.of("v/x.bin"), vhost.listObjectsV2((r) -> r.bucket("logs").prefix("v/")).contents()
                .stream().map(S3Object::key).toList());
            assertThrows(NoSuchBucketException.class, () -> get(vhost, "other", "v/x.bin", null));
        }
        assertTrue(resolved.contains("lake." + DOMAIN) && resolved.contains("logs." + DOMAIN),
            "the SDK addressed the buckets by host name: " + resolved);
    }

    /** Uploads parts with the SDK's multipart API and completes them, checking ListParts on the way. */
    private void multipart(final String bucket, final String key, final byte[]... parts)
    {
        final String upload = client.createMultipartUpload((r) -> r.bucket(bucket).key(key)).uploadId();
        final List<CompletedPart> completed = new ArrayList<>();
        for (int i = 0; i < parts.length; i++)
        {
            final int number = i + 1;
            final String etag = client.uploadPart((r) -> r.bucket(bucket).key(key).uploadId(upload)
                .partNumber(number), RequestBody.fromBytes(parts[i])).eTag();
            completed.add(CompletedPart.builder().partNumber(number).eTag(etag).build());
        }
        final ListPartsResponse listed = client.listParts((r) -> r.bucket(bucket).key(key).uploadId(upload));
        assertEquals(completed.stream().map(CompletedPart::partNumber).toList(), listed.parts().stream()
            .map(Part::partNumber).toList());
        assertEquals(completed.stream().map((p) -> unquoted(p.eTag())).toList(), listed.parts().stream()
            .map((p) -> unquoted(p.eTag())).toList(), "the origin's part tags");
        client.completeMultipartUpload((r) -> r.bucket(bucket).key(key).uploadId(upload)
            .multipartUpload((m) -> m.parts(completed)));
    }

    private static String unquoted(final String etag)
    {
        return etag.replace("\"", "");
    }

    private static byte[] concat(final byte[]... parts)
    {
        final byte[] whole = new byte[Arrays.stream(parts).mapToInt((p) -> p.length).sum()];
        int at = 0;
        for (final byte[] part : parts)
        {
            System.arraycopy(part, 0, whole, at, part.length);
            at += part.length;
        }
        return whole;
    }

    @Test
    void multipartUploadsPassThroughAndNoOldByteIsServedAfterAnOverwrite()
    {
        final byte[] first = concat(bytes(5 * MIB, 6), bytes(700_001, 7));
        multipart("lake", "m/sdk.bin", Arrays.copyOfRange(first, 0, 5 * MIB),
            Arrays.copyOfRange(first, 5 * MIB, first.length));
        assertArrayEquals(first, get(direct, "lake", "m/sdk.bin", null), "in the origin");
        assertArrayEquals(first, get(client, "lake", "m/sdk.bin", null), "through the cache");
        final String across = "bytes=" + (5 * MIB - 1000) + "-" + (5 * MIB + 999);
        assertArrayEquals(Arrays.copyOfRange(first, 5 * MIB - 1000, 5 * MIB + 1000), get(client, "lake",
            "m/sdk.bin", across));

        // the same size, other bytes: only forgetting the cached blocks keeps the old ones from being served
        final byte[] second = concat(bytes(5 * MIB, 8), bytes(700_001, 9));
        multipart("lake", "m/sdk.bin", Arrays.copyOfRange(second, 0, 5 * MIB),
            Arrays.copyOfRange(second, 5 * MIB, second.length));
        assertArrayEquals(Arrays.copyOfRange(second, 5 * MIB - 1000, 5 * MIB + 1000), get(client, "lake",
            "m/sdk.bin", across));
        assertArrayEquals(second, get(client, "lake", "m/sdk.bin", null));

        final String dropped = client.createMultipartUpload((r) -> r.bucket("logs").key("m/dropped.bin"))
            .uploadId();
        client.uploadPart((r) -> r.bucket("logs").key("m/dropped.bin").uploadId(dropped).partNumber(1),
            RequestBody.fromBytes(bytes(1000, 10)));
        client.abortMultipartUpload((r) -> r.bucket("logs").key("m/dropped.bin").uploadId(dropped));
        // the origin's own answer passes through: S3 says NoSuchUpload, S3Proxy lists no parts any more
        try
        {
            assertEquals(List.of(), client.listParts((r) -> r.bucket("logs").key("m/dropped.bin")
                .uploadId(dropped)).parts(), "no parts after the abort");
        }
        catch (final S3Exception ex)
        {
            assertEquals("NoSuchUpload", ex.awsErrorDetails().errorCode(), ex.toString());
        }
        assertThrows(NoSuchKeyException.class, () -> client.headObject((r) -> r.bucket("logs")
            .key("m/dropped.bin")));
        assertEquals("NotImplemented", S3ApiClientsTest.code(() -> client.createMultipartUpload((r) ->
            r.bucket("local").key("m/x.bin"))), "a directory bucket takes whole objects only");
    }

    @Test
    void theTransferManagerUploadsAFileInPartsThroughTheServer() throws Exception
    {
        // 8 MiB parts, the SDK's default, with the server's default --max-body-kb (1024): parts are streamed
        final byte[] contents = bytes(20 * MIB + 3, 11);
        final Path file = Files.write(scratch.resolve("tm.bin"), contents);
        final long partsBefore = program.server().metrics().requests("s3_UploadPart", 200);
        try (S3AsyncClient async = S3AsyncClient.builder()
                .endpointOverride(endpoint)
                .region(Region.US_EAST_1)
                .forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ID, SECRET)))
                .multipartEnabled(true)
                .multipartConfiguration(MultipartConfiguration.builder().thresholdInBytes(8L * MIB)
                    .minimumPartSizeInBytes(8L * MIB).build())
                .httpClientBuilder(NettyNioAsyncHttpClient.builder())
                .build();
            S3TransferManager transfers = S3TransferManager.builder().s3Client(async).build())
        {
            transfers.uploadFile((u) -> u.putObjectRequest((p) -> p.bucket("logs").key("m/tm.bin")).source(file))
                .completionFuture().get(120, TimeUnit.SECONDS);
        }
        assertTrue(program.server().metrics().requests("s3_UploadPart", 200) - partsBefore >= 3,
            "uploaded in parts");
        assertArrayEquals(contents, get(direct, "logs", "m/tm.bin", null), "in the origin");
        assertArrayEquals(contents, get(client, "logs", "m/tm.bin", null), "through the cache");
    }

    /** A deterministic stream of {@code size} pseudo-random bytes, never held whole. */
    private static InputStream seeded(final long size, final long seed)
    {
        return new InputStream()
        {
            private final Random random = new Random(seed);
            private final byte[] block = new byte[8192];
            private int at = block.length;
            private long left = size;

            @Override
            public int read()
            {
                final byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
            }

            @Override
            public int read(final byte[] into, final int offset, final int length)
            {
                if (left == 0)
                {
                    return -1;
                }
                if (at == block.length)
                {
                    random.nextBytes(block);
                    at = 0;
                }
                final int n = (int) Math.min(Math.min(length, block.length - at), left);
                System.arraycopy(block, at, into, offset, n);
                at += n;
                left -= n;
                return n;
            }
        };
    }

    private static String sha256(final InputStream in) throws Exception
    {
        final MessageDigest digest = MessageDigest.getInstance("SHA-256");
        try (InputStream stream = in)
        {
            final byte[] buffer = new byte[65536];
            int n;
            while ((n = stream.read(buffer)) >= 0)
            {
                digest.update(buffer, 0, n);
            }
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    @Test
    void aLargePutStreamsToTheOriginInBoundedMemory() throws Exception
    {
        final long size = 64L * MIB + 17;
        // the allocator the server's channels use (Netty 4.2's adaptive one by default)
        final ByteBufAllocatorMetric pool = ((ByteBufAllocatorMetricProvider) ByteBufAllocator.DEFAULT).metric();
        final long baseline = pool.usedDirectMemory();
        final AtomicLong peak = new AtomicLong(baseline);
        final AtomicBoolean uploading = new AtomicBoolean(true);
        final Thread sampler = new Thread(() ->
        {
            while (uploading.get())
            {
                peak.accumulateAndGet(pool.usedDirectMemory(), Math::max);
                LockSupport.parkNanos(2_000_000);
            }
        }, "pool-sampler");
        sampler.start();
        try
        {
            // one PutObject, no multipart: the whole 64 MiB is one request body (aws-chunked, with a checksum
            // trailer, as the SDK sends it over plain HTTP)
            client.putObject((r) -> r.bucket("logs").key("big/one.bin"),
                RequestBody.fromContentProvider(() -> seeded(size, 21), size, "application/octet-stream"));
        }
        finally
        {
            uploading.set(false);
            sampler.join();
        }
        assertTrue(peak.get() - baseline < 16L * MIB, "Netty's direct memory grew by " +
            (peak.get() - baseline) + " bytes while 64 MiB streamed through (baseline " + baseline + ")");
        final String expected = sha256(seeded(size, 21));
        assertEquals(expected, sha256(direct.getObject((r) -> r.bucket("logs").key("big/one.bin"))), "in the origin");
        assertEquals(size, client.headObject((r) -> r.bucket("logs").key("big/one.bin")).contentLength());
        assertEquals(expected, sha256(client.getObject((r) -> r.bucket("logs").key("big/one.bin"))),
            "through the cache");
    }

    @Test
    void aStreamedBodyThatMissesItsSignedHashWritesNothingAndWholeBodiesKeepTheirBound() throws Exception
    {
        final byte[] good = bytes(2 * MIB + 1, 22);
        final byte[] bad = good.clone();
        bad[bad.length - 1] ^= 1;
        // signed with the SHA-256 of the good body (2 MiB: over --max-body-kb, so only a stream takes it)
        final HttpResponse<String> refused = putSignedFor(good, bad, "/logs/hash/h.bin");
        assertEquals(400, refused.statusCode(), refused.body());
        assertTrue(refused.body().contains("<Code>XAmzContentSHA256Mismatch</Code>"), refused.body());
        assertThrows(NoSuchKeyException.class, () -> direct.headObject((r) -> r.bucket("logs").key("hash/h.bin")),
            "the origin's upload failed with the body: no object");
        final HttpResponse<String> taken = putSignedFor(good, good, "/logs/hash/h.bin");
        assertEquals(200, taken.statusCode(), taken.body());
        assertArrayEquals(good, get(direct, "logs", "hash/h.bin", null));
        // the streamed write warmed the SSD tier: every block is there, and a read costs no origin GET
        final ObjectName name = new ObjectName(program.cache().namespace(), "logs/hash/h.bin");
        final int blockSize = program.store().blockSize();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (long block = 0; block * blockSize < good.length; block++)
        {
            while (!program.store().ssd().contains(name, block))
            {
                assertTrue(System.nanoTime() < deadline, "block " + block + " was never warmed");
                Thread.sleep(10);
            }
        }
        final long gets = originGets();
        assertArrayEquals(good, get(client, "logs", "hash/h.bin", null));
        assertEquals(gets, originGets(), "served from the warmed tiers");
        // a directory bucket takes whole bodies, still bounded by --max-body-kb (1024 KiB by default)
        assertEquals("EntityTooLarge", S3ApiClientsTest.code(() -> client.putObject((r) -> r.bucket("local")
            .key("hash/h.bin"), RequestBody.fromBytes(good))));
        assertTrue(!Files.exists(localDir.resolve("hash/h.bin")));
    }

    /** A PUT signed for the SHA-256 of {@code signedFor} that sends {@code sent}. */
    private HttpResponse<String> putSignedFor(final byte[] signedFor, final byte[] sent, final String path)
        throws Exception
    {
        final SdkHttpRequest unsigned = SdkHttpRequest.builder().method(SdkHttpMethod.PUT)
            .uri(URI.create(endpoint + path)).putHeader("Content-Length", Integer.toString(signedFor.length))
            .build();
        final SdkHttpRequest signed = AwsV4HttpSigner.create().sign((r) -> r
            .identity(AwsCredentialsIdentity.create(ID, SECRET))
            .request(unsigned)
            .payload(ContentStreamProvider.fromByteArray(signedFor))
            .putProperty(AwsV4FamilyHttpSigner.SERVICE_SIGNING_NAME, "s3")
            .putProperty(AwsV4HttpSigner.REGION_NAME, "us-east-1")
            .putProperty(AwsV4FamilyHttpSigner.DOUBLE_URL_ENCODE, false)
            .putProperty(AwsV4FamilyHttpSigner.NORMALIZE_PATH, false)
            .putProperty(AwsV4FamilyHttpSigner.PAYLOAD_SIGNING_ENABLED, true)
            .putProperty(AwsV4FamilyHttpSigner.CHUNK_ENCODING_ENABLED, false)).request();
        final HttpRequest.Builder builder = HttpRequest.newBuilder(signed.getUri())
            .PUT(HttpRequest.BodyPublishers.ofByteArray(sent));
        signed.forEachHeader((name, values) ->
        {
            if (!name.equalsIgnoreCase("Host") && !name.equalsIgnoreCase("Content-Length"))
            {
                values.forEach((value) -> builder.header(name, value));
            }
        });
        return HttpClient.newHttpClient().send(builder.build(), HttpResponse.BodyHandlers.ofString());
    }

    // ---- the AWS CLI and boto3 -------------------------------------------------------------------------------

    /** The first command of the candidates that runs the probe, or a failure (a skip only when asked) naming why. */
    private static String requireTool(final String what, final List<String> candidates, final String... probe)
    {
        for (final String candidate : candidates)
        {
            final List<String> command = new ArrayList<>(List.of(candidate));
            command.addAll(List.of(probe));
            try
            {
                final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
                process.getInputStream().readAllBytes();
                if (process.waitFor(60, TimeUnit.SECONDS) && process.exitValue() == 0)
                {
                    return candidate;
                }
                process.destroyForcibly();
            }
            catch (final IOException ex)
            {
                // not installed under this name
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                fail("interrupted");
            }
        }
        final String message = what + " is not installed (tried " + candidates + "): apt-get install awscli " +
            "python3-boto3, as .ci/run does";
        Assumptions.assumeFalse(Boolean.getBoolean("offcache.test.s3ToolsOptional"),
            message + "; skipped because -Doffcache.test.s3ToolsOptional=true");
        return fail(message + " (or pass -Doffcache.test.s3ToolsOptional=true to skip this test on such a machine)");
    }

    /** Runs an outside S3 client with this server's keys and no user configuration; its output on success. */
    private String run(final List<String> command) throws Exception
    {
        final ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        final Map<String, String> env = builder.environment();
        env.keySet().removeIf((name) -> name.startsWith("AWS_"));
        env.putAll(Map.of("AWS_ACCESS_KEY_ID", ID, "AWS_SECRET_ACCESS_KEY", SECRET,
            "AWS_DEFAULT_REGION", "us-east-1", "AWS_CONFIG_FILE", scratch.resolve("no-aws-config").toString(),
            "AWS_SHARED_CREDENTIALS_FILE", scratch.resolve("no-aws-credentials").toString(),
            "AWS_EC2_METADATA_DISABLED", "true", "AWS_PAGER", ""));
        final Process process = builder.start();
        final String output;
        try (InputStream in = process.getInputStream())
        {
            output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), "finished: " + command);
        assertEquals(0, process.exitValue(), String.join(" ", command) + "\n" + output);
        return output;
    }

    @Test
    void theAwsCliReadsRangesAndCopiesFilesUpInParts() throws Exception
    {
        final String aws = requireTool("the AWS CLI", List.of("aws", "/usr/bin/aws"), "--version");
        final byte[] object = bytes(300_000, 12);
        direct.putObject((r) -> r.bucket("lake").key("cli/r.bin"), RequestBody.fromBytes(object));
        final Path ranged = scratch.resolve("cli-range.bin");
        final String answer = run(List.of(aws, "--endpoint-url", endpoint.toString(), "s3api", "get-object",
            "--bucket", "lake", "--key", "cli/r.bin", "--range", "bytes=1000-70999", ranged.toString()));
        assertArrayEquals(Arrays.copyOfRange(object, 1000, 71_000), Files.readAllBytes(ranged));
        assertTrue(answer.contains("bytes 1000-70999/300000"), answer);

        // above the CLI's multipart threshold (8 MiB): CreateMultipartUpload, UploadPart x2, Complete
        final long partsBefore = program.server().metrics().requests("s3_UploadPart", 200);
        final byte[] first = bytes(20 * MIB + 5, 13);
        final Path up = Files.write(scratch.resolve("cli-up.bin"), first);
        run(List.of(aws, "--endpoint-url", endpoint.toString(), "s3", "cp", up.toString(), "s3://logs/cli/up.bin"));
        assertTrue(program.server().metrics().requests("s3_UploadPart", 200) - partsBefore >= 2, "in parts");
        assertArrayEquals(first, get(client, "logs", "cli/up.bin", null));
        final byte[] second = bytes(first.length, 14);
        Files.write(up, second);
        run(List.of(aws, "--endpoint-url", endpoint.toString(), "s3", "cp", up.toString(), "s3://logs/cli/up.bin"));
        assertArrayEquals(second, get(direct, "logs", "cli/up.bin", null), "in the origin");
        final Path down = scratch.resolve("cli-down.bin");
        run(List.of(aws, "--endpoint-url", endpoint.toString(), "s3", "cp", "s3://logs/cli/up.bin", down.toString()));
        assertArrayEquals(second, Files.readAllBytes(down), "the overwrite, read back through the cache");
    }

    @Test
    void boto3ReadsRangesHeadsListingsAndPresignedUrls() throws Exception
    {
        final String python = requireTool("boto3", List.of("python3", "/usr/bin/python3"), "-c", "import boto3");
        final byte[] object = bytes(300_000, 15);
        direct.putObject((r) -> r.bucket("logs").key("py/o.bin"), RequestBody.fromBytes(object));
        final Path script = scratch.resolve("boto3_reads.py");
        try (InputStream in = getClass().getResourceAsStream("boto3_reads.py"))
        {
            Files.copy(in, script);
        }
        final Path out = Files.createDirectories(scratch.resolve("boto3"));
        final String output = run(List.of(python, script.toString(), endpoint.toString(), "logs", "py/o.bin",
            "12345", "99999", out.toString()));
        final byte[] range = Arrays.copyOfRange(object, 12_345, 100_000);
        assertArrayEquals(range, Files.readAllBytes(out.resolve("range.bin")), output);
        assertArrayEquals(range, Files.readAllBytes(out.resolve("presigned.bin")), output);
        final String etag = client.headObject((r) -> r.bucket("logs").key("py/o.bin")).eTag();
        final List<String> lines = output.lines().toList();
        assertTrue(lines.contains("content-range=bytes 12345-99999/300000"), output);
        assertTrue(lines.contains("length=300000"), output);
        assertTrue(lines.contains("etag=" + etag), output);
        assertTrue(lines.contains("listed=py/o.bin 300000"), output);
        assertTrue(lines.contains("presigned-status=206"), output);
    }
}
