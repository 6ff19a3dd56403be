package dev.offcache.benchmarks.s3;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import picocli.CommandLine;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

import dev.offcache.benchmarks.BenchmarkFiles;
import dev.offcache.benchmarks.RangeWalk;
import dev.offcache.server.cli.OffcacheServerCommand;
import dev.offcache.server.cli.ServerProgram;
import dev.offcache.testkit.s3.S3ProxyServer;

/**
 * A warm ranged GET with the AWS SDK for Java v2 ({@link S3Client} on Apache HttpClient 5, one connection reused)
 * through the L2 server's S3 endpoint (SigV4 signed by the SDK, verified by the server; served from the RAM tier),
 * beside the same SDK read straight from S3Proxy (in-memory blob store: what the client pays without the cache, the
 * store being as fast as memory), and beside the same bytes from the server's {@code /obj} API through the same
 * HTTP client library with a bearer key (no SDK pipeline, no signing, no S3 parsing: the cost of speaking S3).
 * {@code -p impl=offcache-unsigned} adds the S3 endpoint with {@code --disable-auth} and an anonymous SDK: the
 * signature's share alone. Everything runs in this JVM on 127.0.0.1; the body is read into one reused array.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class S3ApiReadBenchmark
{
    private static final String BUCKET = "bench";
    private static final String KEY = "s3/object.bin";
    private static final int OBJECT_BYTES = 8 * 1024 * 1024;
    private static final String ACCESS_KEY = "OCBENCHMARK0001";
    private static final String SECRET_KEY = "bench-secret-0123456789abcdef";
    private static final String BEARER = "bench-key-0123456789";

    /** Who answers: {@code offcache} (the S3 endpoint), {@code s3proxy}, {@code obj}, {@code offcache-unsigned}. */
    @Param({"offcache", "s3proxy", "obj"})
    public String impl;

    /** Bytes per ranged GET. */
    @Param({"65536", "1048576"})
    public int rangeBytes;

    private Path dir;
    private ServerProgram program;
    private S3ProxyServer proxy;
    private S3Client sdk;
    private CloseableHttpClient http;
    private URI objUri;
    private byte[] body;
    private long offset;

    /**
     * Starts what {@link #impl} reads from, and warms the server's RAM tier with the whole object.
     *
     * @throws Exception if a server cannot start.
     */
    @Setup(Level.Trial)
    public void setUp() throws Exception
    {
        dir = Files.createTempDirectory("offcache-s3bench");
        final byte[] bytes = new byte[OBJECT_BYTES];
        new Random(1).nextBytes(bytes);
        body = new byte[rangeBytes];
        if ("s3proxy".equals(impl))
        {
            proxy = S3ProxyServer.start(BUCKET);
            sdk = client(URI.create(proxy.endpoint().toString()), StaticCredentialsProvider.create(
                AwsBasicCredentials.create(S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY)));
            sdk.putObject((r) -> r.bucket(BUCKET).key(KEY), RequestBody.fromBytes(bytes));
        }
        else
        {
            final boolean unsigned = "offcache-unsigned".equals(impl);
            Files.createDirectories(dir.resolve("origin/s3"));
            Files.write(dir.resolve("origin").resolve(KEY), bytes);
            program = startServer(unsigned);
            sdk = client(URI.create("http://127.0.0.1:" + program.server().s3Address().getPort()), unsigned ?
                AnonymousCredentialsProvider.create() : StaticCredentialsProvider.create(
                AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)));
            http = HttpClients.createDefault();
            objUri = URI.create("http://127.0.0.1:" + program.server().address().getPort() + "/obj/" + KEY);
        }
        for (long at = 0; at + rangeBytes <= OBJECT_BYTES; at += rangeBytes)
        {
            sdkRead(at);
        }
        if (null != program)
        {
            final long gets = program.cache().stats().originGetCount();
            for (long at = 0; at + rangeBytes <= OBJECT_BYTES; at += rangeBytes)
            {
                sdkRead(at);
            }
            if (program.cache().stats().originGetCount() != gets)
            {
                throw new IllegalStateException("the object is not warm in the server's RAM tier");
            }
        }
    }

    private ServerProgram startServer(final boolean unsigned) throws Exception
    {
        final List<String> args = new ArrayList<>(List.of("--origin-dir", dir.resolve("origin").toString(),
            "--s3-api-bucket", BUCKET, "--disk-path", dir.resolve("ssd").toString(), "--listen", "127.0.0.1:0",
            "--s3-api-listen", "127.0.0.1:0", "--ram-mb", "64", "--io-threads", "1"));
        if (unsigned)
        {
            args.add("--disable-auth");
        }
        final CommandLine command = OffcacheServerCommand.commandLine(Map.of("OFFCACHE_API_KEYS", BEARER,
            "OFFCACHE_S3_API_KEYS", ACCESS_KEY + ":" + SECRET_KEY));
        command.setOut(new PrintWriter(new StringWriter(), true));
        command.parseArgs(args.toArray(new String[0]));
        return command.<OffcacheServerCommand>getCommand().start();
    }

    /** The same SDK client for every target: path-style, checksums only where required (S3Proxy needs that). */
    private static S3Client client(final URI endpoint, final AwsCredentialsProvider credentials)
    {
        return S3Client.builder()
            .endpointOverride(endpoint)
            .region(Region.US_EAST_1)
            .forcePathStyle(true)
            .credentialsProvider(credentials)
            .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
            .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
            .httpClientBuilder(Apache5HttpClient.builder().maxConnections(4))
            .build();
    }

    /**
     * Stops everything and deletes the files.
     *
     * @throws Exception if something cannot be closed or deleted.
     */
    @TearDown(Level.Trial)
    public void tearDown() throws Exception
    {
        sdk.close();
        if (null != http)
        {
            http.close();
        }
        if (null != program)
        {
            program.close();
        }
        if (null != proxy)
        {
            proxy.close();
        }
        BenchmarkFiles.deleteTree(dir);
    }

    private long nextOffset()
    {
        offset = RangeWalk.next(offset, rangeBytes, OBJECT_BYTES);
        return offset;
    }

    private static String range(final long at, final int length)
    {
        return "bytes=" + at + "-" + (at + length - 1);
    }

    private int drain(final InputStream in) throws IOException
    {
        int total = 0;
        int n = in.read(body, 0, body.length);
        while (n > 0)
        {
            total += n;
            final int at = total % body.length;
            n = in.read(body, at, body.length - at);
        }
        if (total != rangeBytes)
        {
            throw new IllegalStateException("read " + total + " bytes, expected " + rangeBytes);
        }
        return total;
    }

    private int sdkRead(final long at) throws IOException
    {
        try (ResponseInputStream<GetObjectResponse> in = sdk.getObject((r) -> r.bucket(BUCKET).key(KEY)
            .range(range(at, rangeBytes))))
        {
            return drain(in);
        }
    }

    /**
     * One warm ranged GET: through the SDK (the S3 endpoint, S3Proxy) or the {@code /obj} API.
     *
     * @return bytes read.
     * @throws IOException if the read fails.
     */
    @Benchmark
    public int rangedGet() throws IOException
    {
        final long at = nextOffset();
        if (null == http || !"obj".equals(impl))
        {
            return sdkRead(at);
        }
        final HttpGet get = new HttpGet(objUri);
        get.setHeader("Authorization", "Bearer " + BEARER);
        get.setHeader("Range", range(at, rangeBytes));
        return http.execute(get, (response) ->
        {
            if (response.getCode() != 206)
            {
                throw new IOException("/obj answered " + response.getCode());
            }
            try (InputStream in = response.getEntity().getContent())
            {
                return drain(in);
            }
        });
    }
}
