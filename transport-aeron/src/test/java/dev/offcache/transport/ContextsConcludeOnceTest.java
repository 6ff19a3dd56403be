package dev.offcache.transport;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.offcache.core.config.ConcurrentConcludeException;
import dev.offcache.transport.client.PayloadClient;
import dev.offcache.transport.media.AeronMedia;
import dev.offcache.transport.media.TransportChannels;
import dev.offcache.transport.server.PayloadServer;
import dev.offcache.transport.source.DirectBufferPayloadSource;
import org.agrona.CloseHelper;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import static dev.offcache.transport.TestSupport.assertBytesEqual;
import static dev.offcache.transport.TestSupport.filledDirect;
import static dev.offcache.transport.TestSupport.join;
import static dev.offcache.transport.TestSupport.randomDirect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every context of this module configures one component: the media's, the server's and the client's context given
 * to a second launch or connect (or concluded by hand first) is refused with {@link ConcurrentConcludeException}
 * before it starts anything, and the first media, server and client still fetch bytes equal to the source.
 */
class ContextsConcludeOnceTest
{
    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void aContextGivenToASecondComponentIsRefusedAndTheFirstStillServes()
    {
        final DirectBufferPayloadSource source = new DirectBufferPayloadSource();
        final UnsafeBuffer block = randomDirect(100_000, 17);
        source.register("block", block);
        final AeronMedia.Context mediaContext = new AeronMedia.Context()
            .publicationLingerTimeoutNs(TimeUnit.MILLISECONDS.toNanos(200))
            .imageLivenessTimeoutNs(TimeUnit.SECONDS.toNanos(2));
        AeronMedia media = null;
        PayloadServer server = null;
        PayloadClient client = null;
        try
        {
            media = AeronMedia.launch(mediaContext);
            assertRefused("AeronMedia.Context", () -> AeronMedia.launch(mediaContext));

            final PayloadServer.Context serverContext = new PayloadServer.Context().aeron(media.aeron())
                .payloadSource(source).requestChannel(TransportChannels.IPC).requestStreamId(7101)
                .serverName("conclude-once");
            server = PayloadServer.launch(serverContext);
            assertRefused("PayloadServer.Context", () -> PayloadServer.launch(serverContext));

            final PayloadClient.Context clientContext = new PayloadClient.Context().aeron(media.aeron())
                .requestChannel(TransportChannels.IPC).requestStreamId(7101);
            client = PayloadClient.connect(clientContext);
            assertRefused("PayloadClient.Context", () -> PayloadClient.connect(clientContext));

            final UnsafeBuffer destination = filledDirect(block.capacity(), (byte) 0);
            assertEquals(block.capacity(), join(client.fetch("block", destination, 0), WAIT));
            assertBytesEqual(block, 0, destination, 0, block.capacity());
        }
        finally
        {
            CloseHelper.closeAll(client, server);
            assertEquals(0, source.openHandles(), "block handles still held after the server closed");
            CloseHelper.close(media);
        }
    }

    @Test
    void aContextConcludedByHandIsRefusedByTheComponent()
    {
        final AeronMedia.Context mediaContext = new AeronMedia.Context();
        mediaContext.conclude();
        assertRefused("AeronMedia.Context", () -> AeronMedia.launch(mediaContext));
        try (AeronMedia media = TestSupport.launchTestMedia())
        {
            final PayloadServer.Context serverContext = new PayloadServer.Context().aeron(media.aeron())
                .payloadSource(new DirectBufferPayloadSource()).requestChannel(TransportChannels.IPC)
                .requestStreamId(7102);
            serverContext.conclude();
            assertRefused("PayloadServer.Context", () -> PayloadServer.launch(serverContext));
            final PayloadClient.Context clientContext = new PayloadClient.Context().aeron(media.aeron())
                .requestChannel(TransportChannels.IPC).requestStreamId(7102);
            clientContext.conclude();
            assertRefused("PayloadClient.Context", () -> PayloadClient.connect(clientContext));
        }
    }

    private static void assertRefused(final String context, final Executable second)
    {
        final ConcurrentConcludeException refused = assertThrows(ConcurrentConcludeException.class, second);
        assertTrue(refused.getMessage().startsWith(context + " is already concluded"), refused.getMessage());
    }
}
