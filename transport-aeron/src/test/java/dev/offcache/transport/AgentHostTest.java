package dev.offcache.transport;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import dev.offcache.core.counters.CounterTypes;
import dev.offcache.transport.client.PayloadClient;
import dev.offcache.transport.media.AeronMedia;
import dev.offcache.transport.media.AgentHost;
import dev.offcache.transport.media.TransportChannels;
import dev.offcache.transport.server.PayloadServer;
import dev.offcache.transport.source.DirectBufferPayloadSource;
import dev.offcache.transport.wire.ErrorCode;
import io.aeron.driver.ThreadingMode;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersReader;
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
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A payload server on the embedded driver's own thread ({@code ThreadingMode.INVOKER}, {@code AgentHost}), against a
 * real media driver: byte-exact answers over IPC and UDP, alone and to concurrent callers; a server closed with a
 * fetch in flight releases its handle and the fetch fails; afterwards no publication, subscription or counter is
 * left and the driver's directory is gone.
 */
class AgentHostTest
{
    private static final Duration WAIT = Duration.ofSeconds(30);

    private static AeronMedia launchInvokerMedia()
    {
        return AeronMedia.launch(new AeronMedia.Context().threadingMode(ThreadingMode.INVOKER)
            .publicationLingerTimeoutNs(TimeUnit.MILLISECONDS.toNanos(200))
            .imageLivenessTimeoutNs(TimeUnit.SECONDS.toNanos(2)));
    }

    @Test
    void onlyAnEmbeddedInvokerDriverHasAnAgentHost()
    {
        try (AeronMedia invoker = launchInvokerMedia(); AeronMedia shared = TestSupport.launchTestMedia())
        {
            assertNotNull(invoker.agentHost());
            assertNull(shared.agentHost());
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void aServerOnTheDriversThreadAnswersByteExactToConcurrentCallers(final boolean ipc) throws Exception
    {
        final int[] sizes = {0, 17, 3 * 1024 * 1024 + 12_345};
        final DirectBufferPayloadSource source = new DirectBufferPayloadSource();
        final UnsafeBuffer[] blocks = new UnsafeBuffer[sizes.length];
        for (int i = 0; i < sizes.length; i++)
        {
            blocks[i] = randomDirect(Math.max(1, sizes[i]), 80 + i);
            source.register("b" + i, new UnsafeBuffer(blocks[i], 0, sizes[i]));
        }
        final Path dir;
        try (AeronMedia media = launchInvokerMedia())
        {
            dir = Paths.get(media.aeronDirectoryName());
            final CountersReader counters = media.aeron().countersReader();
            final String channel = ipc ? TransportChannels.IPC :
                TransportChannels.udp("127.0.0.1", TestSupport.freeUdpPort());
            final PayloadServer server = PayloadServer.launch(new PayloadServer.Context().aeron(media.aeron())
                .payloadSource(source).requestChannel(channel).agentHost(media.agentHost()));
            final PayloadClient client = PayloadClient.connect(new PayloadClient.Context().aeron(media.aeron())
                .requestChannel(channel));
            for (int i = 0; i < sizes.length; i++)
            {
                final UnsafeBuffer destination = filledDirect(Math.max(1, sizes[i]), (byte) 0);
                assertEquals(sizes[i], join(client.fetch("b" + i, destination, 0), WAIT));
                assertBytesEqual(blocks[i], 0, destination, 0, sizes[i]);
            }
            final int callers = 6;
            final int rounds = 10;
            final ExecutorService pool = Executors.newFixedThreadPool(callers);
            try
            {
                final List<Future<Integer>> results = new ArrayList<>();
                for (int t = 0; t < callers; t++)
                {
                    final int seed = t;
                    results.add(pool.submit(() ->
                    {
                        final UnsafeBuffer destination = filledDirect(blocks[2].capacity(), (byte) 0);
                        for (int r = 0; r < rounds; r++)
                        {
                            final int i = (seed + r) % sizes.length;
                            assertEquals(sizes[i], client.fetch("b" + i, destination, 0).join());
                            assertBytesEqual(blocks[i], 0, destination, 0, sizes[i]);
                        }
                        return rounds;
                    }));
                }
                for (final Future<Integer> result : results)
                {
                    assertEquals(rounds, result.get(60, TimeUnit.SECONDS));
                }
            }
            finally
            {
                pool.shutdownNow();
            }
            assertEquals(sizes.length + callers * rounds, server.counters().requests());
            client.close();
            server.close();
            TestSupport.awaitTrue("the driver to free every publication and subscription", WAIT,
                () -> TestSupport.publicationAndSubscriptionCounters(counters) == 0);
            TestSupport.awaitTrue("the server's counters to be freed", WAIT,
                () -> TestSupport.countersOfType(counters, CounterTypes.TRANSPORT_REQUESTS) == 0);
        }
        assertEquals(0, source.openHandles());
        assertFalse(Files.exists(dir), "embedded driver directory deleted on close: " + dir);
    }

    @Test
    void aHostedServerClosedAfterItsMediaAndALaunchOntoAClosedHostAreRefusedCleanly()
    {
        final DirectBufferPayloadSource source = new DirectBufferPayloadSource();
        final AeronMedia media = launchInvokerMedia();
        final PayloadServer server = PayloadServer.launch(new PayloadServer.Context().aeron(media.aeron())
            .payloadSource(source).requestChannel(TransportChannels.IPC).agentHost(media.agentHost()));
        media.close();
        // the host closed the server's agent with itself; the server's own close then has nothing left to do
        server.close();
        final IllegalStateException refused = assertThrows(
            IllegalStateException.class, () -> media.agentHost().add(new Agent()
            {
                public int doWork()
                {
                    return 0;
                }

                public String roleName()
                {
                    return "late";
                }
            }));
        assertTrue(refused.getMessage().contains("closed"), refused.getMessage());
    }

    @Test
    void aHostedAgentsFailuresAreCountedWithoutStoppingTheHostAndItsCloseReturnsOnceItClosed()
    {
        final UnsafeBuffer block = randomDirect(1024 * 1024, 91);
        final DirectBufferPayloadSource source = new DirectBufferPayloadSource().register("block", block);
        try (AeronMedia media = launchInvokerMedia();
            AtomicCounter errors = media.aeron().addCounter(CounterTypes.TRANSPORT_ERRORS, "hosted test errors");
            PayloadServer server = PayloadServer.launch(new PayloadServer.Context().aeron(media.aeron())
                .payloadSource(source).requestChannel(TransportChannels.IPC).agentHost(media.agentHost()));
            PayloadClient client = PayloadClient.connect(new PayloadClient.Context().aeron(media.aeron())
                .requestChannel(TransportChannels.IPC)))
        {
            final AtomicBoolean closed = new AtomicBoolean();
            final AgentHost.Hosted failing = media.agentHost().add(new Agent()
            {
                public int doWork()
                {
                    throw new IllegalStateException("fails on every pass");
                }

                public void onClose()
                {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50)); // a close that did not wait sees false
                    closed.set(true);
                }

                public String roleName()
                {
                    return "failing";
                }
            }, errors);
            TestSupport.awaitTrue("failures to be counted", WAIT, () -> errors.get() >= 5);
            // the driver and the hosted server still run their passes beside the failing agent
            final UnsafeBuffer destination = filledDirect(block.capacity(), (byte) 0);
            assertEquals(block.capacity(), join(client.fetch("block", destination, 0), WAIT));
            assertBytesEqual(block, 0, destination, 0, block.capacity());
            failing.close();
            assertTrue(closed.get(), "close() returns once the agent's onClose ran");
            assertTrue(failing.isClosed());
            final long counted = errors.get();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            assertEquals(counted, errors.get(), "no pass of the removed agent after its close");
            assertEquals(1, server.counters().requests());
        }
        assertEquals(0, source.openHandles());
    }

