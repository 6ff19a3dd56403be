package dev.offcache.server.s3;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.offcache.range.metrics.MetricNames;
import dev.offcache.server.cli.OffcacheServerCommand;
import dev.offcache.server.cli.ServerProgram;
import dev.offcache.testkit.s3.OriginCounters;
import dev.offcache.testkit.s3.S3ProxyServer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import picocli.CommandLine;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The real {@code offcache-server} program (from its flags) with its S3 API on 127.0.0.1, read by clients no one here
 * wrote: the AWS SDK v2 {@link S3Client} (Apache HttpClient 5), {@link S3AsyncClient} (Netty) and presigner over a
 * local-directory origin (ranged GETs, HEAD, listings, {@code HeadBucket}, presigned and conditional GETs, pass-through
 * writes), and Hadoop S3A with parquet-mr reading a Parquet file from an S3 origin (S3Proxy) through a RAM tier smaller
 * than the file, so the warm read comes from RAM and SSD. Every wrong signing and bad request gets S3's code and the
 * server keeps serving. Bytes are compared with the origin's; origin requests are counted by the engine or S3Proxy.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class S3ApiClientsTest
{
    static final String ID = "OCTESTCLIENTS000001";
    static final String SECRET = "clients/secret+0123456789abcdefghijklmnop";
    static final String BUCKET = "lake";

    private Path origin;
    private Path ssd;
    private ServerProgram program;
    private URI endpoint;
    private S3Client client;
    private S3AsyncClient async;
    private byte[] big;
    private byte[] cold;

    @BeforeAll
    void start() throws Exception
    {
        origin = Files.createTempDirectory("offcache-s3-origin");
        big = new byte[5 * 1024 * 1024 + 123];
        new Random(7).nextBytes(big);
        Files.createDirectories(origin.resolve("data/part"));
        Files.write(origin.resolve("data/big.bin"), big);
        Files.writeString(origin.resolve("data/part/a.txt"), "a");
        Files.writeString(origin.resolve("data/part/b.txt"), "bb");
        Files.write(origin.resolve("data/empty"), new byte[0]);
        Files.writeString(origin.resolve("data/z.txt"), "zzz");
        cold = new byte[9 * 1024 * 1024 + 5];
        new Random(5).nextBytes(cold);
        Files.createDirectories(origin.resolve("cold"));
        Files.write(origin.resolve("cold/nine.bin"), cold);
        ssd = Files.createTempDirectory("offcache-s3-ssd");
        program = startProgram(origin, ssd, "64");
        endpoint = URI.create("http://127.0.0.1:" + program.server().s3Address().getPort());
        client = S3Client.builder()
            .endpointOverride(endpoint)
            .region(Region.US_EAST_1)
            .forcePathStyle(true)
            .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ID, SECRET)))
            .httpClientBuilder(Apache5HttpClient.builder())
            .build();
        async = S3AsyncClient.builder()
            .endpointOverride(endpoint)
            .region(Region.EU_WEST_3)
            .forcePathStyle(true)
            .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ID, SECRET)))
            .httpClientBuilder(NettyNioAsyncHttpClient.builder())
            .build();
    }

    /** The program from its flags, as an operator starts it, its origin a local directory; RAM in MiB. */
    static ServerProgram startProgram(final Path originDir, final Path ssd, final String ramMb) throws Exception
    {
        return startProgram(List.of("--origin-dir", originDir.toString(), "--s3-api-bucket", BUCKET), ssd, ramMb);
    }

    /** The program from its flags over the given origin flags; RAM in MiB, 64 KiB blocks. */
    static ServerProgram startProgram(final List<String> originFlags, final Path ssd, final String ramMb,
        final String... more) throws Exception
    {
        final List<String> args = new ArrayList<>(originFlags);
        args.addAll(List.of(more));
        args.addAll(List.of("--disk-path", ssd.toString(), "--listen", "127.0.0.1:0", "--s3-api-listen",
            "127.0.0.1:0", "--block-size-kb", "64", "--ram-mb", ramMb, "--memory-budget-mb", "16",
            "--io-threads", "2"));
        final CommandLine commandLine = OffcacheServerCommand.commandLine(java.util.Map.of(
            "OFFCACHE_API_KEYS", "bearer-key-0123456789", "OFFCACHE_S3_API_KEYS", ID + ":" + SECRET));
        commandLine.setOut(new PrintWriter(new StringWriter(), true));
        commandLine.parseArgs(args.toArray(new String[0]));
        return commandLine.<OffcacheServerCommand>getCommand().start();
    }

    @AfterAll
    void stop() throws Exception
    {
        client.close();
        async.close();
        program.close();
        deleteTree(origin);
        deleteTree(ssd);
    }

    private long originGets()
    {
        return program.cache().metrics().value(MetricNames.ORIGIN_GETS + MetricNames.DEMAND) +
            program.cache().metrics().value(MetricNames.ORIGIN_GETS + MetricNames.PREFETCH);
    }

    private long originBytes()
    {
        return program.cache().metrics().value(MetricNames.ORIGIN_BYTES + MetricNames.DEMAND) +
            program.cache().metrics().value(MetricNames.ORIGIN_BYTES + MetricNames.PREFETCH);
    }

    private byte[] get(final String key, final String range)
    {
        return client.getObject((r) -> r.bucket(BUCKET).key(key).range(range), ResponseTransformer.toBytes())
            .asByteArray();
    }

    @Test
    void theSyncClientReadsRangesHeadsAndWholeObjectsExactly()
    {
        final Random random = new Random(11);
        for (int i = 0; i < 30; i++)
        {
            final int start = random.nextInt(big.length);
            final int end = Math.min(big.length - 1, start + random.nextInt(300_000));
            assertArrayEquals(Arrays.copyOfRange(big, start, end + 1), get("data/big.bin",
                "bytes=" + start + "-" + end), start + "-" + end);
        }
        assertArrayEquals(Arrays.copyOfRange(big, big.length - 1000, big.length), get("data/big.bin",
            "bytes=-1000"));
        assertArrayEquals(Arrays.copyOfRange(big, 5_000_000, big.length), get("data/big.bin", "bytes=5000000-"));
        final ResponseBytes<GetObjectResponse> whole = client.getObject((r) -> r.bucket(BUCKET).key("data/big.bin"),
            ResponseTransformer.toBytes());
        assertArrayEquals(big, whole.asByteArray());
        final HeadObjectResponse head = client.headObject((r) -> r.bucket(BUCKET).key("data/big.bin"));
        assertEquals(big.length, head.contentLength());
        assertEquals(whole.response().eTag(), head.eTag(), "one tag per version, GET and HEAD alike");
        assertNotNull(head.lastModified());
        assertEquals(0, client.getObject((r) -> r.bucket(BUCKET).key("data/empty"), ResponseTransformer.toBytes())
            .asByteArray().length);

        final long gets = originGets();
        assertArrayEquals(big, client.getObject((r) -> r.bucket(BUCKET).key("data/big.bin"),
            ResponseTransformer.toBytes()).asByteArray());
        assertEquals(gets, originGets(), "read again: every block from the cache, no origin GET");
    }

    @Test
    void coldReadsCostOneOriginGetPerContiguousRunOfAtMost8MiB()
    {
        // 145 blocks of 64 KiB; 8 MiB is 128 blocks
        final long gets = originGets();
        final long bytes = originBytes();
        assertArrayEquals(Arrays.copyOfRange(cold, 10 * 65536, 12 * 65536), get("cold/nine.bin",
            "bytes=" + 10 * 65536 + "-" + (12 * 65536 - 1)));
        assertEquals(gets + 1, originGets(), "two cold blocks: one GET");
        // the whole object around those two cached blocks: runs 0-9 (one GET) and 12-144 (128 + 5 blocks: two)
        assertArrayEquals(cold, client.getObject((r) -> r.bucket(BUCKET).key("cold/nine.bin"),
            ResponseTransformer.toBytes()).asByteArray());
        assertEquals(gets + 4, originGets(), "one GET per run, runs cut at the cached blocks and at 8 MiB");
        assertEquals(bytes + cold.length, originBytes(), "every byte fetched once");
    }

    @Test
    void theAsyncClientReadsConcurrentRangesExactly() throws Exception
    {
        final List<CompletableFuture<ResponseBytes<GetObjectResponse>>> reads = new ArrayList<>();
        final List<int[]> ranges = new ArrayList<>();
        final Random random = new Random(13);
        for (int i = 0; i < 16; i++)
        {
            final int start = random.nextInt(big.length - 1);
            final int end = Math.min(big.length - 1, start + 1 + random.nextInt(1 << 20));
            ranges.add(new int[] {start, end});
            reads.add(async.getObject((r) -> r.bucket(BUCKET).key("data/big.bin").range("bytes=" + start + "-" + end),
                AsyncResponseTransformer.toBytes()));
        }
        for (int i = 0; i < reads.size(); i++)
        {
            assertArrayEquals(Arrays.copyOfRange(big, ranges.get(i)[0], ranges.get(i)[1] + 1),
                reads.get(i).get(60, TimeUnit.SECONDS).asByteArray());
        }
        assertEquals(big.length, async.headObject((r) -> r.bucket(BUCKET).key("data/big.bin"))
            .get(30, TimeUnit.SECONDS).contentLength());
        final ListObjectsV2Response listing = async.listObjectsV2((r) -> r.bucket(BUCKET).prefix("data/part/"))
            .get(30, TimeUnit.SECONDS);
        assertEquals(List.of("data/part/a.txt", "data/part/b.txt"), keys(listing.contents()));
    }

    @Test
    void listingsPageAndGroupAndBucketCallsAnswer()
    {
        final List<String> seen = new ArrayList<>();
        final List<String> prefixes = new ArrayList<>();
        int pages = 0;
        for (final ListObjectsV2Response page : client.listObjectsV2Paginator((r) -> r.bucket(BUCKET).prefix("data/")
            .delimiter("/").maxKeys(2)))
        {
            pages++;
            seen.addAll(keys(page.contents()));
            for (final CommonPrefix prefix : page.commonPrefixes())
            {
                prefixes.add(prefix.prefix());
            }
            for (final S3Object object : page.contents())
            {
                assertEquals(client.headObject((r) -> r.bucket(BUCKET).key(object.key())).eTag(), object.eTag());
            }
        }
        assertEquals(List.of("data/big.bin", "data/empty", "data/z.txt"), seen);
        assertEquals(List.of("data/part/"), prefixes);
        assertEquals(2, pages, "4 entries, 2 per page");
        assertEquals(6, client.listObjectsV2((r) -> r.bucket(BUCKET)).keyCount());
        assertEquals(6, client.listObjects((r) -> r.bucket(BUCKET)).contents().size(), "version 1 too");
        client.headBucket((r) -> r.bucket(BUCKET));
        assertThrows(NoSuchBucketException.class, () -> client.headBucket((r) -> r.bucket("nope")));
        assertEquals(List.of(BUCKET), client.listBuckets().buckets().stream().map((b) -> b.name()).toList());
    }

    @Test
    void presignedAndConditionalGetsAreAnsweredAsS3AnswersThem() throws Exception
    {
        try (S3Presigner presigner = S3Presigner.builder().endpointOverride(endpoint).region(Region.US_EAST_1)
            .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ID, SECRET)))
            .serviceConfiguration(software.amazon.awssdk.services.s3.S3Configuration.builder()
                .pathStyleAccessEnabled(true).build())
            .build())
        {
            final URI url = URI.create(presigner.presignGetObject((r) -> r.signatureDuration(Duration.ofMinutes(5))
                .getObjectRequest((g) -> g.bucket(BUCKET).key("data/big.bin"))).url().toString());
            final HttpResponse<byte[]> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(url)
                .header("Range", "bytes=10-19").build(), HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(206, response.statusCode());
            assertArrayEquals(Arrays.copyOfRange(big, 10, 20), response.body());
        }
        final String etag = client.headObject((r) -> r.bucket(BUCKET).key("data/z.txt")).eTag();
        final S3Exception notModified = assertThrows(S3Exception.class, () -> client.getObject((r) -> r.bucket(BUCKET)
            .key("data/z.txt").ifNoneMatch(etag), ResponseTransformer.toBytes()));
        assertEquals(304, notModified.statusCode());
        final S3Exception failed = assertThrows(S3Exception.class, () -> client.getObject((r) -> r.bucket(BUCKET)
            .key("data/z.txt").ifMatch("\"not-it\""), ResponseTransformer.toBytes()));
        assertEquals(412, failed.statusCode());
        assertEquals("PreconditionFailed", failed.awsErrorDetails().errorCode());
        assertEquals("zzz", new String(client.getObject((r) -> r.bucket(BUCKET).key("data/z.txt").ifMatch(etag),
            ResponseTransformer.toBytes()).asByteArray(), StandardCharsets.US_ASCII));
        final GetObjectResponse overridden = client.getObject((r) -> r.bucket(BUCKET).key("data/z.txt")
            .responseContentType("text/plain").responseContentDisposition("attachment; filename=z.txt"),
            ResponseTransformer.toBytes()).response();
        assertEquals("text/plain", overridden.contentType());
        assertEquals("attachment; filename=z.txt", overridden.contentDisposition());
    }

    @Test
    void everyBadRequestGetsItsS3CodeAndTheServerKeepsServing() throws Exception
    {
        assertEquals("SignatureDoesNotMatch", code(() -> withKeys(ID, "wrong-secret-0123456789").getObject((r) ->
            r.bucket(BUCKET).key("data/z.txt"), ResponseTransformer.toBytes())));
        assertEquals(403, assertThrows(S3Exception.class, () -> withKeys(ID, "wrong-secret-0123456789")
            .headObject((r) -> r.bucket(BUCKET).key("data/z.txt"))).statusCode(), "a HEAD's error has no body");
        assertEquals("InvalidAccessKeyId", code(() -> withKeys("NOBODY0000000000", SECRET).getObject((r) ->
            r.bucket(BUCKET).key("data/z.txt"), ResponseTransformer.toBytes())));
        assertEquals(NoSuchKeyException.class, assertThrows(S3Exception.class, () -> client.getObject((r) ->
            r.bucket(BUCKET).key("data/none"), ResponseTransformer.toBytes())).getClass());
        assertEquals(NoSuchBucketException.class, assertThrows(S3Exception.class, () -> client.getObject((r) ->
            r.bucket("other-bucket").key("data/z.txt"), ResponseTransformer.toBytes())).getClass());
        assertEquals("InvalidRange", code(() -> client.getObject((r) -> r.bucket(BUCKET).key("data/z.txt")
            .range("bytes=10-20"), ResponseTransformer.toBytes())));
        assertEquals("AccessDenied", code(() -> client.putObject((r) -> r.bucket(BUCKET).key("data/new"),
            RequestBody.fromString("new"))));
        assertEquals("AccessDenied", code(() -> client.deleteObject((r) -> r.bucket(BUCKET).key("data/z.txt"))));
        assertEquals("AccessDenied", code(() -> client.createMultipartUpload((r) -> r.bucket(BUCKET)
            .key("data/multi"))));
        assertEquals("AccessDenied", code(() -> client.uploadPart((r) -> r.bucket(BUCKET).key("data/multi")
            .uploadId("u1").partNumber(1), RequestBody.fromString("part"))));
        assertEquals("AccessDenied", code(() -> client.listParts((r) -> r.bucket(BUCKET).key("data/multi")
            .uploadId("u1"))));
        assertEquals("AccessDenied", code(() -> client.completeMultipartUpload((r) -> r.bucket(BUCKET)
            .key("data/multi").uploadId("u1")
            .multipartUpload((m) -> m.parts(CompletedPart.builder().partNumber(1).eTag("\"e\"").build())))));
        assertEquals("AccessDenied", code(() -> client.abortMultipartUpload((r) -> r.bucket(BUCKET)
            .key("data/multi").uploadId("u1"))));
        assertEquals("InvalidArgument", code(() -> client.getObject((r) -> r.bucket(BUCKET).key("data/../etc"),
            ResponseTransformer.toBytes())));
        assertTrue(Files.exists(origin.resolve("data/z.txt")) && !Files.exists(origin.resolve("data/new")));

        // the SDK's own signer, at a time or with a header the server must refuse
        final Instant now = Instant.now();
        assertEquals("RequestTimeTooSkewed", codeOf(send(signed("/" + BUCKET + "/data/z.txt", now.minusSeconds(
            16 * 60), false, "bytes=0-1"), "bytes=0-1")));
        assertEquals("AccessDenied", codeOf(send(signed("/" + BUCKET + "/data/z.txt", now.minusSeconds(10 * 60),
            true, null), null)), "a presigned URL signed 10 minutes ago for 60 seconds has expired");
        assertEquals("SignatureDoesNotMatch", codeOf(send(signed("/" + BUCKET + "/data/z.txt", now, false,
            "bytes=0-1"), "bytes=0-2")), "a signed Range changed on the way");
        final HttpResponse<String> fine = send(signed("/" + BUCKET + "/data/z.txt", now, false, "bytes=0-1"),
            "bytes=0-1");
        assertEquals(206, fine.statusCode(), fine.body());
        assertEquals("zz", fine.body());

        assertArrayEquals(Arrays.copyOfRange(big, 0, 100), get("data/big.bin", "bytes=0-99"), "still serving");
        assertTrue(program.server().metrics().s3Errors("SignatureDoesNotMatch") >= 2);
        assertTrue(program.server().metrics().requests("s3_GetObject", 206) > 0);
    }

    @Test
    void withAuthDisabledUnsignedAndWronglySignedRequestsAreServed() throws Exception
    {
        final Path ssdDir = Files.createTempDirectory("offcache-s3-open");
        final CommandLine commandLine = OffcacheServerCommand.commandLine(java.util.Map.of());
        commandLine.setOut(new PrintWriter(new StringWriter(), true));
        commandLine.parseArgs("--origin-dir", origin.toString(), "--disk-path", ssdDir.toString(), "--listen",
            "127.0.0.1:0", "--s3-api-listen", "127.0.0.1:0", "--s3-api-bucket", BUCKET, "--disable-auth",
            "--ram-mb", "4", "--memory-budget-mb", "16", "--io-threads", "1");
        try (ServerProgram open = commandLine.<OffcacheServerCommand>getCommand().start();
            S3Client anyKey = S3Client.builder()
                .endpointOverride(URI.create("http://127.0.0.1:" + open.server().s3Address().getPort()))
                .region(Region.US_EAST_1).forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("ANYONE", "any")))
                .httpClientBuilder(Apache5HttpClient.builder()).build())
        {
            final HttpResponse<String> unsigned = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                "http://127.0.0.1:" + open.server().s3Address().getPort() + "/" + BUCKET + "/data/z.txt"))
                .header("Range", "bytes=1-2").build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(206, unsigned.statusCode(), unsigned.body());
            assertEquals("zz", unsigned.body());
            assertEquals("zzz", anyKey.getObject((r) -> r.bucket(BUCKET).key("data/z.txt"),
                ResponseTransformer.toBytes()).asUtf8String(), "any signature is accepted");
            assertEquals("NoSuchKey", code(() -> anyKey.getObject((r) -> r.bucket(BUCKET).key("data/none"),
                ResponseTransformer.toBytes())), "the rest of the API is unchanged");
        }
        finally
        {
            deleteTree(ssdDir);
        }
    }

    @Test
    void passThroughWritesReachTheOriginAndNoOldByteIsServedAfterThem() throws Exception
    {
        final Path scratch = Files.createTempDirectory("offcache-s3-writes");
        try
        {
            final Path dir = Files.createDirectories(scratch.resolve("origin"));
            final byte[] old = new byte[200_000];
            new Random(3).nextBytes(old);
            Files.write(dir.resolve("w.bin"), old);
            try (ServerProgram writable = startProgram(List.of("--origin-dir", dir.toString(), "--s3-api-bucket",
                BUCKET), scratch.resolve("ssd"), "4", "--s3-api-writes", "PASS_THROUGH");
                S3Client writer = S3Client.builder()
                    .endpointOverride(URI.create("http://127.0.0.1:" + writable.server().s3Address().getPort()))
                    .region(Region.US_EAST_1).forcePathStyle(true)
                    .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ID, SECRET)))
                    .httpClientBuilder(Apache5HttpClient.builder()).build())
            {
                final ResponseBytes<GetObjectResponse> before = writer.getObject((r) -> r.bucket(BUCKET).key("w.bin"),
                    ResponseTransformer.toBytes());
                assertArrayEquals(old, before.asByteArray(), "cached before the write");
                // the same size, other bytes: only forgetting the cached blocks keeps the old ones from being served
                final byte[] same = new byte[old.length];
                new Random(4).nextBytes(same);
                writer.putObject((r) -> r.bucket(BUCKET).key("w.bin"), RequestBody.fromBytes(same));
                assertArrayEquals(same, Files.readAllBytes(dir.resolve("w.bin")), "written to the origin");
                final ResponseBytes<GetObjectResponse> after = writer.getObject((r) -> r.bucket(BUCKET).key("w.bin"),
                    ResponseTransformer.toBytes());
                assertArrayEquals(same, after.asByteArray());
                assertTrue(!before.response().eTag().equals(after.response().eTag()), "a new version, a new tag");
                assertArrayEquals(Arrays.copyOfRange(same, 70_000, 140_000), writer.getObject((r) -> r.bucket(BUCKET)
                    .key("w.bin").range("bytes=70000-139999"), ResponseTransformer.toBytes()).asByteArray());
                writer.putObject((r) -> r.bucket(BUCKET).key("w.bin"), RequestBody.fromString("short"));
                assertEquals("short", writer.getObject((r) -> r.bucket(BUCKET).key("w.bin"),
                    ResponseTransformer.toBytes()).asUtf8String());
                writer.deleteObject((r) -> r.bucket(BUCKET).key("w.bin"));
                assertTrue(!Files.exists(dir.resolve("w.bin")));
                assertThrows(NoSuchKeyException.class, () -> writer.getObject((r) -> r.bucket(BUCKET).key("w.bin"),
                    ResponseTransformer.toBytes()));
            }
        }
        finally
        {
            deleteTree(scratch);
        }
    }

    @Test
    void s3aReadsAParquetFileFromAnS3OriginOutOfRamAndSsd() throws Exception
    {
        final String bucket = "warehouse";
        final Path scratch = Files.createTempDirectory("offcache-s3a");
        try (S3ProxyServer proxy = S3ProxyServer.start(bucket))
        {
            // 150 000 rows of random values in several row groups (2.4 MiB): more 64 KiB blocks than the RAM tier holds
            final Path local = scratch.resolve("t.parquet");
            final MessageType schema = MessageTypeParser.parseMessageType(
                "message t { required int64 id; required double value; required binary city (UTF8); }");
            final SimpleGroupFactory groups = new SimpleGroupFactory(schema);
            final Random random = new Random(17);
            final double[] values = new double[150_000];
            try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(new LocalOutputFile(local))
                .withType(schema).withRowGroupSize(256L * 1024).withPageSize(32 * 1024).build())
            {
                for (int i = 0; i < values.length; i++)
                {
                    values[i] = random.nextDouble();
                    writer.write(groups.newGroup().append("id", (long) i).append("value", values[i])
                        .append("city", "city-" + (i % 23)));
                }
            }
            final byte[] file = Files.readAllBytes(local);
            try (S3Client upload = S3Client.builder().endpointOverride(proxy.endpoint()).region(Region.US_EAST_1)
                .forcePathStyle(true).credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(
                    S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY)))
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .httpClientBuilder(Apache5HttpClient.builder()).build())
            {
                upload.putObject((r) -> r.bucket(bucket).key("tables/t/part-0.parquet"), RequestBody.fromBytes(file));
            }

            // a RAM tier of 16 blocks: a second read finds much of the file on SSD, spilled there from RAM
            try (ServerProgram s3Origin = startProgram(List.of("--s3-endpoint", proxy.endpoint().toString(),
                "--s3-bucket", bucket, "--s3-access-key", S3ProxyServer.ACCESS_KEY, "--s3-secret-key",
                S3ProxyServer.SECRET_KEY), scratch.resolve("ssd"), "1"))
            {
                // S3A as set up for S3Proxy, then pointed at the server's S3 API with its keys: only the endpoint
                // and the keys change
                final Configuration conf = new Configuration();
                proxy.s3aSettings().forEach(conf::set);
                conf.set("fs.s3a.endpoint", "http://127.0.0.1:" + s3Origin.server().s3Address().getPort());
                conf.set("fs.s3a.access.key", ID);
                conf.set("fs.s3a.secret.key", SECRET);
                conf.set("fs.s3a.impl.disable.cache", "true");
                final org.apache.hadoop.fs.Path path =
                    new org.apache.hadoop.fs.Path("s3a://" + bucket + "/tables/t/part-0.parquet");
                try (FileSystem fs = FileSystem.get(URI.create("s3a://" + bucket + "/"), conf))
                {
                    final FileStatus[] listed = fs.listStatus(new org.apache.hadoop.fs.Path("s3a://" + bucket +
                        "/tables/t/"));
                    assertEquals(1, listed.length, "a listing through the server, from the origin");
                    assertEquals(file.length, listed[0].getLen());
                    final OriginCounters atOrigin = proxy.counters();
                    for (int round = 0; round < 2; round++)
                    {
                        if (1 == round)
                        {
                            // blocks evicted from RAM are written to SSD behind the reads: wait for the first
                            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                            while (0 == s3Origin.store().metrics().ssdWrites() && System.nanoTime() < deadline)
                            {
                                Thread.onSpinWait();
                            }
                        }
                        atOrigin.reset();
                        final long ram = s3Origin.store().metrics().ramHits();
                        final long ssd = s3Origin.store().metrics().ssdHits();
                        assertEquals(values.length, scan(HadoopInputFile.fromPath(path, conf), values), "rows");
                        final byte[] raw = new byte[file.length];
                        try (FSDataInputStream in = fs.open(path))
                        {
                            in.readFully(0, raw);
                        }
                        assertArrayEquals(file, raw, "round " + round);
                        if (0 == round)
                        {
                            assertTrue(atOrigin.gets() > 0, "cold: " + atOrigin);
                            assertTrue(atOrigin.bytes() >= file.length, "cold: each byte from the origin " + atOrigin);
                        }
                        else
                        {
                            assertEquals(0, atOrigin.gets() + atOrigin.heads(), "warm: nothing at the origin " +
                                atOrigin);
                            assertTrue(s3Origin.store().metrics().ssdHits() > ssd, "warm: blocks from SSD");
                            assertTrue(s3Origin.store().metrics().ramHits() > ram, "warm: blocks from RAM");
                        }
                    }
                }
            }
        }
        finally
        {
            deleteTree(scratch);
        }
    }

    /** Reads every row through parquet-mr (footer, vectored column chunks) and checks its values; the row count. */
    private static long scan(final InputFile file, final double[] values) throws Exception
    {
        long rows = 0;
        try (ParquetFileReader reader = ParquetFileReader.open(file))
        {
            final MessageType schema = reader.getFooter().getFileMetaData().getSchema();
            PageReadStore pages;
            while (null != (pages = reader.readNextRowGroup()))
            {
                final RecordReader<Group> records = new ColumnIOFactory().getColumnIO(schema)
                    .getRecordReader(pages, new GroupRecordConverter(schema));
                for (long i = 0; i < pages.getRowCount(); i++)
                {
                    final Group row = records.read();
                    final int id = (int) row.getLong("id", 0);
                    assertEquals(rows, id);
                    assertEquals(values[id], row.getDouble("value", 0));
                    assertEquals("city-" + (id % 23), row.getString("city", 0));
                    rows++;
                }
            }
        }
        return rows;
    }

    static void deleteTree(final Path root) throws java.io.IOException
    {
        if (!Files.exists(root))
        {
            return;
        }
        try (java.util.stream.Stream<Path> paths = Files.walk(root))
        {
            for (final Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList())
            {
                Files.delete(path);
            }
        }
    }

    private SdkHttpRequest signed(final String path, final Instant at, final boolean presigned, final String range)
    {
        SdkHttpRequest.Builder request = SdkHttpRequest.builder().method(SdkHttpMethod.GET)
            .uri(URI.create(endpoint + path));
        if (null != range)
        {
            request = request.putHeader("Range", range);
        }
        final SdkHttpRequest unsigned = request.build();
        final SignedRequest signed = AwsV4HttpSigner.create().sign((r) -> r
            .identity(AwsCredentialsIdentity.create(ID, SECRET))
            .request(unsigned)
            .putProperty(AwsV4FamilyHttpSigner.SERVICE_SIGNING_NAME, "s3")
            .putProperty(AwsV4HttpSigner.REGION_NAME, "us-east-1")
            .putProperty(AwsV4FamilyHttpSigner.DOUBLE_URL_ENCODE, false)
            .putProperty(AwsV4FamilyHttpSigner.NORMALIZE_PATH, false)
            .putProperty(AwsV4FamilyHttpSigner.PAYLOAD_SIGNING_ENABLED, false)
            .putProperty(AwsV4FamilyHttpSigner.AUTH_LOCATION, presigned ?
                AwsV4FamilyHttpSigner.AuthLocation.QUERY_STRING : AwsV4FamilyHttpSigner.AuthLocation.HEADER)
            .putProperty(AwsV4FamilyHttpSigner.EXPIRATION_DURATION, presigned ? Duration.ofSeconds(60) : null)
            .putProperty(HttpSigner.SIGNING_CLOCK, Clock.fixed(at, ZoneOffset.UTC)));
        return signed.request();
    }

    private static HttpResponse<String> send(final SdkHttpRequest request, final String range) throws Exception
    {
        final HttpRequest.Builder builder = HttpRequest.newBuilder(request.getUri());
        request.forEachHeader((name, values) ->
        {
            if (!name.equalsIgnoreCase("Host") && !name.equalsIgnoreCase("Range"))
            {
                values.forEach((value) -> builder.header(name, value));
            }
        });
        if (null != range)
        {
            builder.header("Range", range);
        }
        return HttpClient.newHttpClient().send(builder.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String codeOf(final HttpResponse<String> response)
    {
        final String body = response.body();
        final int at = body.indexOf("<Code>");
        return at < 0 ? "status " + response.statusCode() : body.substring(at + 6, body.indexOf("</Code>"));
    }

    private S3Client withKeys(final String id, final String secret)
    {
        return S3Client.builder().endpointOverride(endpoint).region(Region.US_EAST_1).forcePathStyle(true)
            .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(id, secret)))
            .httpClientBuilder(Apache5HttpClient.builder()).build();
    }

    static String code(final org.junit.jupiter.api.function.Executable call)
    {
        return assertThrows(S3Exception.class, call).awsErrorDetails().errorCode();
    }

    private static List<String> keys(final List<S3Object> objects)
    {
        return objects.stream().map(S3Object::key).toList();
    }
}
