package dev.offcache.range.l2;

import java.io.IOException;
import java.lang.ref.WeakReference;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.offcache.range.metrics.MetricFamilies;
import dev.offcache.range.origin.FileSystemOrigin;
import dev.offcache.range.testing.TestObjects;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Reads through the L2 client against a raw socket server on 127.0.0.1 that misbehaves on purpose: every read must
 * return exactly the origin's bytes, and the fallback must be counted under the right reason.
 */
class L2ClientFaultTest
{
    private static final String KEY = "data/part-0.parquet";
    private static final int SIZE = 3 * 1024 * 1024 + 17;

    @TempDir
    Path root;

    private byte[] truth;
    private FaultyL2Server server;
    private L2Client client;

    @BeforeEach
    void setUp() throws IOException
    {
        truth = TestObjects.write(root, KEY, SIZE, 42);
        server = new FaultyL2Server();
        server.objects.put(KEY, truth);
    }

    @AfterEach
    void tearDown() throws IOException
    {
        if (client != null)
        {
            client.close();
        }
        server.close();
    }

    private L2Client client(final String url)
    {
        return client(url, 150);
    }

    private L2Client client(final String url, final long abandonMs)
    {
        return new L2Client(new L2ClientContext()
            .serverUri(URI.create(url))
            .apiKey("k")
            .origin(new FileSystemOrigin(root, 2))
            .abandonTimeout(Duration.ofMillis(abandonMs))
            .stallTimeout(Duration.ofMillis(400))
            .breakerThreshold(1_000).breakerOpenTime(Duration.ofSeconds(3)));
    }

    private static FallbackReason expectedReason(final FaultyL2Server.Fault fault)
    {
        switch (fault)
        {
            case NEVER_ANSWER:
                return FallbackReason.NO_HEADERS;
            case GARBAGE:
                return FallbackReason.MALFORMED;
            case STATUS_500:
                return FallbackReason.STATUS;
            case MISSING_CONTENT_RANGE:
            case WRONG_CONTENT_RANGE:
                return FallbackReason.MALFORMED;
            case SHORT_BODY:
                return FallbackReason.SHORT_BODY;
            case STALL_MID_BODY:
                return FallbackReason.STALL;
            case CLOSE_MID_STREAM:
                return FallbackReason.BROKEN_STREAM;
            default:
                return null;
        }
    }

    /** Reads random ranges (some at the object's end) and checks each against the true bytes. */
    private long readRandomRanges(final int count, final long seed)
    {
        final Random random = new Random(seed);
        long requested = 0;
        for (int i = 0; i < count; i++)
        {
            final int length = 1 + random.nextInt(random.nextBoolean() ? 4096 : 512 * 1024);
            final int offset = i % 4 == 3 ? SIZE - length / 2 : random.nextInt(SIZE - length);
            final int expected = Math.min(length, SIZE - offset);
            final ByteBuffer destination = ByteBuffer.allocateDirect(length + 8);
            destination.position(3).limit(3 + length);
            final int n = client.read(KEY, offset, destination).orTimeout(10, TimeUnit.SECONDS).join();
            assertEquals(expected, n, "bytes read at " + offset + "+" + length);
            final byte[] got = new byte[n];
            destination.duplicate().position(3).get(got);
            final byte[] want = new byte[n];
            System.arraycopy(truth, offset, want, 0, n);
            assertArrayEquals(want, got, "bytes at " + offset + "+" + length);
            assertEquals(3, destination.position(), "the caller's position is left alone");
            requested += n;
        }
        return requested;
    }

