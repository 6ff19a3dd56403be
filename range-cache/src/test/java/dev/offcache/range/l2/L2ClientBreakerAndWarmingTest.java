package dev.offcache.range.l2;

import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.range.origin.FileSystemOrigin;
import dev.offcache.range.store.FetchClass;
import dev.offcache.range.testing.TestObjects;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The breaker driven through the client against a raw server on 127.0.0.1 (manual clock, so no 3 s sleeps),
 * write-time warming, and configuration refusals.
 */
class L2ClientBreakerAndWarmingTest
{
    private static final String KEY = "t/obj.bin";
    private static final int SIZE = 200_000;

    @TempDir
    Path root;

    private byte[] truth;
    private FaultyL2Server server;
    private L2Client client;
    private final AtomicLong clockNs = new AtomicLong(1_000_000_000L);

    @BeforeEach
    void setUp() throws IOException
    {
        truth = TestObjects.write(root, KEY, SIZE, 9);
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

    private L2Client client(final int warmQueue)
    {
        return client(warmQueue, 1000);
    }

    private L2Client client(final int warmQueue, final long stallMs)
    {
        return client(warmQueue, stallMs, 400);
    }

    private L2Client client(final int warmQueue, final long stallMs, final long abandonMs)
    {
        return new L2Client(new L2ClientContext()
            .serverUri(URI.create(server.url()))
            .apiKey("secret")
            .origin(new FileSystemOrigin(root, 2))
            .abandonTimeout(Duration.ofMillis(abandonMs))
            .stallTimeout(Duration.ofMillis(stallMs))
            .breakerThreshold(5).breakerOpenTime(Duration.ofSeconds(3))
            .warmQueueCapacity(warmQueue)
            .nanoClock(clockNs::get));
    }

    private void readAndCheck(final FetchClass fetchClass)
    {
        final ByteBuffer destination = ByteBuffer.allocateDirect(5000);
        assertEquals(5000,
            client.read(KEY, 1234, destination, fetchClass, null).orTimeout(10, TimeUnit.SECONDS).join());
        final byte[] got = new byte[5000];
        destination.get(got);
        final byte[] want = new byte[5000];
        System.arraycopy(truth, 1234, want, 0, 5000);
        assertArrayEquals(want, got);
    }

    @Test
    void breakerOpensAfterFiveSkipsWhileOpenProbesOnceAndClosesOnSuccess()
    {
        server.fault = FaultyL2Server.Fault.NEVER_ANSWER;
        client = client(16);
        final L2ClientCounters metrics = client.metrics();
        for (int i = 0; i < 4; i++)
        {
            readAndCheck(FetchClass.DEMAND);
        }
        assertEquals(CircuitBreaker.State.CLOSED, client.breaker().state(), "four unresponsive calls: still closed");
        readAndCheck(FetchClass.DEMAND);
        assertEquals(CircuitBreaker.State.OPEN, client.breaker().state(), "the fifth opens it");
        assertEquals(1, metrics.get(L2ClientCounters.Counter.BREAKER_OPENS));
        final int requestsWhenOpened = server.requests.get();

        for (int i = 0; i < 10; i++)
        {
            readAndCheck(FetchClass.DEMAND);
        }
        assertEquals(SIZE, client.size(KEY).join());
        assertEquals(requestsWhenOpened, server.requests.get(), "no call reaches L2 while open");
        assertEquals(10, metrics.readFallbacks(FallbackReason.BREAKER_OPEN));
        assertEquals(1, metrics.headFallbacks(FallbackReason.BREAKER_OPEN));

        clockNs.addAndGet(TimeUnit.MILLISECONDS.toNanos(2_999));
        readAndCheck(FetchClass.DEMAND);
        assertEquals(requestsWhenOpened, server.requests.get(), "still open 1 ms before the period ends");

        clockNs.addAndGet(TimeUnit.MILLISECONDS.toNanos(1));
        readAndCheck(FetchClass.PREFETCH);
        assertEquals(0, metrics.get(L2ClientCounters.Counter.BREAKER_PROBES), "a prefetch never probes");
        assertEquals(CircuitBreaker.State.OPEN, client.breaker().state());
        assertEquals(requestsWhenOpened, server.requests.get());

        // A failed probe reopens it for another period.
        readAndCheck(FetchClass.DEMAND);
        assertEquals(1, metrics.get(L2ClientCounters.Counter.BREAKER_PROBES));
        assertEquals(requestsWhenOpened + 1, server.requests.get(), "exactly one probe reached L2");
        assertEquals(CircuitBreaker.State.OPEN, client.breaker().state());
        assertEquals(2, metrics.get(L2ClientCounters.Counter.BREAKER_OPENS));
        readAndCheck(FetchClass.DEMAND);
        assertEquals(requestsWhenOpened + 1, server.requests.get(), "reopened: skipped again");

        server.fault = FaultyL2Server.Fault.NONE;
        clockNs.addAndGet(TimeUnit.SECONDS.toNanos(3));
        final long hitsBefore = metrics.get(L2ClientCounters.Counter.L2_HITS);
        readAndCheck(FetchClass.DEMAND);
        assertEquals(2, metrics.get(L2ClientCounters.Counter.BREAKER_PROBES));
        assertEquals(CircuitBreaker.State.CLOSED, client.breaker().state(), "a successful probe closes it");
        assertEquals(1, metrics.get(L2ClientCounters.Counter.BREAKER_CLOSES));
        assertEquals(hitsBefore + 1, metrics.get(L2ClientCounters.Counter.L2_HITS));
        readAndCheck(FetchClass.PREFETCH);
        assertEquals(hitsBefore + 2, metrics.get(L2ClientCounters.Counter.L2_HITS), "closed: prefetch uses L2 too");
    }

    @Test
    void bodiesThatStallAfterTheHeadersOpenTheBreakerAndAStalledProbeReopensIt()
    {
        server.fault = FaultyL2Server.Fault.STALL_MID_BODY;
        // Headers come at once; a generous header deadline keeps a loaded machine from counting a slow header as
        // NO_HEADERS instead of the stall after it that this test is about.
        client = client(16, 300, 5_000);
        final L2ClientCounters metrics = client.metrics();
        for (int i = 0; i < 4; i++)
        {
            readAndCheck(FetchClass.DEMAND);
        }
        assertEquals(CircuitBreaker.State.CLOSED, client.breaker().state(), "four stalled calls: still closed");
        readAndCheck(FetchClass.DEMAND);
        assertEquals(5, metrics.readFallbacks(FallbackReason.STALL));
        assertEquals(CircuitBreaker.State.OPEN, client.breaker().state(), "the fifth stalled body opens it");
        final int requestsWhenOpened = server.requests.get();
        readAndCheck(FetchClass.DEMAND);
        assertEquals(requestsWhenOpened, server.requests.get(), "open: L2 is skipped");

        // The probe gets its headers, then its body stalls: that is no answer, so the breaker opens again.
        clockNs.addAndGet(TimeUnit.SECONDS.toNanos(3));
        readAndCheck(FetchClass.DEMAND);
        assertEquals(requestsWhenOpened + 1, server.requests.get(), "one probe");
        assertEquals(CircuitBreaker.State.OPEN, client.breaker().state(), "a probe whose body stalled reopens it");
        assertEquals(0, metrics.get(L2ClientCounters.Counter.BREAKER_CLOSES));
        assertEquals(2, metrics.get(L2ClientCounters.Counter.BREAKER_OPENS));

        server.fault = FaultyL2Server.Fault.NONE;
        clockNs.addAndGet(TimeUnit.SECONDS.toNanos(3));
        readAndCheck(FetchClass.DEMAND);
        assertEquals(CircuitBreaker.State.CLOSED, client.breaker().state(), "a complete probe closes it");
    }

    @Test
    void answersThatAreErrorsDoNotOpenTheBreaker()
    {
        server.fault = FaultyL2Server.Fault.STATUS_500;
        client = client(16);
        for (int i = 0; i < 12; i++)
        {
            readAndCheck(FetchClass.DEMAND);
        }
        assertEquals(CircuitBreaker.State.CLOSED, client.breaker().state());
        assertEquals(12, client.metrics().readFallbacks(FallbackReason.STATUS));
    }

    @Test
    void notifyWrittenSendsNdjsonPrefetch() throws InterruptedException
    {
        client = client(16);
        assertTrue(client.notifyWritten(KEY, SIZE));
        assertTrue(client.notifyWritten("t/quote\"d.bin", 7));
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (client.metrics().get(L2ClientCounters.Counter.WARM_SENT) < 2 && System.nanoTime() < deadline)
        {
            Thread.sleep(5);
        }
        assertEquals(2, client.metrics().get(L2ClientCounters.Counter.WARM_SENT),
            () -> server.prefetchBodies + "\n" + L2ClientFaultTest.prometheus(client.metrics()));
        final String all = String.join("", server.prefetchBodies);
        assertTrue(all.contains("{\"key\":\"t/obj.bin\",\"size\":200000}\n"), all);
        assertTrue(all.contains("{\"key\":\"t/quote\\\"d.bin\",\"size\":7}\n"), all);
        assertFalse(client.notifyWritten("/absolute", 1), "an invalid key is refused, not thrown");
        assertFalse(client.notifyWritten(KEY, -1));
    }

    @Test
    void anIdleWarmingAgentSleepsAndANoticeStillGoesOutPromptly() throws InterruptedException
    {
        client = client(16);
        final long before = client.warmingDutyCycles();
        // the measuring window: the agent used to wake every millisecond (~1000 duty cycles a second, ~4.5 ms CPU)
        Thread.sleep(1000);
        final long idleCycles = client.warmingDutyCycles() - before;
        assertTrue(idleCycles <= 2, "an idle warming agent ran " + idleCycles + " duty cycles in a second");

        assertTrue(client.notifyWritten(KEY, SIZE));
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (client.metrics().get(L2ClientCounters.Counter.WARM_SENT) < 1 && System.nanoTime() < deadline)
        {
            Thread.sleep(1);
        }
        assertEquals(1, client.metrics().get(L2ClientCounters.Counter.WARM_SENT), "the notice was sent");
        assertTrue(String.join("", server.prefetchBodies).contains("{\"key\":\"t/obj.bin\",\"size\":200000}\n"));
    }

    @Test
    void notifyWrittenNeverBlocksWhileTheServerHangs()
    {
        server.fault = FaultyL2Server.Fault.NEVER_ANSWER;
        client = client(64);
        long worstNs = 0;
        int queued = 0;
        for (int i = 0; i < 5_000; i++)
        {
            final long start = System.nanoTime();
            if (client.notifyWritten("w/k" + i, i))
            {
                queued++;
            }
            worstNs = Math.max(worstNs, System.nanoTime() - start);
        }
        // a call that waited for the hung server would take at least the 400 ms abandon timeout; below that bound a
        // loaded machine's scheduling pauses (70 ms seen at load 15 on 2 cores) are not blocking
        assertTrue(worstNs < TimeUnit.MILLISECONDS.toNanos(300), "slowest notifyWritten took " + worstNs + " ns");
        final L2ClientCounters metrics = client.metrics();
        assertEquals(5_000, metrics.get(L2ClientCounters.Counter.WARM_NOTIFIED));
        assertEquals(5_000 - queued, metrics.get(L2ClientCounters.Counter.WARM_DROPPED_QUEUE_FULL));
        assertTrue(metrics.get(L2ClientCounters.Counter.WARM_DROPPED_QUEUE_FULL) > 0, "a full queue drops");
        assertEquals(CircuitBreaker.State.CLOSED, client.breaker().state(), "warming never moves the breaker");
    }

    @Test
    void warmingIsDroppedWhileTheBreakerIsOpenAndNeverProbes() throws InterruptedException
    {
        server.fault = FaultyL2Server.Fault.NEVER_ANSWER;
        client = client(16);
        for (int i = 0; i < 5; i++)
        {
            readAndCheck(FetchClass.DEMAND);
        }
        assertEquals(CircuitBreaker.State.OPEN, client.breaker().state());
        clockNs.addAndGet(TimeUnit.SECONDS.toNanos(10));
        final int requests = server.requests.get();
        assertTrue(client.notifyWritten(KEY, SIZE));
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (client.metrics().get(L2ClientCounters.Counter.WARM_DROPPED_BREAKER) < 1 && System.nanoTime() < deadline)
        {
            Thread.sleep(5);
        }
        assertEquals(1, client.metrics().get(L2ClientCounters.Counter.WARM_DROPPED_BREAKER));
        assertEquals(requests, server.requests.get());
        assertEquals(0, client.metrics().get(L2ClientCounters.Counter.BREAKER_PROBES));
        assertEquals(CircuitBreaker.State.OPEN, client.breaker().state());
    }

    @Test
    void environmentIsAppliedAndInvalidValuesAreRefusedNamingTheVariable()
    {
        final L2ClientContext ctx = new L2ClientContext().fromEnvironment(Map.of(
            L2ClientContext.ENV_URL, "http://127.0.0.1:9/base",
            L2ClientContext.ENV_API_KEY, "abc",
            L2ClientContext.ENV_ABANDON_TIMEOUT_MS, "250",
            L2ClientContext.ENV_STALL_TIMEOUT_MS, "4000",
            L2ClientContext.ENV_BREAKER_THRESHOLD, "7",
            L2ClientContext.ENV_BREAKER_OPEN_MS, "1500"));
        assertEquals(URI.create("http://127.0.0.1:9/base"), ctx.serverUri());
        assertEquals("abc", ctx.apiKey());
        assertEquals(Duration.ofMillis(250), ctx.abandonTimeout());
        assertEquals(Duration.ofMillis(4000), ctx.stallTimeout());
        assertEquals(7, ctx.breakerThreshold());
        assertEquals(Duration.ofMillis(1500), ctx.breakerOpenTime());

        assertRefused(L2ClientContext.ENV_URL, "https://x:1");
        assertRefused(L2ClientContext.ENV_URL, "not a uri");
        assertRefused(L2ClientContext.ENV_API_KEY, " ");
        assertRefused(L2ClientContext.ENV_ABANDON_TIMEOUT_MS, "0");
        assertRefused(L2ClientContext.ENV_STALL_TIMEOUT_MS, "soon");
        assertRefused(L2ClientContext.ENV_BREAKER_THRESHOLD, "-1");
        assertRefused(L2ClientContext.ENV_BREAKER_OPEN_MS, "99999999999");
        assertRefused(L2ClientContext.ENV_WARM_QUEUE, "0");

        final IllegalArgumentException noUrl = assertThrows(IllegalArgumentException.class,
            () -> new L2ClientContext().apiKey("k").conclude());
        assertTrue(noUrl.getMessage().contains(L2ClientContext.ENV_URL), noUrl.getMessage());
        final IllegalArgumentException noKey = assertThrows(IllegalArgumentException.class,
            () -> new L2ClientContext().serverUri(URI.create("http://h:1")).conclude());
        assertTrue(noKey.getMessage().contains(L2ClientContext.ENV_API_KEY), noKey.getMessage());
    }

    private static void assertRefused(final String name, final String value)
    {
        final IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
            () -> new L2ClientContext().fromEnvironment(Map.of(name, value)));
        assertTrue(error.getMessage().contains(name), error.getMessage());
    }
}
