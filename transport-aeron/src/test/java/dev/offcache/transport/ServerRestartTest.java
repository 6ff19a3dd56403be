package dev.offcache.transport;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

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
import static dev.offcache.transport.TestSupport.failure;
import static dev.offcache.transport.TestSupport.filledDirect;
import static dev.offcache.transport.TestSupport.join;
import static dev.offcache.transport.TestSupport.randomDirect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The server goes away in the middle of a 64 MiB stream: the client fails within its deadline with a clear
 * error (no hang), releases nothing it should keep, fails the next fetch at once while the connection is known lost,
 * and once it has reconnected to a restarted server its fetches work again.
 * Also: a server at its in-flight limit answers OVERLOADED, and the held request still completes intact; a client
 * that stops reading (its publication back-pressured) does not hold up another client's fetches.
 */
class ServerRestartTest
{
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(5);

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void serverStoppedMidStreamFailsTheFetchAndARestartedServerServesTheNext(final boolean ipc) throws Exception
    {
        final UnsafeBuffer large = randomDirect(64 * 1024 * 1024, 11);
        final UnsafeBuffer small = randomDirect(1024 * 1024, 12);
        final DirectBufferPayloadSource source = new DirectBufferPayloadSource().register("large", large)
            .register("small", small);
        final String channel = ipc ? TransportChannels.IPC :
            TransportChannels.udp("127.0.0.1", TestSupport.freeUdpPort());
        try (AeronMedia media = TestSupport.launchTestMedia())
        {
            PayloadServer server = startServer(media, source, channel);
            try (PayloadClient client = PayloadClient.connect(new PayloadClient.Context().aeron(media.aeron())
                .requestChannel(channel).fetchTimeoutNs(DEADLINE_NS)))
            {
                final CountDownLatch firstPiece = new CountDownLatch(1);
                final CountDownLatch serverStopped = new CountDownLatch(1);
                final long[] received = new long[1];
                final long start = System.nanoTime();
                final CompletableFuture<Long> stream = client.stream("large", 0, -1,
                    (buffer, offset, length, position, total) ->
                    {
                        received[0] += length;
                        if (firstPiece.getCount() > 0)
                        {
                            firstPiece.countDown();
                            await(serverStopped); // hold the client so the server is surely mid-stream
                        }
                    }, DEADLINE_NS);
                assertTrue(firstPiece.await(10, TimeUnit.SECONDS), "first piece arrived");
                server.close();
                serverStopped.countDown();
                final FetchException ex = failure(stream, WAIT);
                final long elapsedNs = System.nanoTime() - start;
                TestSupport.assertCode(ErrorCode.CONNECTION_LOST, ex);
                assertTrue(elapsedNs < DEADLINE_NS + TimeUnit.SECONDS.toNanos(1),
                    "failed after " + elapsedNs / 1_000_000 + " ms, deadline " + DEADLINE_NS / 1_000_000 + " ms");
                assertTrue(received[0] < large.capacity(), "the stream was really cut: " + received[0]);
                assertEquals(0, source.openHandles(), "stopped server released its handle");
                System.out.println((ipc ? "IPC" : "UDP") + " mid-stream stop -> " + ex.getMessage());

                // A known-lost connection fails new fetches at once instead of holding them until their deadline.
                final long lostAt = System.nanoTime();
                final FetchException fast = failure(client.fetch("small", 0, -1, filledDirect(small.capacity(),
                    (byte) 0), 0, TimeUnit.SECONDS.toNanos(60)), WAIT);
                TestSupport.assertCode(ErrorCode.CONNECTION_LOST, fast);
                assertTrue(System.nanoTime() - lostAt < TimeUnit.SECONDS.toNanos(20),
                    "failed fast, not at its 60 s deadline");

                server = startServer(media, source, channel);
                TestSupport.awaitTrue("the client to reconnect", WAIT, client::isConnected);
                final UnsafeBuffer destination = filledDirect(small.capacity(), (byte) 0);
                assertEquals(small.capacity(), join(client.fetch("small", destination, 0), WAIT));
                assertBytesEqual(small, 0, destination, 0, small.capacity());
            }
            finally
            {
                server.close();
            }
            assertEquals(0, source.openHandles());
        }
    }