    @Test
    void aServerThatKeepsAReadAliveIsGivenUpOnAtTheReadDeadlineAndTheBreakerIsTold()
    {
        // 64 KiB at 128 KiB/s: the deadline is 150 ms + 400 ms + 500 ms after the start. The server drips 256 bytes
        // every 150 ms (inside the 400 ms stall timeout), so without a deadline the read would take 38 s.
        client = new L2Client(new L2ClientContext()
            .serverUri(URI.create(server.url()))
            .apiKey("k")
            .origin(new FileSystemOrigin(root, 2))
            .abandonTimeout(Duration.ofMillis(150))
            .stallTimeout(Duration.ofMillis(400))
            .minReadBytesPerSecond(128 * 1024)
            .breakerThreshold(2).breakerOpenTime(Duration.ofSeconds(60)));
        server.fault = FaultyL2Server.Fault.DRIP;
        final int length = 64 * 1024;
        final long offset = 12_345;
        assertExactRead(offset, length);
        final L2ClientCounters metrics = client.metrics();
        assertEquals(1, metrics.readFallbacks(FallbackReason.DEADLINE), () -> prometheus(metrics));
        assertEquals(1, metrics.get(L2ClientCounters.Counter.RESUMED), "completed from the offset L2 reached");
        assertTrue(metrics.get(L2ClientCounters.Counter.L2_BYTES) > 0, "the dripped bytes are kept");
        assertEquals(length, metrics.get(L2ClientCounters.Counter.L2_BYTES) +
            metrics.get(L2ClientCounters.Counter.ORIGIN_BYTES));
        assertEquals(CircuitBreaker.State.CLOSED, client.breaker().state());

        // Interim responses every 100 ms, and never the final answer: alive, but no answer either.
        server.fault = FaultyL2Server.Fault.NONE;
        server.slowAnswerMs = 60_000;
        server.interimEveryMs = 100;
        assertExactRead(offset, length);
        assertEquals(2, metrics.readFallbacks(FallbackReason.DEADLINE), () -> prometheus(metrics));
        assertTrue(server.interimsSent.get() > 4, "interims kept it alive past the stall timeout");
        assertEquals(CircuitBreaker.State.OPEN, client.breaker().state(), "two calls past their deadline open it");
    }

    private void assertExactRead(final long offset, final int length)
    {
        final ByteBuffer destination = ByteBuffer.allocateDirect(length);
        assertEquals(length, client.read(KEY, offset, destination).orTimeout(10, TimeUnit.SECONDS).join());
        final byte[] got = new byte[length];
        destination.get(got);
        final byte[] want = new byte[length];
        System.arraycopy(truth, (int) offset, want, 0, length);
        assertArrayEquals(want, got);
    }

    @Test
    void aFinishedReadLeavesNoTimerHoldingTheCallersBuffer() throws InterruptedException
    {
        // The exchange used to leave its stall check queued on the event loop for the whole stall timeout (3 s),
        // keeping the exchange and the caller's buffer reachable: ~15,000 of them at 5,000 reads a second.
        client = new L2Client(new L2ClientContext()
            .serverUri(URI.create(server.url()))
            .apiKey("k")
            .origin(new FileSystemOrigin(root, 2))
            .abandonTimeout(Duration.ofSeconds(5))
            .stallTimeout(Duration.ofSeconds(30)));
        assertExactRead(0, 4096);
        ByteBuffer destination = ByteBuffer.allocateDirect(64 * 1024);
        assertEquals(64 * 1024, client.read(KEY, 12_345, destination).orTimeout(10, TimeUnit.SECONDS).join());
        final WeakReference<ByteBuffer> reachable = new WeakReference<>(destination);
        destination = null;
        final long giveUpNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (reachable.get() != null && System.nanoTime() < giveUpNs)
        {
            System.gc();
            Thread.sleep(20);
        }
        assertNull(reachable.get(), "the caller's buffer is still reachable after its read completed");
        assertEquals(2, client.metrics().get(L2ClientCounters.Counter.L2_HITS));
    }

