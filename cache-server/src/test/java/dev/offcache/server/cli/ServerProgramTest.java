package dev.offcache.server.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import dev.offcache.origin.s3.S3Origin;
import dev.offcache.range.metrics.CacheStatsMXBeans;
import dev.offcache.range.metrics.MetricNames;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@code offcache-server} program as assembled from its flags, over the range-cache engine: an S3 origin
 * (S3Proxy in-process on 127.0.0.1) serves exact bytes; a local origin with a kept disk path restarts warm (zero
 * origin GETs through the new engine); prefetch lands on the SSD tier only; bad S3 flags are refused by name.
 */
class ServerProgramTest
{
    private static final String KEY = "program-key-0123456789";
    private static final int BLOCK = 64 * 1024;

    @TempDir
    Path tmp;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private CommandLine commandLine(final Map<String, String> env)
    {
        final CommandLine commandLine = OffcacheServerCommand.commandLine(env);
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        return commandLine;
    }

    private ServerProgram start(final Map<String, String> env, final String... args) throws Exception
    {
        final CommandLine commandLine = commandLine(env);
        commandLine.parseArgs(args);
        final OffcacheServerCommand command = commandLine.getCommand();
        return command.start();
    }

    private HttpResponse<byte[]> get(final ServerProgram program, final String path, final String range)
        throws Exception
    {
        final HttpRequest.Builder request = HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + program.server().address().getPort() + path))
            .header("Authorization", "Bearer " + KEY);
        if (null != range)
        {
            request.header("Range", range);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private static long originGets(final ServerProgram program)
    {
        return program.cache().metrics().value(MetricNames.ORIGIN_GETS + MetricNames.DEMAND) +
            program.cache().metrics().value(MetricNames.ORIGIN_GETS + MetricNames.PREFETCH);
    }

    @Test
    void s3OriginServesExactBytesThroughTheEngine() throws Exception
    {
        final BlobStoreContext blobs = ContextBuilder.newBuilder("transient")
            .credentials("identity", "credential")
            .overrides(new Properties())
            .build(BlobStoreContext.class);
        final S3Proxy proxy = S3Proxy.builder()
            .blobStore(blobs.getBlobStore())
            .endpoint(URI.create("http://127.0.0.1:0"))
            .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, "access-id", "secret-key")
            .build();
        try
        {
            blobs.getBlobStore().createContainerInLocation(null, "lake");
            proxy.start();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!"STARTED".equals(proxy.getState()) && System.nanoTime() < deadline)
            {
                Thread.sleep(10);
            }
            assertEquals("STARTED", proxy.getState());
            final String endpoint = "http://127.0.0.1:" + proxy.getPort();
            final byte[] object = new byte[3 * BLOCK + 555];
            new Random(9).nextBytes(object);
            try (S3Origin writer = S3Origin.create(URI.create(endpoint), "us-east-1", "access-id", "secret-key",
                "lake"))
            {
                writer.put("t/part-0.bin", ByteBuffer.wrap(object)).get(30, TimeUnit.SECONDS);
            }

            final Map<String, String> env = new HashMap<>();
            env.put("OFFCACHE_API_KEYS", KEY);
            env.put("OFFCACHE_S3_ACCESS_KEY", "access-id");
            env.put("OFFCACHE_S3_SECRET_KEY", "secret-key");
            try (ServerProgram program = start(env, "--listen", "127.0.0.1:0", "--s3-endpoint", endpoint,
                "--s3-bucket", "lake", "--block-size-kb", "64", "--ram-mb", "1", "--memory-budget-mb", "1"))
            {
                assertTrue(out.toString().contains("origin s3://127.0.0.1:" + proxy.getPort() + "/lake"),
                    out.toString());
                final HttpResponse<byte[]> whole = get(program, "/obj/t/part-0.bin", null);
                assertEquals(200, whole.statusCode());
                assertArrayEquals(object, whole.body());
                final HttpResponse<byte[]> part = get(program, "/obj/t/part-0.bin", "bytes=70000-180000");
                assertEquals(206, part.statusCode());
                assertArrayEquals(Arrays.copyOfRange(object, 70000, 180001), part.body());
                assertEquals(object.length,
                    program.cache().metrics().value(MetricNames.ORIGIN_BYTES + MetricNames.DEMAND),
                    "each byte fetched from S3 once");
                assertEquals(0, program.cache().metrics().value(MetricNames.ORIGIN_HEADS),
                    "a new object's size came with its first GET (S3's Content-Range): no HEAD");
                assertEquals(404, get(program, "/obj/t/missing.bin", null).statusCode());
                final String metrics = new String(get(program, "/metrics", null).body());
                assertTrue(metrics.contains(MetricNames.ORIGIN_GETS), "engine counters on /metrics");
                assertTrue(metrics.contains("offcache_server_block_lookups_total"), "tier counters on /metrics");
            }

            // no keys given: the AWS SDK's default credential chain (here its system-property source) signs
            final Map<String, String> chainEnv = Map.of("OFFCACHE_API_KEYS", KEY);
            System.setProperty("aws.accessKeyId", "access-id");
            System.setProperty("aws.secretAccessKey", "secret-key");
            try (ServerProgram program = start(chainEnv, "--listen", "127.0.0.1:0", "--s3-endpoint", endpoint,
                "--s3-bucket", "lake", "--block-size-kb", "64", "--ram-mb", "1", "--memory-budget-mb", "1"))
            {
                assertArrayEquals(Arrays.copyOfRange(object, 5, 70005),
                    get(program, "/obj/t/part-0.bin", "bytes=5-70004").body());
            }
            finally
            {
                System.clearProperty("aws.accessKeyId");
                System.clearProperty("aws.secretAccessKey");
            }
        }
        finally
        {
            proxy.stop();
            blobs.close();
        }
    }

    @Test
    void aLocalOriginRestartsWarmAndPrefetchLandsOnSsdOnly() throws Exception
    {
        final Path origin = tmp.resolve("origin");
        Files.createDirectories(origin.resolve("t"));
        final byte[] hot = new byte[5 * BLOCK + 1];
        final byte[] warm = new byte[2 * BLOCK];
        new Random(1).nextBytes(hot);
        new Random(2).nextBytes(warm);
        Files.write(origin.resolve("t/hot.bin"), hot);
        Files.write(origin.resolve("t/warm.bin"), warm);
        final Map<String, String> env = Map.of("OFFCACHE_API_KEYS", KEY);
        final String[] args = {"--listen", "127.0.0.1:0", "--origin-dir", origin.toString(), "--disk-path",
            tmp.resolve("ssd").toString(), "--block-size-kb", "64", "--ram-mb", "1", "--memory-budget-mb", "1"};

        final ObjectName statsBean = CacheStatsMXBeans.objectName("l2 127.0.0.1:0");
        final MBeanServer beans = ManagementFactory.getPlatformMBeanServer();
        try (ServerProgram program = start(env, args))
        {
            assertArrayEquals(hot, get(program, "/obj/t/hot.bin", null).body());
            // the engine's stats MXBean, named after --listen: 6 blocks, all missed and fetched
            assertEquals(program.cache().stats().missCount(), beans.getAttribute(statsBean, "MissCount"));
            assertEquals(6L, beans.getAttribute(statsBean, "MissCount"));
            assertEquals((long) hot.length, beans.getAttribute(statsBean, "OriginBytes"));
            final int ramBlocks = program.store().ramBlocks();
            final HttpResponse<String> prefetch = client.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + program.server().address().getPort() + "/prefetch"))
                .header("Authorization", "Bearer " + KEY)
                .POST(HttpRequest.BodyPublishers.ofString("{\"key\":\"t/warm.bin\",\"size\":" + warm.length + "}"))
                .build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(202, prefetch.statusCode());
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (program.store().ssd().blockCount() < 2 && System.nanoTime() < deadline)
            {
                Thread.sleep(10);
            }
            assertEquals(2, program.store().ssd().blockCount(), "the prefetched blocks are on SSD");
            assertEquals(ramBlocks, program.store().ramBlocks(), "prefetch took nothing in RAM");
            assertTrue(program.cache().metrics().value(MetricNames.ORIGIN_GETS + MetricNames.PREFETCH) > 0);
        }
        assertFalse(beans.isRegistered(statsBean), "closing the program unregisters its MXBean");
        try (ServerProgram program = start(env, args))
        {
            assertArrayEquals(hot, get(program, "/obj/t/hot.bin", null).body());
            assertArrayEquals(warm, get(program, "/obj/t/warm.bin", null).body());
            assertEquals(0, originGets(program), "a restart serves the SSD tier: no origin GET");
            assertEquals(0, program.cache().metrics().value(MetricNames.ORIGIN_HEADS),
                "the SSD tier recorded the object sizes: no origin HEAD either");
            assertEquals(8, program.store().metrics().ssdHits());
        }
        // with the origin gone, a restarted server still serves what its SSD tier holds
        Files.delete(origin.resolve("t/hot.bin"));
        Files.delete(origin.resolve("t/warm.bin"));
        try (ServerProgram program = start(env, args))
        {
            assertArrayEquals(Arrays.copyOfRange(hot, 100, 3 * BLOCK), get(program, "/obj/t/hot.bin",
                "bytes=100-" + (3 * BLOCK - 1)).body());
            assertArrayEquals(warm, get(program, "/obj/t/warm.bin", null).body());
            assertEquals(0, program.cache().metrics().value(MetricNames.ORIGIN_HEADS));
        }
    }

    @Test
    void anHttpOriginIsReadWithRangeGetsAlone() throws Exception
    {
        final Path originDir = tmp.resolve("http-origin");
        Files.createDirectories(originDir.resolve("t"));
        final byte[] object = new byte[3 * BLOCK + 99];
        new Random(17).nextBytes(object);
        Files.write(originDir.resolve("t/h.bin"), object);
        // the HTTP origin is another offcache-server with auth disabled: Range GETs under /obj/, whose 206 answers
        // carry the size (Content-Range), so no HEAD
        try (ServerProgram upstream = start(Map.of(), "--listen", "127.0.0.1:0", "--origin-dir",
            originDir.toString(), "--disable-auth", "--block-size-kb", "64", "--ram-mb", "1",
            "--memory-budget-mb", "1"))
        {
            final String url = "http://127.0.0.1:" + upstream.server().address().getPort() + "/obj/";
            try (ServerProgram program = start(Map.of("OFFCACHE_API_KEYS", KEY, "OFFCACHE_HTTP_ORIGIN", url),
                "--listen", "127.0.0.1:0", "--block-size-kb", "64", "--ram-mb", "1", "--memory-budget-mb", "1"))
            {
                assertTrue(out.toString().contains("origin http:" + url), out.toString());
                assertArrayEquals(object, get(program, "/obj/t/h.bin", null).body());
                assertArrayEquals(Arrays.copyOfRange(object, 70_000, 150_001),
                    get(program, "/obj/t/h.bin", "bytes=70000-150000").body());
                assertEquals(object.length,
                    program.cache().metrics().value(MetricNames.ORIGIN_BYTES + MetricNames.DEMAND),
                    "each byte fetched from the HTTP origin once");
                assertEquals(0, program.cache().metrics().value(MetricNames.ORIGIN_HEADS), "no HEAD");
                assertEquals(404, get(program, "/obj/t/missing.bin", null).statusCode());
            }
        }
        assertRefused(Map.of("OFFCACHE_API_KEYS", KEY), "--http-origin", "--http-origin", "ftp://127.0.0.1:9/",
            "--listen", "127.0.0.1:0");
        assertRefused(Map.of("OFFCACHE_API_KEYS", KEY), "--http-origin", "--http-origin", "http://127.0.0.1:9/",
            "--origin-dir", tmp.toString());
    }

    @Test
    void badS3FlagsAreRefusedNamingTheFlag()
    {
        final Map<String, String> keys = Map.of("OFFCACHE_API_KEYS", KEY);
        assertRefused(keys, "--s3-bucket", "--s3-endpoint", "http://127.0.0.1:9");
        assertRefused(keys, "--s3-bucket", "--s3-bucket", "Not_A_Bucket", "--s3-endpoint", "http://127.0.0.1:9");
        assertRefused(keys, "--s3-endpoint", "--s3-bucket", "lake");
        assertRefused(keys, "--s3-endpoint", "--s3-bucket", "lake", "--s3-endpoint", "ftp://127.0.0.1:9");
        assertRefused(keys, "--s3-bucket", "--s3-bucket", "lake", "--s3-endpoint", "http://127.0.0.1:9",
            "--origin-dir", tmp.toString());
        final Map<String, String> noAccess = new HashMap<>(keys);
        noAccess.put("OFFCACHE_S3_SECRET_KEY", "secret-key");
        assertRefused(noAccess, "OFFCACHE_S3_ACCESS_KEY", "--s3-bucket", "lake", "--s3-endpoint",
            "http://127.0.0.1:9");
        final Map<String, String> noSecret = new HashMap<>(keys);
        noSecret.put("OFFCACHE_S3_ACCESS_KEY", "access-id");
        assertRefused(noSecret, "OFFCACHE_S3_SECRET_KEY", "--s3-bucket", "lake", "--s3-endpoint",
            "http://127.0.0.1:9");
        final Map<String, String> noKeys = new HashMap<>(noSecret);
        noKeys.remove("OFFCACHE_API_KEYS");
        noKeys.put("OFFCACHE_S3_SECRET_KEY", "secret-key");
        assertRefused(noKeys, "OFFCACHE_API_KEYS", "--s3-bucket", "lake", "--s3-endpoint", "http://127.0.0.1:9",
            "--listen", "127.0.0.1:0");
    }

    private void assertRefused(final Map<String, String> env, final String named, final String... args)
    {
        err.getBuffer().setLength(0);
        assertEquals(2, commandLine(env).execute(args), String.join(" ", args));
        assertTrue(err.toString().contains(named), named + " in: " + err);
    }
}
