package dev.offcache.transport.client;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import dev.offcache.transport.TestSupport;
import dev.offcache.transport.media.AeronMedia;
import dev.offcache.transport.media.TransportChannels;
import dev.offcache.transport.server.PayloadServer;
import dev.offcache.transport.source.DirectBufferPayloadSource;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.YieldingIdleStrategy;
import org.junit.jupiter.api.Test;

import static dev.offcache.transport.TestSupport.assertBytesEqual;
import static dev.offcache.transport.TestSupport.filledDirect;
import static dev.offcache.transport.TestSupport.randomDirect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How a waiting caller and the client's agent thread share the duty cycle ({@link ClientDuty}), against a real media
 * driver: a caller waiting for a fetch nothing answers allocates nothing per wait slice; an interrupt ends a
 * {@code get()} that is driving the cycle; the agent thread stays parked through a run of synchronous fetches.
 */
class ClientDutyTest
{
    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void aCallerWaitingForAnUnansweredFetchAllocatesNothingPerWaitSlice() throws Exception
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (AeronMedia media = TestSupport.launchTestMedia())
        {
            final String udp = TransportChannels.udp("127.0.0.1", TestSupport.freeUdpPort()); // nobody serves it
            try (PayloadClient client = PayloadClient.connect(new PayloadClient.Context().aeron(media.aeron())
                .requestChannel(udp)))
            {
                final UnsafeBuffer destination = filledDirect(16, (byte) 0);
                final CompletableFuture<Long> unanswered = client.fetch("x", 0, -1, destination, 0,
                    TimeUnit.SECONDS.toNanos(60));
                waitFor(unanswered, 50); // warm up the path (class loading, the one TimeoutException of the end)
                final long waitMs = 600;
                final long tid = Thread.currentThread().getId();
                final long before = threads.getThreadAllocatedBytes(tid);
                final long start = System.nanoTime();
                waitFor(unanswered, waitMs);
                final long elapsedUs = (System.nanoTime() - start) / 1000;
                final long allocated = threads.getThreadAllocatedBytes(tid) - before;
                assertTrue(elapsedUs >= waitMs * 1000, "waited the whole time: " + elapsedUs + " us");
                // 200 us slices: ~3,000 of them in 600 ms. Each one that allocated a TimeoutException (with its
                // stack trace) and a Signaller would add up to megabytes; what is left is the one exception at the
                // end of the wait.
                assertTrue(allocated < 32 * 1024, "allocated " + allocated + " bytes while waiting " +
                    elapsedUs / 1000 + " ms");
                assertFalse(unanswered.isDone());
            }
        }
    }

    @Test
    void anInterruptEndsAGetThatIsDrivingTheCycle() throws Exception
    {
        final int size = 32 * 1024 * 1024;
        final UnsafeBuffer block = randomDirect(size, 81);
        final DirectBufferPayloadSource source = new DirectBufferPayloadSource().register("block", block);
        try (AeronMedia media = TestSupport.launchTestMedia();
            PayloadServer server = PayloadServer.launch(new PayloadServer.Context().aeron(media.aeron())
                .payloadSource(source).requestChannel(TransportChannels.IPC));
            PayloadClient client = PayloadClient.connect(new PayloadClient.Context().aeron(media.aeron())
                .requestChannel(TransportChannels.IPC)))
        {
            TestSupport.awaitTrue("the client to connect", WAIT, client::isConnected);
            final AtomicInteger onGetter = new AtomicInteger();
            final AtomicReference<CompletableFuture<Long>> slow = new AtomicReference<>();
            final AtomicReference<Throwable> ending = new AtomicReference<>();
            final AtomicLong endedAtNs = new AtomicLong();
            final Thread thread = new Thread(() ->
            {
                final Thread self = Thread.currentThread();
                // ~500 fragments of 64 KiB at 4 ms each: about 2 s to read, on the thread that drives the cycle
                slow.set(client.stream("block", 0, -1, (buffer, offset, len, pos, total) ->
                {
                    if (Thread.currentThread() == self)
                    {
                        onGetter.incrementAndGet();
                    }
                    final long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(4);
                    for (long now = System.nanoTime(); now < end && !self.isInterrupted(); now = System.nanoTime())
                    {
                        LockSupport.parkNanos(end - now); // once interrupted, the rest of the cycle goes fast
                    }
                }, TimeUnit.SECONDS.toNanos(60)));
                try
                {
                    slow.get().get();
                }
                catch (final Throwable ex)
                {
                    ending.set(ex);
                }
                endedAtNs.set(System.nanoTime());
            }, "getter");
            thread.start();
            TestSupport.awaitTrue("the getter to drive the response", WAIT, () -> onGetter.get() >= 3);
            final long interruptedAtNs = System.nanoTime();
            thread.interrupt();
            thread.join(TimeUnit.SECONDS.toMillis(10));
            assertFalse(thread.isAlive(), "get() still driving after an interrupt");
            assertInstanceOf(InterruptedException.class, ending.get());
            final long tookMs = (endedAtNs.get() - interruptedAtNs) / 1_000_000;
            // the rest of one duty cycle at most, not the rest of the response
            assertTrue(tookMs < 1000, "get() ended " + tookMs + " ms after the interrupt");
            assertFalse(slow.get().isDone(), "the fetch goes on without the interrupted caller");
            slow.get().cancel(false);
            assertEquals(1, server.counters().requests());
        }
        TestSupport.awaitTrue("the server to release every handle", WAIT, () -> source.openHandles() == 0);
    }

    @Test
    void theAgentThreadStaysParkedThroughSynchronousFetches() throws Exception
    {
        final int size = 4096;
        final int fetches = 1000;
        final UnsafeBuffer block = randomDirect(size, 82);
        final DirectBufferPayloadSource source = new DirectBufferPayloadSource().register("block", block);
        try (AeronMedia media = TestSupport.launchTestMedia();
            PayloadServer server = PayloadServer.launch(new PayloadServer.Context().aeron(media.aeron())
                .payloadSource(source).requestChannel(TransportChannels.IPC));
            PayloadClient client = PayloadClient.connect(new PayloadClient.Context().aeron(media.aeron())
                .requestChannel(TransportChannels.IPC)))
        {
            TestSupport.awaitTrue("the client to connect", WAIT, client::isConnected);
            final UnsafeBuffer destination = filledDirect(size, (byte) 0);
            for (int i = 0; i < 50; i++)
            {
                assertEquals(size, client.fetch("block", destination, 0).join());
            }
            Thread.sleep(20); // let the agent thread back off to its longest park
            final long passesBefore = client.agentThreadPasses();
            final long start = System.nanoTime();
            for (int i = 0; i < fetches; i++)
            {
                assertEquals(size, client.fetch("block", destination, 0).join());
            }
            final long elapsedMs = (System.nanoTime() - start) / 1_000_000;
            final long passes = client.agentThreadPasses() - passesBefore;
            assertBytesEqual(block, 0, destination, 0, size);
            assertEquals(50 + fetches, server.counters().requests());
            // Parked, it wakes at most about once a millisecond (its longest park); woken by every fetch it would
            // pass at least once per fetch, and yield beside the caller.
            assertTrue(passes <= elapsedMs + fetches / 10, "the agent thread passed its duty cycle " + passes +
                " times during " + fetches + " synchronous fetches in " + elapsedMs + " ms");
        }
    }

    @Test
    void aFetchNobodyWaitsOnIsPolledAtOnceNotWhenTheAgentThreadsParkEnds() throws Exception
    {
        final int size = 4096;
        final long parkMs = 500;
        final UnsafeBuffer block = randomDirect(size, 83);
        final DirectBufferPayloadSource source = new DirectBufferPayloadSource().register("block", block);
        try (AeronMedia media = TestSupport.launchTestMedia();
            // a server that answers within microseconds, so each response comes within the client's 1 ms window
            // of awaiting it and only the agent thread's park can delay it
            PayloadServer server = PayloadServer.launch(new PayloadServer.Context().aeron(media.aeron())
                .payloadSource(source).requestChannel(TransportChannels.IPC).idleStrategy(new YieldingIdleStrategy()));
            PayloadClient client = PayloadClient.connect(new PayloadClient.Context().aeron(media.aeron())
                .requestChannel(TransportChannels.IPC)
                .idleStrategy(new SleepingIdleStrategy(TimeUnit.MILLISECONDS.toNanos(parkMs)))))
        {
            TestSupport.awaitTrue("the client to connect", WAIT, client::isConnected);
            final UnsafeBuffer destination = filledDirect(size, (byte) 0);
            final StringBuilder times = new StringBuilder();
            int polledAtOnce = 0;
            for (int i = 0; i < 10; i++)
            {
                Thread.sleep(5); // the agent thread, having served the last fetch, is in its 500 ms park now
                final CountDownLatch done = new CountDownLatch(1);
                final long start = System.nanoTime();
                // only a continuation: nobody calls join() or get(), so no caller drives the duty cycle
                client.fetch("block", destination, 0).thenRun(done::countDown);
                assertTrue(done.await(WAIT.toMillis(), TimeUnit.MILLISECONDS), "fetch " + i + " never completed");
                final long tookMs = (System.nanoTime() - start) / 1_000_000;
                times.append(tookMs).append(" ms ");
                polledAtOnce += tookMs < parkMs / 2 ? 1 : 0;
            }
            // Without the wake every one waits out the park (~495 ms). With it, a response the server is slower than
            // the client's 1 ms window of awaiting (a loaded machine) still falls back to the park, so most, not
            // all, are polled at once.
            assertTrue(polledAtOnce >= 5, "polled at once " + polledAtOnce + " of 10: " + times);
            assertBytesEqual(block, 0, destination, 0, size);
            assertEquals(10, server.counters().requests());
        }
    }

    private static void waitFor(final CompletableFuture<Long> future, final long ms) throws Exception
    {
        try
        {
            future.get(ms, TimeUnit.MILLISECONDS);
        }
        catch (final TimeoutException expected)
        {
            // what the wait ends with
        }
    }
}