    @Test
    void closingAHostedServerWithAFetchInFlightReleasesItsHandleAndFailsTheFetch()
    {
        final UnsafeBuffer large = randomDirect(64 * 1024 * 1024, 90);
        final DirectBufferPayloadSource source = new DirectBufferPayloadSource().register("large", large);
        try (AeronMedia media = launchInvokerMedia())
        {
            final PayloadServer server = PayloadServer.launch(new PayloadServer.Context().aeron(media.aeron())
                .payloadSource(source).requestChannel(TransportChannels.IPC).agentHost(media.agentHost()));
            try (PayloadClient client = PayloadClient.connect(new PayloadClient.Context().aeron(media.aeron())
                .requestChannel(TransportChannels.IPC).fragmentLimit(1)))
            {
                // a reader slow enough (1 ms a fragment) for the server to close long before the end
                final UnsafeBuffer destination = new UnsafeBuffer(filledDirect(large.capacity(), (byte) 0))
                {
                    @Override
                    public void putBytes(final int index, final DirectBuffer src, final int srcIndex, final int length)
                    {
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                        super.putBytes(index, src, srcIndex, length);
                    }
                };
                final CompletableFuture<Long> inFlight = client.fetch("large", 0, -1, destination, 0,
                    TimeUnit.SECONDS.toNanos(5));
                TestSupport.awaitTrue("the server to hold the handle", WAIT, () -> source.openHandles() == 1);
                server.close();
                assertEquals(0, source.openHandles(), "handle released by the server's close");
                final int code = failure(inFlight, WAIT).errorCode();
                assertTrue(code == ErrorCode.CONNECTION_LOST || code == ErrorCode.TIMEOUT, "failed with " + code);
            }
            TestSupport.awaitTrue("the driver to free every publication and subscription", WAIT,
                () -> TestSupport.publicationAndSubscriptionCounters(media.aeron().countersReader()) == 0);
        }
    }
}