    @Test
    void serverAtItsInFlightLimitAnswersOverloadedAndFinishesTheHeldRequest() throws Exception
    {
        final UnsafeBuffer large = randomDirect(64 * 1024 * 1024, 21);
        final UnsafeBuffer small = randomDirect(4096, 22);
        final DirectBufferPayloadSource source = new DirectBufferPayloadSource().register("large", large)
            .register("small", small);
        try (AeronMedia media = TestSupport.launchTestMedia();
            PayloadServer server = PayloadServer.launch(new PayloadServer.Context().aeron(media.aeron())
                .payloadSource(source).requestChannel(TransportChannels.IPC).maxInFlightRequests(1));
            PayloadClient holder = PayloadClient.connect(new PayloadClient.Context().aeron(media.aeron())
                .requestChannel(TransportChannels.IPC));
            PayloadClient other = PayloadClient.connect(new PayloadClient.Context().aeron(media.aeron())
                .requestChannel(TransportChannels.IPC)))
        {
            final CountDownLatch firstPiece = new CountDownLatch(1);
            final CountDownLatch probed = new CountDownLatch(1);
            final UnsafeBuffer copy = filledDirect(large.capacity(), (byte) 0);
            final CompletableFuture<Long> held = holder.stream("large", 0, -1,
                (buffer, offset, length, position, total) ->
                {
                    copy.putBytes((int) position, buffer, offset, length);
                    if (firstPiece.getCount() > 0)
                    {
                        firstPiece.countDown();
                        await(probed); // keep the server's only slot busy while the other client probes
                    }
                }, TimeUnit.SECONDS.toNanos(30));
            assertTrue(firstPiece.await(10, TimeUnit.SECONDS));
            for (int i = 0; i < 4; i++)
            {
                final UnsafeBuffer destination = filledDirect(4096, (byte) 0x77);
                final FetchException ex = failure(other.fetch("small", destination, 0), WAIT);
                TestSupport.assertCode(ErrorCode.OVERLOADED, ex);
                TestSupport.assertAllBytes(destination, 4096, (byte) 0x77);
            }
            // the held client reads nothing while blocked, so its 16 MiB term filled: back-pressure was met, counted,
            // and retried rather than dropped (the stream below still completes intact)
            TestSupport.awaitTrue("back-pressure events to be counted", Duration.ofSeconds(10),
                () -> server.counters().backPressureEvents() > 0);
            probed.countDown();
            assertEquals(large.capacity(), join(held, WAIT));
            assertBytesEqual(large, 0, copy, 0, large.capacity());
            final UnsafeBuffer destination = filledDirect(4096, (byte) 0);
            assertEquals(4096, join(other.fetch("small", destination, 0), WAIT));
            assertBytesEqual(small, 0, destination, 0, 4096);
            assertTrue(server.counters().errors() >= 4);
        }
        assertEquals(0, source.openHandles());
    }

    @Test
    void aStalledClientDoesNotHoldUpAnotherClientsFetches() throws Exception
    {
        final UnsafeBuffer large = randomDirect(64 * 1024 * 1024, 31);
        final UnsafeBuffer oneMiB = randomDirect(1024 * 1024, 32);
        final DirectBufferPayloadSource source = new DirectBufferPayloadSource().register("large", large)
            .register("one-mib", oneMiB);
        try (AeronMedia media = TestSupport.launchTestMedia();
            PayloadServer server = PayloadServer.launch(new PayloadServer.Context().aeron(media.aeron())
                .payloadSource(source).requestChannel(TransportChannels.IPC));
            PayloadClient stalled = PayloadClient.connect(new PayloadClient.Context().aeron(media.aeron())
                .requestChannel(TransportChannels.IPC));
            PayloadClient other = PayloadClient.connect(new PayloadClient.Context().aeron(media.aeron())
                .requestChannel(TransportChannels.IPC)))
        {
            final CountDownLatch firstPiece = new CountDownLatch(1);
            final CountDownLatch othersDone = new CountDownLatch(1);
            final CompletableFuture<Long> held = stalled.stream("large", 0, -1,
                (buffer, offset, length, position, total) ->
                {
                    if (firstPiece.getCount() > 0)
                    {
                        firstPiece.countDown();
                        await(othersDone);
                    }
                }, TimeUnit.SECONDS.toNanos(30));
            assertTrue(firstPiece.await(10, TimeUnit.SECONDS));
            TestSupport.awaitTrue("the stalled client's publication to fill", Duration.ofSeconds(10),
                () -> server.counters().backPressureEvents() > 0);
            for (int i = 0; i < 8; i++)
            {
                final UnsafeBuffer destination = filledDirect(oneMiB.capacity(), (byte) 0);
                assertEquals(oneMiB.capacity(), join(other.fetch("one-mib", destination, 0), WAIT));
                assertBytesEqual(oneMiB, 0, destination, 0, oneMiB.capacity());
            }
            assertFalse(held.isDone(), "the stalled stream is still waiting");
            othersDone.countDown();
            assertEquals(large.capacity(), join(held, WAIT));
        }
        assertEquals(0, source.openHandles());
    }

    private static PayloadServer startServer(
        final AeronMedia media, final DirectBufferPayloadSource source, final String channel)
    {
        return PayloadServer.launch(new PayloadServer.Context().aeron(media.aeron()).payloadSource(source)
            .requestChannel(channel));
    }

    private static void await(final CountDownLatch latch)
    {
        try
        {
            if (!latch.await(20, TimeUnit.SECONDS))
            {
                throw new IllegalStateException("test latch not released");
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }
}