    @Test
    void aStallIsSeenAtTheStallTimeoutWhenTheHeaderDeadlineIsLonger()
    {
        // One timer serves the header deadline, the stall check and the read deadline: with an abandon timeout
        // longer than the stall timeout, the stall must still end the read at the stall timeout.
        server.fault = FaultyL2Server.Fault.STALL_MID_BODY;
        client = new L2Client(new L2ClientContext()
            .serverUri(URI.create(server.url()))
            .apiKey("k")
            .origin(new FileSystemOrigin(root, 2))
            .abandonTimeout(Duration.ofSeconds(20))
            .stallTimeout(Duration.ofMillis(300)));
        final long startNs = System.nanoTime();
        assertExactRead(1000, 256 * 1024);
        final long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
        assertTrue(tookMs < 10_000, "the stall ended the read after " + tookMs + " ms, not the 20 s header deadline");
        assertEquals(1, client.metrics().readFallbacks(FallbackReason.STALL));
        assertEquals(1, client.metrics().get(L2ClientCounters.Counter.RESUMED));
    }

    @Test
    void keysArePercentEncodedSegmentBySegment()
    {
        client = client(server.url());
        assertEquals("/obj/data/part-0.parquet", client.objectPath("data/part-0.parquet"));
        assertEquals("/obj/A_z.9-*/x", client.objectPath("A_z.9-*/x"));
        assertEquals("/obj/a%20b%2Bc/%7E%25/%C3%A9", client.objectPath("a b+c/~%/\u00e9"));
        assertEquals("/obj/a//b", client.objectPath("a//b"));
        assertEquals("/ranges/a%20b/c", client.rangesPath("a b/c"));
    }

    @Test
    void healthyServerServesEveryReadAndSizeFromL2()
    {
        // A generous header deadline: a cold JVM's first request must not count as a fallback here.
        client = client(server.url(), 5_000);
        final long requested = readRandomRanges(24, 1);
        final L2ClientCounters metrics = client.metrics();
        assertEquals(24, metrics.get(L2ClientCounters.Counter.L2_HITS));
        assertEquals(0, metrics.readFallbacksTotal());
        assertEquals(requested, metrics.get(L2ClientCounters.Counter.L2_BYTES));
        assertEquals(0, metrics.get(L2ClientCounters.Counter.ORIGIN_BYTES));
        assertTrue(server.connections.get() < 24, "keep-alive connections are reused: " + server.connections.get());
        assertEquals(SIZE, client.size(KEY).join());
        assertEquals(1, metrics.get(L2ClientCounters.Counter.HEAD_HITS));
    }

    @ParameterizedTest
    @EnumSource(value = FaultyL2Server.Fault.class, names = {"NONE", "RANDOM", "DRIP"}, mode = EnumSource.Mode.EXCLUDE)
    void everyFaultStillReturnsTheOriginsExactBytes(final FaultyL2Server.Fault fault)
    {
        server.fault = fault;
        // A short header deadline only where the server never answers; elsewhere a slow, loaded machine must not
        // turn a fault into a different one.
        client = client(server.url(), fault == FaultyL2Server.Fault.NEVER_ANSWER ? 150 : 3_000);
        final int reads = 8;
        final long requested = readRandomRanges(reads, fault.ordinal());
        final L2ClientCounters metrics = client.metrics();
        final FallbackReason reason = expectedReason(fault);
        assertEquals(reads, metrics.readFallbacks(reason), () ->
            "fallbacks for " + fault + " counted as " + reason + "\n" + prometheus(metrics));
        assertEquals(0, metrics.get(L2ClientCounters.Counter.L2_HITS));
        assertEquals(requested, metrics.get(L2ClientCounters.Counter.L2_BYTES) +
            metrics.get(L2ClientCounters.Counter.ORIGIN_BYTES), "every byte comes from exactly one source");
        if (fault == FaultyL2Server.Fault.SHORT_BODY || fault == FaultyL2Server.Fault.STALL_MID_BODY)
        {
            // The server sent half of each body before failing; those bytes are kept, the origin supplies the rest.
            assertEquals(server.bytesSentBeforeFault.get(), metrics.get(L2ClientCounters.Counter.L2_BYTES));
            assertEquals(reads, metrics.get(L2ClientCounters.Counter.RESUMED));
        }
        assertEquals(SIZE, client.size(KEY).join());
        // The server's HEAD is broken only by the faults that hit every request.
        final boolean headBroken = fault == FaultyL2Server.Fault.NEVER_ANSWER ||
            fault == FaultyL2Server.Fault.GARBAGE || fault == FaultyL2Server.Fault.STATUS_500;
        assertEquals(headBroken ? 0 : 1, metrics.get(L2ClientCounters.Counter.HEAD_HITS));
        assertEquals(headBroken ? 1 : 0, metrics.headFallbacks(reason));
    }

