package dev.offcache.transport;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.offcache.transport.client.PayloadClient;
import dev.offcache.transport.client.FetchException;
import dev.offcache.transport.media.AeronMedia;
import dev.offcache.transport.media.TransportChannels;
import dev.offcache.transport.server.PayloadServer;
import dev.offcache.transport.source.DirectBufferPayloadSource;
import dev.offcache.transport.wire.ErrorCode;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static dev.offcache.transport.TestSupport.assertBytesEqual;
import static dev.offcache.transport.TestSupport.filledDirect;
import static dev.offcache.transport.TestSupport.join;
import static dev.offcache.transport.TestSupport.randomDirect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A caller waiting for its fetch runs the client's duty cycle itself (real media driver): its response is delivered
 * on the caller's thread, byte-exact; a fetch nobody waits for is still served by the client's agent thread; waiting
 * for a fetch from inside the duty cycle is refused instead of hanging; closing the client while callers drive
 * fails them with {@code CLIENT_CLOSED} and gives everything back; an interrupt ends {@code get()} at once, while
 * {@code join()} waits for the fetch's end and keeps the interrupt status.
 */
class CallerDrivenFetchTest
{
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final int LARGE = 8 * 1024 * 1024;

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void aWaitingCallerReceivesItsOwnResponseAndAFetchNobodyWaitsForIsServedByTheAgent(final boolean ipc)
        throws Exception
    {
        final UnsafeBuffer block = randomDirect(LARGE, 71);
        final DirectBufferPayloadSource source = new DirectBufferPayloadSource().register("block", block);
        try (AeronMedia media = TestSupport.launchTestMedia())
        {
            final String channel = ipc ? TransportChannels.IPC :
                TransportChannels.udp("127.0.0.1", TestSupport.freeUdpPort());
            try (PayloadServer server = PayloadServer.launch(new PayloadServer.Context().aeron(media.aeron())
                    .payloadSource(source).requestChannel(channel));
                PayloadClient client = PayloadClient.connect(new PayloadClient.Context().aeron(media.aeron())
                    .requestChannel(channel)))
            {
                // connected first, so that the joined fetch below has a response coming from its first cycle
                TestSupport.awaitTrue("the client to connect", WAIT, client::isConnected);
                final Thread caller = Thread.currentThread();
                final UnsafeBuffer joined = filledDirect(LARGE, (byte) 0);
                final AtomicInteger onCaller = new AtomicInteger();
                final AtomicInteger elsewhere = new AtomicInteger();
                final long length = client.stream("block", 0, -1, (buffer, offset, len, position, total) ->
                {
                    (Thread.currentThread() == caller ? onCaller : elsewhere).incrementAndGet();
                    joined.putBytes((int) position, buffer, offset, len);
                }, TimeUnit.SECONDS.toNanos(10)).join();
                assertEquals(LARGE, length);
                assertBytesEqual(block, 0, joined, 0, LARGE);
                assertTrue(onCaller.get() > 0, "pieces delivered on the waiting caller's thread: " + onCaller +
                    ", elsewhere: " + elsewhere);

                final UnsafeBuffer async = filledDirect(LARGE, (byte) 0);
                final AtomicReference<Thread> deliveredOn = new AtomicReference<>();
                final CompletableFuture<Long> unwaited = client.stream("block", 0, -1,
                    (buffer, offset, len, position, total) ->
                    {
                        deliveredOn.compareAndSet(null, Thread.currentThread());
                        async.putBytes((int) position, buffer, offset, len);
                    }, TimeUnit.SECONDS.toNanos(10));
                TestSupport.awaitTrue("the fetch nobody waits for to complete", WAIT, unwaited::isDone);
                assertEquals(LARGE, unwaited.getNow(-1L));
                assertBytesEqual(block, 0, async, 0, LARGE);
                assertNotNull(deliveredOn.get());
                assertTrue(deliveredOn.get() != caller, "delivered by the client's agent thread");
                assertEquals(2, server.counters().requests());
            }
        }
        assertEquals(0, source.openHandles());
    }

    @Test
    void waitingForAFetchFromInsideTheDutyCycleIsRefusedAndThatFetchIsStillServed()
    {
        final UnsafeBuffer block = randomDirect(1024 * 1024, 72);
        final UnsafeBuffer small = randomDirect(4096, 73);
        final DirectBufferPayloadSource source = new DirectBufferPayloadSource().register("block", block)
            .register("small", small);
        try (AeronMedia media = TestSupport.launchTestMedia();
            PayloadServer server = PayloadServer.launch(new PayloadServer.Context().aeron(media.aeron())
                .payloadSource(source).requestChannel(TransportChannels.IPC));
            PayloadClient client = PayloadClient.connect(new PayloadClient.Context().aeron(media.aeron())
                .requestChannel(TransportChannels.IPC)))
        {
            final UnsafeBuffer smallDestination = filledDirect(small.capacity(), (byte) 0);
            final AtomicReference<CompletableFuture<Long>> inner = new AtomicReference<>();
            final AtomicReference<Throwable> refused = new AtomicReference<>();
            final long length = join(client.stream("block", 0, -1, (buffer, offset, len, position, total) ->
            {
                if (inner.get() == null)
                {
                    inner.set(client.fetch("small", smallDestination, 0));
                    try
                    {
                        inner.get().join(); // would never end: this thread runs the cycle that would answer it
                    }
                    catch (final IllegalStateException ex)
                    {
                        refused.set(ex);
                    }
                }
            }, TimeUnit.SECONDS.toNanos(10)), WAIT);
            assertEquals(block.capacity(), length);
            assertInstanceOf(IllegalStateException.class, refused.get());
            assertEquals(small.capacity(), join(inner.get(), WAIT));
            assertBytesEqual(small, 0, smallDestination, 0, small.capacity());
            assertEquals(2, server.counters().requests());
        }
        assertEquals(0, source.openHandles());
    }

