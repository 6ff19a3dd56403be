package dev.offcache.range.l2;

import java.net.ServerSocket;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.offcache.range.metrics.CountersFile;
import dev.offcache.range.origin.FileSystemOrigin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The L2 client's counters in a memory-mapped file that another process can read (AeronStat-style). */
class L2ClientCountersFileTest
{
    @TempDir
    Path tmp;

    @Test
    void countersAreReadableFromTheFileWhileRunningAndAfterClose() throws Exception
    {
        final byte[] object = new byte[100_000];
        new Random(5).nextBytes(object);
        Files.createDirectories(tmp.resolve("origin"));
        Files.write(tmp.resolve("origin").resolve("o.bin"), object);
        final int deadPort;
        try (ServerSocket socket = new ServerSocket(0))
        {
            deadPort = socket.getLocalPort();
        }
        final Path file = tmp.resolve("l2client-counters.dat");
        final L2Client client = new L2Client(new L2ClientContext()
            .serverUri(URI.create("http://127.0.0.1:" + deadPort))
            .apiKey("key-0123456789abcdef")
            .origin(new FileSystemOrigin(tmp.resolve("origin"), 1))
            .abandonTimeout(Duration.ofSeconds(2))
            .countersFile(file));
        final L2ClientCounters metrics = client.metrics();
        try
        {
            for (int i = 0; i < 3; i++)
            {
                final ByteBuffer destination = ByteBuffer.allocateDirect(1000);
                assertEquals(1000, client.read("o.bin", 1000L * i, destination).get(10, TimeUnit.SECONDS));
                final byte[] got = new byte[1000];
                destination.get(got);
                final byte[] want = new byte[1000];
                System.arraycopy(object, 1000 * i, want, 0, 1000);
                assertArrayEquals(want, got, "the origin's bytes when L2 is down");
            }
            final Map<String, Long> live = CountersFile.read(file);
            assertEquals(3L, live.get("offcache_l2client_reads_total"));
            assertEquals(3000L, live.get("offcache_l2client_origin_bytes_total"));
            assertEquals(3L, live.get("offcache_l2client_fallbacks_total{op=\"read\",reason=\"connect\"}") +
                live.get("offcache_l2client_fallbacks_total{op=\"read\",reason=\"closed_before_headers\"}"));
            assertEquals(metrics.get(L2ClientCounters.Counter.READS), live.get("offcache_l2client_reads_total"));
        }
        finally
        {
            client.close();
        }
        assertEquals(3L, CountersFile.read(file).get("offcache_l2client_reads_total"), "the file outlives the client");
        assertEquals(3, metrics.get(L2ClientCounters.Counter.READS), "final values after close");
        assertEquals(3, metrics.readFallbacksTotal());
    }

    @Test
    void updatesRacingWithCloseNeverTouchFreedMemory() throws Exception
    {
        for (int round = 0; round < 20; round++)
        {
            final L2ClientCounters metrics = new L2ClientCounters(tmp.resolve("race-" + round + ".dat"));
            final AtomicBoolean stop = new AtomicBoolean();
            final CountDownLatch started = new CountDownLatch(2);
            final Thread[] writers = new Thread[2];
            for (int t = 0; t < writers.length; t++)
            {
                writers[t] = new Thread(() ->
                {
                    started.countDown();
                    while (!stop.get())
                    {
                        metrics.increment(L2ClientCounters.Counter.READS);
                        metrics.readFallback(FallbackReason.STALL);
                    }
                });
                writers[t].start();
            }
            started.await();
            Thread.sleep(2);
            metrics.close();
            final long atClose = metrics.get(L2ClientCounters.Counter.READS);
            Thread.sleep(2);
            stop.set(true);
            for (final Thread writer : writers)
            {
                writer.join();
            }
            assertTrue(atClose > 0, "writers ran before the close");
            assertEquals(atClose, metrics.get(L2ClientCounters.Counter.READS), "updates after close are dropped");
            assertEquals(atClose, CountersFile.read(tmp.resolve("race-" + round + ".dat"))
                .get("offcache_l2client_reads_total"), "the file holds the final value");
        }
    }
}
