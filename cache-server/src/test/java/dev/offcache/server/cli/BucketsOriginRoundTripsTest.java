package dev.offcache.server.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;

import dev.offcache.testkit.s3.OriginCounters;
import dev.offcache.testkit.s3.S3ProxyServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A new object's first reads through {@code /obj} cost the S3 origin the same round trips whether the server serves
 * one bucket or several ({@code --s3-bucket lake,logs}): GETs only, no HEAD before them. Counted at the origin
 * (S3Proxy's blob store), read with curl as a user would.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BucketsOriginRoundTripsTest
{
    private static final int SIZE = 3 * 1024 * 1024 + 12_345;

    @TempDir
    Path tmp;

    private S3ProxyServer proxy;
    private S3Client direct;

    @BeforeAll
    void startOrigin() throws Exception
    {
        proxy = S3ProxyServer.start("lake", "logs");
        direct = S3Client.builder().endpointOverride(proxy.endpoint()).region(Region.US_EAST_1).forcePathStyle(true)
            .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(
                S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY)))
            .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
            .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
            .httpClientBuilder(Apache5HttpClient.builder()).build();
    }

    @AfterAll
    void stopOrigin()
    {
        direct.close();
        proxy.close();
    }

    private ServerProgram start(final String buckets, final String disk) throws Exception
    {
        final CommandLine commandLine = OffcacheServerCommand.commandLine(Map.of());
        commandLine.setOut(new PrintWriter(new StringWriter(), true));
        commandLine.setErr(new PrintWriter(new StringWriter(), true));
        commandLine.parseArgs("--listen", "127.0.0.1:0", "--s3-endpoint", proxy.endpoint().toString(),
            "--s3-bucket", buckets, "--s3-access-key", S3ProxyServer.ACCESS_KEY, "--s3-secret-key",
            S3ProxyServer.SECRET_KEY, "--disable-auth", "--ram-mb", "16", "--memory-budget-mb", "16",
            "--disk-path", tmp.resolve(disk).toString());
        return commandLine.<OffcacheServerCommand>getCommand().start();
    }

    /** The origin's requests for a whole GET and a ranged GET of two new objects, as "heads/gets". */
    private String firstReads(final ServerProgram program, final String prefix, final String name) throws Exception
    {
        final byte[] whole = bytes(1);
        final byte[] ranged = bytes(2);
        direct.putObject((r) -> r.bucket("lake").key(name + "/whole.bin"), RequestBody.fromBytes(whole));
        direct.putObject((r) -> r.bucket("lake").key(name + "/ranged.bin"), RequestBody.fromBytes(ranged));
        final String base = "http://127.0.0.1:" + program.server().address().getPort() + "/obj/" + prefix + name;
        final OriginCounters origin = proxy.counters();
        origin.reset();

        final Curl.Result all = Curl.run(base + "/whole.bin");
        assertEquals(200, all.status(), () -> all.output().substring(0, 300));
        assertArrayEquals(whole, body(all));
        final String wholeCost = origin.heads() + "/" + origin.gets();

        origin.reset();
        final Curl.Result part = Curl.run("-r", "2000000-2100000", base + "/ranged.bin");
        assertEquals(206, part.status(), () -> part.output().substring(0, 300));
        assertArrayEquals(Arrays.copyOfRange(ranged, 2_000_000, 2_100_001), body(part));
        return wholeCost + " " + origin.heads() + "/" + origin.gets();
    }

    @Test
    void aNewObjectCostsTheSameOriginRoundTripsWithOneBucketOrMany() throws Exception
    {
        final String one;
        try (ServerProgram program = start("lake", "ssd-one"))
        {
            one = firstReads(program, "", "one");
        }
        final String many;
        try (ServerProgram program = start("lake,logs", "ssd-many"))
        {
            many = firstReads(program, "lake/", "many");
        }
        // no HEAD before the first GET of a new object, whole or ranged
        assertEquals(0, Integer.parseInt(one.split(" ")[0].split("/")[0]), one);
        assertEquals(0, Integer.parseInt(one.split(" ")[1].split("/")[0]), one);
        assertEquals(one, many, "origin heads/gets for a whole GET then a ranged GET: one bucket vs two");
    }

    private static byte[] bytes(final long seed)
    {
        final byte[] bytes = new byte[SIZE];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    private static byte[] body(final Curl.Result result)
    {
        final byte[] all = result.output().getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        final int start = result.output().indexOf("\r\n\r\n") + 4;
        return Arrays.copyOfRange(all, start, all.length);
    }
}
