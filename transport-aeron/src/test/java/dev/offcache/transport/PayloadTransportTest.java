package dev.offcache.transport;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.offcache.transport.client.PayloadClient;
import dev.offcache.transport.client.FetchException;
import dev.offcache.transport.media.AeronMedia;
import dev.offcache.transport.media.TransportChannels;
import dev.offcache.transport.server.PayloadServer;
import dev.offcache.transport.source.DirectBufferPayloadSource;
import dev.offcache.transport.wire.ErrorCode;
import org.agrona.CloseHelper;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static dev.offcache.transport.TestSupport.assertAllBytes;
import static dev.offcache.transport.TestSupport.assertBytesEqual;
import static dev.offcache.transport.TestSupport.assertCode;
import static dev.offcache.transport.TestSupport.failure;
import static dev.offcache.transport.TestSupport.filledDirect;
import static dev.offcache.transport.TestSupport.join;
import static dev.offcache.transport.TestSupport.randomDirect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fetches over a real embedded media driver, over IPC and over UDP on 127.0.0.1: bytes equal to the source for
 * every size, alone and 32 at once, streamed and into a buffer; error frames for bad requests.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PayloadTransportTest
{
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final int MIB = 1024 * 1024;

    enum Transport
    {
        IPC, UDP
    }

    private final DirectBufferPayloadSource source = new DirectBufferPayloadSource();
    private final UnsafeBuffer empty = filledDirect(0, (byte) 0);
    private final UnsafeBuffer small = randomDirect(17, 1);
    private final UnsafeBuffer oneMiB = randomDirect(MIB, 2);
    private final UnsafeBuffer odd = randomDirect(3 * MIB + 12_345, 3);
    private final UnsafeBuffer large = randomDirect(64 * MIB, 4);
    private AeronMedia media;
    private PayloadServer ipcServer;
    private PayloadServer udpServer;
    private PayloadClient ipcClient;
    private PayloadClient udpClient;

    @BeforeAll
    void start()
    {
        source.register("empty", empty).register("small", small).register("one-mib", oneMiB)
            .register("odd", odd).register("large", large);
        media = TestSupport.launchTestMedia();
        final String udpChannel = TransportChannels.udp("127.0.0.1", TestSupport.freeUdpPort());
        ipcServer = PayloadServer.launch(new PayloadServer.Context().aeron(media.aeron()).payloadSource(source)
            .requestChannel(TransportChannels.IPC).requestStreamId(7001).serverName("ipc-test"));
        udpServer = PayloadServer.launch(new PayloadServer.Context().aeron(media.aeron()).payloadSource(source)
            .requestChannel(udpChannel).requestStreamId(7002).serverName("udp-test"));
        ipcClient = PayloadClient.connect(new PayloadClient.Context().aeron(media.aeron())
            .requestChannel(TransportChannels.IPC).requestStreamId(7001));
        udpClient = PayloadClient.connect(new PayloadClient.Context().aeron(media.aeron())
            .requestChannel(udpChannel).requestStreamId(7002));
    }

    @AfterAll
    void stop()
    {
        CloseHelper.closeAll(ipcClient, udpClient, ipcServer, udpServer);
        assertEquals(0, source.openHandles(), "block handles still held after the servers closed");
        CloseHelper.close(media);
    }

    private PayloadClient client(final Transport transport)
    {
        return transport == Transport.IPC ? ipcClient : udpClient;
    }

    private PayloadServer server(final Transport transport)
    {
        return transport == Transport.IPC ? ipcServer : udpServer;
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void fetchedBytesEqualTheSourceForEverySize(final Transport transport)
    {
        final PayloadClient client = client(transport);
        final String[] ids = {"empty", "small", "one-mib", "odd", "large"};
        final UnsafeBuffer[] sources = {empty, small, oneMiB, odd, large};
        for (int i = 0; i < ids.length; i++)
        {
            final UnsafeBuffer destination = filledDirect(sources[i].capacity() + 8, (byte) 0x5A);
            final long length = join(client.fetch(ids[i], destination, 4), WAIT);
            assertEquals(sources[i].capacity(), length, ids[i]);
            assertBytesEqual(sources[i], 0, destination, 4, sources[i].capacity());
            assertEquals((byte) 0x5A, destination.getByte(3), "byte before the destination offset untouched");
            assertEquals((byte) 0x5A, destination.getByte(4 + sources[i].capacity()), "byte after untouched");
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void thirtyTwoConcurrentFetchesOverOneConnectionAllArriveIntact(final Transport transport)
    {
        final PayloadClient client = client(transport);
        final String[] ids = {"small", "one-mib", "odd", "empty"};
        final UnsafeBuffer[] sources = {small, oneMiB, odd, empty};
        final List<CompletableFuture<Long>> futures = new ArrayList<>();
        final List<UnsafeBuffer> destinations = new ArrayList<>();
        for (int i = 0; i < 32; i++)
        {
            final UnsafeBuffer destination = filledDirect(sources[i % 4].capacity(), (byte) 0);
            destinations.add(destination);
            futures.add(client.fetch(ids[i % 4], destination, 0));
        }
        for (int i = 0; i < 32; i++)
        {
            assertEquals(sources[i % 4].capacity(), join(futures.get(i), WAIT));
            assertBytesEqual(sources[i % 4], 0, destinations.get(i), 0, sources[i % 4].capacity());
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void streamedPiecesArriveInOrderAndReassembleToTheSource(final Transport transport)
    {
        final UnsafeBuffer copy = filledDirect(odd.capacity(), (byte) 0);
        final AtomicLong expectedPosition = new AtomicLong();
        final AtomicLong pieces = new AtomicLong();
        final CompletableFuture<Long> future = client(transport).stream("odd", 0, -1,
            (buffer, offset, length, position, total) ->
            {
                if (position != expectedPosition.get() || total != odd.capacity())
                {
                    throw new IllegalStateException("piece at " + position + " of " + total + ", expected " +
                        expectedPosition.get());
                }
                copy.putBytes((int) position, buffer, offset, length);
                expectedPosition.addAndGet(length);
                pieces.incrementAndGet();
            }, TimeUnit.SECONDS.toNanos(20));
        assertEquals(odd.capacity(), join(future, WAIT));
        assertEquals(odd.capacity(), expectedPosition.get());
        assertTrue(pieces.get() > 1, "a 3 MiB payload arrives in several pieces");
        assertBytesEqual(odd, 0, copy, 0, odd.capacity());
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void rangeFetchReturnsExactlyTheRange(final Transport transport)
    {
        final UnsafeBuffer destination = filledDirect(1_000_000, (byte) 0);
        final long length = join(client(transport).fetch("odd", 777_777, 1_000_000, destination, 0,
            TimeUnit.SECONDS.toNanos(10)), WAIT);
        assertEquals(1_000_000, length);
        assertBytesEqual(odd, 777_777, destination, 0, 1_000_000);

        final UnsafeBuffer tail = filledDirect(100, (byte) 0);
        assertEquals(100, join(client(transport).fetch("odd", odd.capacity() - 100, -1, tail, 0,
            TimeUnit.SECONDS.toNanos(10)), WAIT));
        assertBytesEqual(odd, odd.capacity() - 100, tail, 0, 100);
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void unknownIdGetsNotFoundAndWritesNothing(final Transport transport)
    {
        final long errorsBefore = server(transport).counters().errors();
        final UnsafeBuffer destination = filledDirect(4096, (byte) 0x33);
        final FetchException ex = failure(client(transport).fetch("no-such-block", destination, 0), WAIT);
        assertCode(ErrorCode.NOT_FOUND, ex);
        assertTrue(ex.getMessage().contains("no-such-block"), ex.getMessage());
        assertAllBytes(destination, 4096, (byte) 0x33);
        assertTrue(server(transport).counters().errors() > errorsBefore, "error counted");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void rangePastTheEndIsABadRequest(final Transport transport)
    {
        final UnsafeBuffer destination = filledDirect(64, (byte) 0x44);
        final FetchException ex = failure(client(transport).fetch("small", 10, 20, destination, 0,
            TimeUnit.SECONDS.toNanos(10)), WAIT);
        assertCode(ErrorCode.BAD_REQUEST, ex);
        assertAllBytes(destination, 64, (byte) 0x44);
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void destinationTooSmallFailsWithoutWriting(final Transport transport)
    {
        final UnsafeBuffer destination = filledDirect(MIB - 1, (byte) 0x55);
        final FetchException ex = failure(client(transport).fetch("one-mib", destination, 0), WAIT);
        assertCode(ErrorCode.DESTINATION_TOO_SMALL, ex);
        assertAllBytes(destination, MIB - 1, (byte) 0x55);
        // the connection is still good afterwards
        final UnsafeBuffer ok = filledDirect(MIB, (byte) 0);
        assertEquals(MIB, join(client(transport).fetch("one-mib", ok, 0), WAIT));
        assertBytesEqual(oneMiB, 0, ok, 0, MIB);
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void countersAreVisibleInTheDriversCnc(final Transport transport)
    {
        final PayloadServer server = server(transport);
        final String name = server.context().serverName();
        final long requestsBefore = server.counters().requests();
        final long bytesBefore = server.counters().bytes();
        final UnsafeBuffer destination = filledDirect(MIB, (byte) 0);
        join(client(transport).fetch("one-mib", destination, 0), WAIT);
        final long requests = TestSupport.counterValue(media.aeron().countersReader(),
            "offcache_transport_requests_total server=" + name);
        final long bytes = TestSupport.counterValue(media.aeron().countersReader(),
            "offcache_transport_sent_bytes_total server=" + name);
        assertTrue(requests >= requestsBefore + 1, "requests counter " + requests);
        assertTrue(bytes >= bytesBefore + MIB, "bytes counter " + bytes);
        assertTrue(TestSupport.counterValue(media.aeron().countersReader(),
            "offcache_transport_backpressure_events_total server=" + name) >= 0);
    }
}