    @Test
    void closingTheClientWhileCallersDriveFailsThemAndGivesEverythingBack() throws Exception
    {
        final UnsafeBuffer block = randomDirect(16 * 1024 * 1024, 74);
        final DirectBufferPayloadSource source = new DirectBufferPayloadSource().register("block", block);
        final Path dir;
        try (AeronMedia media = TestSupport.launchTestMedia())
        {
            dir = Paths.get(media.aeronDirectoryName());
            final PayloadServer server = PayloadServer.launch(new PayloadServer.Context().aeron(media.aeron())
                .payloadSource(source).requestChannel(TransportChannels.IPC));
            final PayloadClient client = PayloadClient.connect(new PayloadClient.Context().aeron(media.aeron())
                .requestChannel(TransportChannels.IPC));
            final int callers = 4;
            final List<Thread> threads = new ArrayList<>();
            final List<AtomicReference<Throwable>> endings = new ArrayList<>();
            final AtomicInteger completed = new AtomicInteger();
            for (int t = 0; t < callers; t++)
            {
                final AtomicReference<Throwable> ending = new AtomicReference<>();
                endings.add(ending);
                final UnsafeBuffer destination = filledDirect(block.capacity(), (byte) 0);
                final Thread thread = new Thread(() ->
                {
                    try
                    {
                        while (true)
                        {
                            assertEquals(block.capacity(), client.fetch("block", destination, 0).join());
                            assertBytesEqual(block, 0, destination, 0, block.capacity());
                            completed.incrementAndGet();
                        }
                    }
                    catch (final Throwable ex)
                    {
                        ending.set(ex);
                    }
                }, "caller-" + t);
                threads.add(thread);
                thread.start();
            }
            TestSupport.awaitTrue("every caller to have fetched", WAIT, () -> completed.get() >= callers);
            client.close();
            for (final Thread thread : threads)
            {
                thread.join(TimeUnit.SECONDS.toMillis(10));
                assertFalse(thread.isAlive(), thread.getName() + " still waiting after close (a hang)");
            }
            for (final AtomicReference<Throwable> ending : endings)
            {
                final CompletionException ex = assertInstanceOf(CompletionException.class, ending.get());
                final FetchException cause = assertInstanceOf(FetchException.class, ex.getCause());
                assertEquals(ErrorCode.CLIENT_CLOSED, cause.errorCode(), cause.getMessage());
            }
            TestSupport.awaitTrue("the server to release every handle", WAIT, () -> source.openHandles() == 0);
            server.close();
            TestSupport.awaitTrue("the driver to free every publication and subscription", WAIT,
                () -> TestSupport.publicationAndSubscriptionCounters(media.aeron().countersReader()) == 0);
        }
        assertEquals(0, source.openHandles());
        assertFalse(Files.exists(dir), "embedded driver directory deleted on close: " + dir);
    }

    @Test
    void anInterruptEndsGetAtOnceWhileJoinWaitsForTheFetchAndKeepsTheInterrupt() throws Exception
    {
        try (AeronMedia media = TestSupport.launchTestMedia())
        {
            final String udp = TransportChannels.udp("127.0.0.1", TestSupport.freeUdpPort()); // nobody serves it
            final PayloadClient client = PayloadClient.connect(new PayloadClient.Context().aeron(media.aeron())
                .requestChannel(udp));
            final UnsafeBuffer destination = filledDirect(16, (byte) 0);
            final CompletableFuture<Long> unanswered = client.fetch("x", 0, -1, destination, 0,
                TimeUnit.SECONDS.toNanos(60));
            final AtomicReference<Throwable> getEnding = new AtomicReference<>();
            final Thread getter = new Thread(() ->
            {
                try
                {
                    unanswered.get();
                }
                catch (final Throwable ex)
                {
                    getEnding.set(ex);
                }
            });
            getter.start();
            Thread.sleep(100);
            getter.interrupt();
            getter.join(TimeUnit.SECONDS.toMillis(5));
            assertFalse(getter.isAlive(), "get() still waiting after an interrupt");
            assertInstanceOf(InterruptedException.class, getEnding.get());
            assertFalse(unanswered.isDone());

            final AtomicReference<Throwable> joinEnding = new AtomicReference<>();
            final AtomicReference<Boolean> interruptKept = new AtomicReference<>();
            final Thread joiner = new Thread(() ->
            {
                try
                {
                    unanswered.join();
                }
                catch (final Throwable ex)
                {
                    joinEnding.set(ex);
                }
                interruptKept.set(Thread.currentThread().isInterrupted());
            });
            joiner.start();
            Thread.sleep(100);
            joiner.interrupt();
            Thread.sleep(300);
            assertTrue(joiner.isAlive(), "join() does not end on an interrupt");
            client.close();
            joiner.join(TimeUnit.SECONDS.toMillis(5));
            assertFalse(joiner.isAlive(), "join() still waiting after close");
            final FetchException cause = assertInstanceOf(FetchException.class,
                assertInstanceOf(CompletionException.class, joinEnding.get()).getCause());
            assertEquals(ErrorCode.CLIENT_CLOSED, cause.errorCode());
            assertTrue(interruptKept.get(), "join() keeps the interrupt status");
        }
    }
}
