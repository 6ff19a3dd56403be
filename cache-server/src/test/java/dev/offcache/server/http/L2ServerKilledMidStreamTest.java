package dev.offcache.server.http;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.offcache.range.l2.FallbackReason;
import dev.offcache.range.l2.L2ClientCounters;
import dev.offcache.range.l2.L2Client;
import dev.offcache.range.l2.L2ClientContext;
import dev.offcache.range.origin.FileSystemOrigin;
import dev.offcache.testkit.jvm.ChildJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The real L2 server, in its own JVM, is killed with SIGKILL while a response body is streaming to the L2 client:
 * the read still returns the origin's exact bytes, completed from the origin at the offset already delivered.
 */
class L2ServerKilledMidStreamTest
{
    private static final int BLOCK = ServerHarness.BLOCK;
    private static final Pattern RESPONSE_BYTES =
        Pattern.compile("(?m)^offcache_server_http_response_bytes_total (\\d+)");

    @TempDir
    Path tmp;

    private int port = -1;

    @Test
    void aServerKilledMidBodyIsCompletedFromTheOriginAtTheDeliveredOffset() throws Exception
    {
        final Path originDir = tmp.resolve("origin");
        Files.createDirectories(originDir.resolve("lake"));
        final byte[] object = L2HttpServerTest.random(128 * BLOCK + 77, 21);
        Files.write(originDir.resolve("lake").resolve("big.parquet"), object);

        final Process child = ChildJvm.launch(List.of("-Xmx128m"), SlowServerChild.class, originDir.toString(),
            tmp.resolve("ssd").toString(), "10");
        try (L2Client client = new L2Client(new L2ClientContext()
            .serverUri(URI.create("http://127.0.0.1:" + portOf(child)))
            .apiKey(ServerHarness.KEY)
            .origin(new FileSystemOrigin(originDir, 2))
            // generous timeouts: this test is about a body that breaks, not a slow (loaded) machine
            .abandonTimeout(Duration.ofSeconds(15))
            .stallTimeout(Duration.ofSeconds(15))))
        {
            final String base = "http://127.0.0.1:" + portOf(child);
            // warm the child (class loading, JIT, the object's size) so the timed part below is only streaming
            final ByteBuffer warm = ByteBuffer.allocateDirect(100);
            assertEquals(100, client.read("lake/big.parquet", 0, warm).orTimeout(20, TimeUnit.SECONDS).join());
            assertEquals(1, client.metrics().get(L2ClientCounters.Counter.L2_HITS), "the warm-up read came from L2");
            final ByteBuffer destination = ByteBuffer.allocateDirect(object.length);
            final CompletableFuture<Integer> read = client.read("lake/big.parquet", 0, destination);

            // 10 ms per 64 KiB GET, one at a time: the body takes over a second; kill once 1 MiB has gone out
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (serverResponseBytes(base) < 16L * BLOCK)
            {
                assertTrue(System.nanoTime() < deadline, "the server never streamed 1 MiB");
                assertFalse(read.isDone(), "the body finished before the kill: the test proves nothing");
                Thread.sleep(5);
            }
            child.destroyForcibly();
            assertTrue(child.waitFor(10, TimeUnit.SECONDS));
            assertEquals(137, child.exitValue(), "killed by SIGKILL");

            assertEquals(object.length, read.orTimeout(20, TimeUnit.SECONDS).join());
            final byte[] got = new byte[object.length];
            destination.get(got);
            assertArrayEquals(object, got, "every byte equals the origin's");

            final L2ClientCounters metrics = client.metrics();
            final long fromL2 = metrics.get(L2ClientCounters.Counter.L2_BYTES) - warm.capacity();
            // the server counts bytes as it hands them to its socket; some of those die in the socket buffers
            assertTrue(fromL2 > 0 && fromL2 < object.length, "L2 delivered part: " + fromL2);
            assertEquals(object.length - fromL2, metrics.get(L2ClientCounters.Counter.ORIGIN_BYTES),
                "the origin supplied exactly the rest, from the offset L2 reached");
            assertEquals(1, metrics.get(L2ClientCounters.Counter.RESUMED));
            assertEquals(1, metrics.readFallbacks(FallbackReason.BROKEN_STREAM) +
                metrics.readFallbacks(FallbackReason.SHORT_BODY), "counted as a body that broke");

            // the server is gone: the next read goes straight to the origin
            final ByteBuffer again = ByteBuffer.allocateDirect(1000);
            assertEquals(1000, client.read("lake/big.parquet", 5 * BLOCK, again).orTimeout(20, TimeUnit.SECONDS)
                .join());
            final byte[] part = new byte[1000];
            again.get(part);
            assertArrayEquals(Arrays.copyOfRange(object, 5 * BLOCK, 5 * BLOCK + 1000), part);
        }
        finally
        {
            child.destroyForcibly();
            child.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private int portOf(final Process child) throws Exception
    {
        if (port < 0)
        {
            final BufferedReader out = new BufferedReader(
                new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            String line;
            while ((line = out.readLine()) != null)
            {
                if (line.startsWith("PORT "))
                {
                    port = Integer.parseInt(line.substring(5).trim());
                    break;
                }
                assertTrue(System.nanoTime() < deadline, "child did not start");
            }
            assertTrue(port > 0, "child exited before listening");
            // keep reading the child's output so it never blocks on a full pipe
            final Thread drain = new Thread(() -> out.lines().count(), "child-output");
            drain.setDaemon(true);
            drain.start();
        }
        return port;
    }

    private static long serverResponseBytes(final String base) throws Exception
    {
        final HttpResponse<String> metrics = HttpClient.newHttpClient().send(
            HttpRequest.newBuilder(URI.create(base + "/metrics"))
                .header("Authorization", "Bearer " + ServerHarness.KEY).build(),
            HttpResponse.BodyHandlers.ofString());
        final Matcher matcher = RESPONSE_BYTES.matcher(metrics.body());
        return matcher.find() ? Long.parseLong(matcher.group(1)) : 0;
    }
}
