package dev.offcache.range.l2;

import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.range.origin.FileSystemOrigin;
import dev.offcache.range.testing.TestObjects;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Many threads read random ranges at once while each server answer is healthy or broken at random (garbage, 500,
 * wrong Content-Range, short body, reset mid-stream): every read equals the origin, every byte is accounted to
 * exactly one source, and pooled connections never carry one exchange's bytes into another.
 */
class L2ClientStressTest
{
    private static final String KEY = "s/obj";
    private static final int SIZE = 2 * 1024 * 1024 + 5;

    @TempDir
    Path root;

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void concurrentReadsUnderRandomFaultsReturnExactBytes() throws Exception
    {
        final byte[] truth = TestObjects.write(root, KEY, SIZE, 77);
        try (FaultyL2Server server = new FaultyL2Server())
        {
            server.objects.put(KEY, truth);
            server.fault = FaultyL2Server.Fault.RANDOM;
            final L2Client client = new L2Client(new L2ClientContext()
                .serverUri(URI.create(server.url()))
                .apiKey("k")
                .origin(new FileSystemOrigin(root, 2))
                .abandonTimeout(Duration.ofSeconds(3))
                .stallTimeout(Duration.ofSeconds(3)));
            final ExecutorService pool = Executors.newFixedThreadPool(6);
            final AtomicLong requested = new AtomicLong();
            try
            {
                final List<Future<?>> tasks = new ArrayList<>();
                for (int t = 0; t < 6; t++)
                {
                    final long seed = t;
                    tasks.add(pool.submit(() ->
                    {
                        final Random random = new Random(seed);
                        for (int i = 0; i < 40; i++)
                        {
                            final int length = 1 + random.nextInt(256 * 1024);
                            final int offset = random.nextInt(SIZE);
                            final int expected = Math.min(length, SIZE - offset);
                            final ByteBuffer destination = ByteBuffer.allocateDirect(length);
                            final CompletableFuture<Integer> read = client.read(KEY, offset, destination);
                            assertEquals(expected, read.orTimeout(20, TimeUnit.SECONDS).join());
                            final byte[] got = new byte[expected];
                            destination.get(got);
                            final byte[] want = new byte[expected];
                            System.arraycopy(truth, offset, want, 0, expected);
                            assertArrayEquals(want, got, "at " + offset + "+" + length);
                            requested.addAndGet(expected);
                        }
                        return null;
                    }));
                }
                for (final Future<?> task : tasks)
                {
                    task.get(50, TimeUnit.SECONDS);
                }
            }
            finally
            {
                pool.shutdownNow();
                client.close();
            }
            final L2ClientCounters metrics = client.metrics();
            assertEquals(240, metrics.get(L2ClientCounters.Counter.READS));
            assertEquals(requested.get(), metrics.get(L2ClientCounters.Counter.L2_BYTES) +
                metrics.get(L2ClientCounters.Counter.ORIGIN_BYTES), "every byte from exactly one source");
            assertEquals(240, metrics.get(L2ClientCounters.Counter.L2_HITS) + metrics.readFallbacksTotal());
            assertTrue(metrics.get(L2ClientCounters.Counter.L2_HITS) > 0, "some answers were healthy");
            assertTrue(metrics.get(L2ClientCounters.Counter.RESUMED) > 0, "some reads resumed mid-body");
        }
    }
}
