package dev.offcache.server.http;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.range.l2.FallbackReason;
import dev.offcache.range.l2.L2ClientCounters;
import dev.offcache.range.l2.L2Client;
import dev.offcache.range.l2.L2ClientContext;
import dev.offcache.range.origin.FileSystemOrigin;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The range-cache L2 client against the real L2 server on 127.0.0.1: equal bytes, L2 hits counted, write-time
 * warming landing in the server, and fallbacks when the server refuses the key or is gone.
 */
class L2ClientAgainstServerTest
{
    private static final int BLOCK = ServerHarness.BLOCK;

    @TempDir
    Path tmp;

    private Path originDir;
    private byte[] big;
    private byte[] small;
    private ServerHarness harness;
    private L2Client client;

    @BeforeEach
    void setUp() throws Exception
    {
        originDir = tmp.resolve("origin");
        Files.createDirectories(originDir.resolve("lake"));
        big = random(20 * BLOCK + 321, 11);
        small = random(5 * BLOCK + 3, 12);
        Files.write(originDir.resolve("lake").resolve("big.parquet"), big);
        Files.write(originDir.resolve("lake").resolve("small.parquet"), small);
        harness = new ServerHarness(originDir, tmp.resolve("ssd"), 64, 64L * BLOCK, TransportKind.AUTO);
    }

    @AfterEach
    void tearDown()
    {
        if (client != null)
        {
            client.close();
        }
        if (harness != null)
        {
            harness.close();
        }
    }

    private L2Client client(final String apiKey)
    {
        return new L2Client(new L2ClientContext()
            .serverUri(URI.create(harness.base()))
            .apiKey(apiKey)
            .origin(new FileSystemOrigin(originDir, 2))
            .abandonTimeout(Duration.ofSeconds(2)));
    }

    @Test
    void randomRangesEqualTheOriginAndCountL2Hits()
    {
        client = client(ServerHarness.KEY);
        final Random random = new Random(3);
        for (int i = 0; i < 40; i++)
        {
            final int length = 1 + random.nextInt(i % 2 == 0 ? 3 * BLOCK : 2000);
            final int offset = random.nextInt(big.length - length);
            assertRead("lake/big.parquet", big, offset, length);
        }
        assertRead("lake/big.parquet", big, big.length - 10, 100);
        final L2ClientCounters metrics = client.metrics();
        assertEquals(41, metrics.get(L2ClientCounters.Counter.L2_HITS));
        assertEquals(0, metrics.readFallbacksTotal());
        assertEquals(0, metrics.get(L2ClientCounters.Counter.ORIGIN_BYTES));
        assertEquals(big.length, (long) client.size("lake/big.parquet").join());
        assertEquals(1, metrics.get(L2ClientCounters.Counter.HEAD_HITS));
    }

    @Test
    void writeTimeWarmingFillsTheServerSoTheFirstReadNeedsNoOriginRead() throws Exception
    {
        client = client(ServerHarness.KEY);
        assertTrue(client.notifyWritten("lake/small.parquet", small.length));
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (serverMetric("offcache_server_prefetch_requests_total\\{outcome=\"completed\"\\}") < 1 &&
            System.nanoTime() < deadline)
        {
            Thread.sleep(10);
        }
        assertEquals(1, client.metrics().get(L2ClientCounters.Counter.WARM_SENT));
        assertEquals(1, serverMetric("offcache_server_prefetch_requests_total\\{outcome=\"completed\"\\}"));
        final long originReads = harness.origin.gets();
        assertTrue(originReads > 0, "the server fetched the object for the prefetch");
        assertRead("lake/small.parquet", small, 0, small.length);
        assertEquals(originReads, harness.origin.gets(), "the read was served from what warming stored");
        assertEquals(1, client.metrics().get(L2ClientCounters.Counter.L2_HITS));
    }

    @Test
    void wrongKeyFallsBackToTheOrigin()
    {
        client = client("not-the-key");
        assertRead("lake/big.parquet", big, 5, 70_000);
        assertEquals(1, client.metrics().readFallbacks(FallbackReason.STATUS));
        assertEquals(70_000, client.metrics().get(L2ClientCounters.Counter.ORIGIN_BYTES));
    }

    @Test
    void serverGoneFallsBackToTheOrigin()
    {
        client = client(ServerHarness.KEY);
        assertRead("lake/big.parquet", big, 100, 1000);
        harness.close();
        harness = null;
        assertRead("lake/big.parquet", big, 7 * BLOCK - 5, 3 * BLOCK);
        assertEquals(big.length, (long) client.size("lake/big.parquet").join());
        final L2ClientCounters metrics = client.metrics();
        assertEquals(1, metrics.get(L2ClientCounters.Counter.L2_HITS));
        assertEquals(1, metrics.readFallbacksTotal());
        assertTrue(metrics.readFallbacks(FallbackReason.CONNECT) + metrics.readFallbacks(
            FallbackReason.CLOSED_BEFORE_HEADERS) == 1, "counted as a connection failure");
        assertEquals(3 * BLOCK, metrics.get(L2ClientCounters.Counter.ORIGIN_BYTES));
    }

    private void assertRead(final String key, final byte[] truth, final int offset, final int length)
    {
        final ByteBuffer destination = ByteBuffer.allocateDirect(length);
        final int expected = Math.min(length, truth.length - offset);
        assertEquals(expected, client.read(key, offset, destination).orTimeout(10, TimeUnit.SECONDS).join());
        final byte[] got = new byte[expected];
        destination.get(got);
        final byte[] want = new byte[expected];
        System.arraycopy(truth, offset, want, 0, expected);
        assertArrayEquals(want, got, key + " at " + offset + "+" + length);
    }

    private long serverMetric(final String regex) throws Exception
    {
        final HttpResponse<String> response = HttpClient.newHttpClient().send(
            HttpRequest.newBuilder(URI.create(harness.base() + "/metrics"))
                .header("Authorization", "Bearer " + ServerHarness.KEY).build(),
            HttpResponse.BodyHandlers.ofString());
        final Matcher matcher = Pattern.compile("(?m)^" + regex + " (\\S+)$").matcher(response.body());
        return matcher.find() ? (long) Double.parseDouble(matcher.group(1)) : -1;
    }

    private static byte[] random(final int size, final long seed)
    {
        final byte[] bytes = new byte[size];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }
}
