package dev.offcache.range.l2;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.range.engine.ByteRange;
import dev.offcache.range.engine.RangeCache;
import dev.offcache.range.metrics.CacheStats;
import dev.offcache.range.origin.FileSystemOrigin;
import dev.offcache.range.testing.CountingOrigin;
import dev.offcache.range.testing.SlabBlockStore;
import dev.offcache.range.testing.TestObjects;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The L2 client as the engine's origin (L1 → L2 → origin): the engine's demand GETs and sizes go to L2, its
 * prefetch GETs are marked as such and never probe an open breaker.
 */
class L2ClientInEngineTest
{
    private static final String KEY = "lake/t1/part-7.parquet";
    private static final int SIZE = 1_500_000;
    private static final int BLOCK = 64 * 1024;

    @TempDir
    Path root;

    private byte[] truth;
    private FaultyL2Server server;
    private CountingOrigin real;
    private L2Client l2;
    private RangeCache cache;
    private final AtomicLong clockNs = new AtomicLong();

    @BeforeEach
    void setUp() throws IOException
    {
        truth = TestObjects.write(root, KEY, SIZE, 3);
        server = new FaultyL2Server();
        server.objects.put(KEY, truth);
        real = new CountingOrigin(new FileSystemOrigin(root, 2));
        l2 = new L2Client(new L2ClientContext()
            .serverUri(URI.create(server.url()))
            .apiKey("k")
            .origin(real)
            .abandonTimeout(Duration.ofSeconds(2))
            .breakerThreshold(5).breakerOpenTime(Duration.ofSeconds(3))
            .nanoClock(clockNs::get));
        cache = RangeCache.newBuilder().origin(l2).blockSize(BLOCK).store(new SlabBlockStore(4L << 20, BLOCK))
            .build();
    }

    @AfterEach
    void tearDown() throws IOException
    {
        cache.close();
        server.close();
    }

    @Test
    void engineMissesAreServedByL2AndHitsStayInL1()
    {
        final Random random = new Random(5);
        for (int i = 0; i < 20; i++)
        {
            final int length = 1 + random.nextInt(200_000);
            final int position = random.nextInt(SIZE - length);
            final UnsafeBuffer buffer = new UnsafeBuffer(new byte[length]);
            cache.read(KEY, position, buffer, 0, length);
            final byte[] want = new byte[length];
            System.arraycopy(truth, position, want, 0, length);
            assertArrayEquals(want, buffer.byteArray());
        }
        assertEquals(0, real.gets(), "no GET reached the real origin");
        assertEquals(0, real.heads(), "the size came from L2 too");
        assertTrue(l2.metrics().get(L2ClientCounters.Counter.L2_HITS) > 0);
        final L2ClientCounters metrics = l2.metrics();
        assertEquals(metrics.get(L2ClientCounters.Counter.READS), metrics.get(L2ClientCounters.Counter.L2_HITS));
        assertEquals(0, l2.metrics().get(L2ClientCounters.Counter.HEADS), "no HEAD: the first GET told the size");
        assertEquals(SIZE, cache.sizeNow(KEY));
        // every byte the engine fetched came from L2: the stats split them off the origin bytes
        final CacheStats stats = cache.stats();
        assertTrue(stats.originBytes() > 0);
        assertEquals(metrics.get(L2ClientCounters.Counter.L2_BYTES), stats.l2Bytes());
        assertEquals(stats.originBytes(), stats.l2Bytes());
        assertEquals(0, stats.objectStoreBytes());
    }

    @Test
    void enginePrefetchNeverProbesAnOpenBreaker()
    {
        server.fault = FaultyL2Server.Fault.STATUS_500;
        assertEquals(SIZE, cache.size(KEY));
        for (int i = 0; i < 5; i++)
        {
            l2.breaker().onUnresponsive(CircuitBreaker.Admission.PASS);
        }
        assertEquals(CircuitBreaker.State.OPEN, l2.breaker().state());
        clockNs.addAndGet(TimeUnit.SECONDS.toNanos(4));
        server.fault = FaultyL2Server.Fault.NONE;
        final int requests = server.requests.get();
        cache.prefetch(KEY, List.of(new ByteRange(0, 4 * BLOCK))).orTimeout(10, TimeUnit.SECONDS).join();
        assertEquals(requests, server.requests.get(), "the engine's prefetch GETs skipped L2");
        assertEquals(0, l2.metrics().get(L2ClientCounters.Counter.BREAKER_PROBES));
        assertTrue(real.gets() > 0, "they went to the real origin");

        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[1000]);
        cache.read(KEY, 10 * BLOCK, buffer, 0, 1000);
        assertEquals(1, l2.metrics().get(L2ClientCounters.Counter.BREAKER_PROBES), "a demand read probes");
        assertEquals(CircuitBreaker.State.CLOSED, l2.breaker().state());
        final byte[] want = new byte[1000];
        System.arraycopy(truth, 10 * BLOCK, want, 0, 1000);
        assertArrayEquals(want, buffer.byteArray());
    }
}
