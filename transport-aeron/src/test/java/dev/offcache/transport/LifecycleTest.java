package dev.offcache.transport;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.offcache.core.counters.CounterTypes;
import dev.offcache.transport.client.PayloadClient;
import dev.offcache.transport.client.FetchException;
import dev.offcache.transport.media.AeronMedia;
import dev.offcache.core.media.EmbeddedDrivers;
import dev.offcache.transport.media.TransportChannels;
import dev.offcache.transport.server.PayloadServer;
import dev.offcache.transport.source.DirectBufferPayloadSource;
import dev.offcache.transport.wire.ErrorCode;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.Test;

import static dev.offcache.transport.TestSupport.assertCode;
import static dev.offcache.transport.TestSupport.failure;
import static dev.offcache.transport.TestSupport.filledDirect;
import static dev.offcache.transport.TestSupport.join;
import static dev.offcache.transport.TestSupport.randomDirect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Everything is given back: after clients and servers close, the driver holds no publication, subscription or
 * offcache counter of theirs and the source no handle; an embedded driver's directory is gone after close;
 * fetches with no server time out, and fetches outstanding at close fail instead of hanging.
 */
class LifecycleTest
{
    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void closingClientsAndServersLeavesNoPublicationsSubscriptionsCountersOrHandles()
    {
        final UnsafeBuffer large = randomDirect(64 * 1024 * 1024, 41);
        final DirectBufferPayloadSource source = new DirectBufferPayloadSource().register("large", large);
        final Path dir;
        try (AeronMedia media = TestSupport.launchTestMedia())
        {
            dir = Paths.get(media.aeronDirectoryName());
            assertTrue(media.isEmbedded());
            assertTrue(dir.getFileName().toString().startsWith(EmbeddedDrivers.DIR_PREFIX), dir.toString());
            assertTrue(Files.isDirectory(dir));
            final CountersReader counters = media.aeron().countersReader();
            assertEquals(0, TestSupport.publicationAndSubscriptionCounters(counters));

            final String udp = TransportChannels.udp("127.0.0.1", TestSupport.freeUdpPort());
            final PayloadServer udpServer = PayloadServer.launch(new PayloadServer.Context().aeron(media.aeron())
                .payloadSource(source).requestChannel(udp));
            final PayloadServer ipcServer = PayloadServer.launch(new PayloadServer.Context().aeron(media.aeron())
                .payloadSource(source).requestChannel(TransportChannels.IPC));
            final PayloadClient udpClient = PayloadClient.connect(new PayloadClient.Context().aeron(media.aeron())
                .requestChannel(udp));
            final PayloadClient ipcClient = PayloadClient.connect(new PayloadClient.Context().aeron(media.aeron())
                .requestChannel(TransportChannels.IPC));
            for (final PayloadClient client : new PayloadClient[]{udpClient, ipcClient})
            {
                final UnsafeBuffer destination = filledDirect(large.capacity(), (byte) 0);
                assertEquals(large.capacity(), join(client.fetch("large", destination, 0), WAIT));
                // a fetch abandoned by its deadline mid-stream: the server must drop it (CANCEL or its own
                // deadline) and release the handle
                final FetchException ex = failure(client.fetch("large", 0, -1, destination, 0,
                    TimeUnit.MILLISECONDS.toNanos(2)), WAIT);
                assertCode(ErrorCode.TIMEOUT, ex);
                assertCode(ErrorCode.NOT_FOUND, failure(client.fetch("missing", destination, 0), WAIT));
            }
            assertTrue(TestSupport.publicationAndSubscriptionCounters(counters) > 0);
            assertEquals(2, TestSupport.countersOfType(counters, CounterTypes.TRANSPORT_REQUESTS));

            udpClient.close();
            ipcClient.close();
            udpServer.close();
            ipcServer.close();
            TestSupport.awaitTrue("the driver to free every publication and subscription", Duration.ofSeconds(10),
                () -> TestSupport.publicationAndSubscriptionCounters(counters) == 0);
            for (int typeId = CounterTypes.TRANSPORT_REQUESTS; typeId <= CounterTypes.TRANSPORT_SESSIONS; typeId++)
            {
                final int type = typeId;
                TestSupport.awaitTrue("server counters of type " + type + " to be freed", Duration.ofSeconds(5),
                    () -> TestSupport.countersOfType(counters, type) == 0);
            }
            assertEquals(0, source.openHandles());
        }
        assertFalse(Files.exists(dir), "embedded driver directory deleted on close: " + dir);
    }

    @Test
    void fetchWithoutAServerTimesOutAndFetchesOutstandingAtCloseFail()
    {
        try (AeronMedia media = TestSupport.launchTestMedia())
        {
            final String udp = TransportChannels.udp("127.0.0.1", TestSupport.freeUdpPort());
            final PayloadClient client = PayloadClient.connect(new PayloadClient.Context().aeron(media.aeron())
                .requestChannel(udp));
            final UnsafeBuffer destination = filledDirect(16, (byte) 0);
            final long start = System.nanoTime();
            final FetchException timeout = failure(client.fetch("x", 0, -1, destination, 0,
                TimeUnit.MILLISECONDS.toNanos(300)), WAIT);
            assertCode(ErrorCode.TIMEOUT, timeout);
            assertTrue(timeout.getMessage().contains("no connection"), timeout.getMessage());
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(2));

            final CompletableFuture<Long> outstanding = client.fetch("y", 0, -1, destination, 0,
                TimeUnit.SECONDS.toNanos(60));
            client.close();
            assertCode(ErrorCode.CLIENT_CLOSED, failure(outstanding, Duration.ofSeconds(5)));
            assertCode(ErrorCode.CLIENT_CLOSED, failure(client.fetch("z", destination, 0), Duration.ofSeconds(5)));
            TestSupport.awaitTrue("the client's publication and subscription to be freed", Duration.ofSeconds(10),
                () -> TestSupport.publicationAndSubscriptionCounters(media.aeron().countersReader()) == 0);
        }
    }
}