    static String prometheus(final L2ClientCounters metrics)
    {
        final MetricFamilies out = new MetricFamilies();
        metrics.collectInto(out);
        return out.toText();
    }

    @Test
    void serverDownGoesToTheOrigin() throws IOException
    {
        final int port;
        try (ServerSocket unused = new ServerSocket(0))
        {
            port = unused.getLocalPort();
        }
        client = client("http://127.0.0.1:" + port);
        final long requested = readRandomRanges(6, 7);
        assertEquals(6, client.metrics().readFallbacks(FallbackReason.CONNECT));
        assertEquals(requested, client.metrics().get(L2ClientCounters.Counter.ORIGIN_BYTES));
        assertEquals(SIZE, client.size(KEY).join());
        assertEquals(1, client.metrics().headFallbacks(FallbackReason.CONNECT));
    }

    @Test
    void serverKilledMidStreamIsCompletedFromTheOriginAtTheRightOffset()
    {
        server.fault = FaultyL2Server.Fault.CLOSE_MID_STREAM;
        client = client(server.url(), 3_000);
        final int length = 2 * 1024 * 1024;
        final int offset = 1000;
        final ByteBuffer destination = ByteBuffer.allocateDirect(length);
        assertEquals(length, client.read(KEY, offset, destination).orTimeout(10, TimeUnit.SECONDS).join());
        final byte[] got = new byte[length];
        destination.get(got);
        final byte[] want = new byte[length];
        System.arraycopy(truth, offset, want, 0, length);
        assertArrayEquals(want, got);
        final L2ClientCounters metrics = client.metrics();
        assertEquals(length, metrics.get(L2ClientCounters.Counter.L2_BYTES) +
            metrics.get(L2ClientCounters.Counter.ORIGIN_BYTES), "no byte read twice, none missing");
        assertEquals(1, metrics.readFallbacks(FallbackReason.BROKEN_STREAM));
    }

    @Test
    void closeWithAReadInFlightCompletesThatRead() throws InterruptedException
    {
        server.fault = FaultyL2Server.Fault.NEVER_ANSWER;
        client = client(server.url(), 30_000);
        final CompletableFuture<Integer> read =
            client.read(KEY, 0, ByteBuffer.allocateDirect(1000));
        while (server.requests.get() == 0)
        {
            Thread.sleep(1);
        }
        client.close();
        // Completes (from the origin, or with the origin's "closed" error), never hangs until the 30 s deadline.
        final CompletableFuture<Object> settled = read.handle((n, error) -> n != null ? n : error);
        assertTrue(settled.orTimeout(5, TimeUnit.SECONDS).handle((v, e) -> e == null).join(),
            "the in-flight read settled after close");
    }

    @Test
    void notFoundOnL2IsAskedOfTheOrigin()
    {
        server.objects.clear();
        client = client(server.url(), 3_000);
        final ByteBuffer destination = ByteBuffer.allocateDirect(100);
        assertEquals(100, client.read(KEY, 5, destination).join());
        assertEquals(1, client.metrics().readFallbacks(FallbackReason.STATUS));
    }
}
