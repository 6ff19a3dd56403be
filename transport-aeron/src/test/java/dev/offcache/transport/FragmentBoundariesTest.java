package dev.offcache.transport;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.offcache.transport.client.PayloadClient;
import dev.offcache.transport.media.AeronMedia;
import dev.offcache.transport.media.TransportChannels;
import dev.offcache.transport.server.PayloadServer;
import dev.offcache.transport.source.DirectBufferPayloadSource;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static dev.offcache.transport.TestSupport.assertBytesEqual;
import static dev.offcache.transport.TestSupport.filledDirect;
import static dev.offcache.transport.TestSupport.join;
import static dev.offcache.transport.TestSupport.randomDirect;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Reassembly holds whatever the fragment boundaries: small MTUs, chunk lengths that are no multiple of the
 * fragment payload, a poll limit of one fragment (so a message is split across polls and interleaved with
 * other requests' messages), several fetches at once.
 */
class FragmentBoundariesTest
{
    @ParameterizedTest
    @CsvSource({
        "true, 1024, 1500, 1",
        "true, 4096, 100003, 3",
        "false, 1408, 65536, 1",
        "false, 8192, 77777, 2"})
    void bytesArriveIntactForAnyMtuChunkAndPollLimit(
        final boolean ipc, final int mtu, final int chunkLength, final int fragmentLimit)
    {
        final int length = 2 * 1024 * 1024 + 4321;
        final UnsafeBuffer block = randomDirect(length, mtu + chunkLength);
        final DirectBufferPayloadSource source = new DirectBufferPayloadSource().register("block", block);
        final String channel = ipc ? TransportChannels.IPC :
            TransportChannels.udp("127.0.0.1", TestSupport.freeUdpPort());
        try (AeronMedia media = TestSupport.launchTestMedia();
            PayloadServer server = PayloadServer.launch(new PayloadServer.Context().aeron(media.aeron())
                .payloadSource(source).requestChannel(channel).chunkLength(chunkLength)
                .responseIpcMtu(mtu).responseUdpMtu(mtu).responseTermLength(1024 * 1024));
            PayloadClient client = PayloadClient.connect(new PayloadClient.Context().aeron(media.aeron())
                .requestChannel(channel).fragmentLimit(fragmentLimit)))
        {
            final UnsafeBuffer[] destinations = new UnsafeBuffer[4];
            final List<CompletableFuture<Long>> futures = new ArrayList<>();
            for (int i = 0; i < 4; i++)
            {
                destinations[i] = filledDirect(length, (byte) 0);
                futures.add(client.fetch("block", i * 1000L, length - i * 1000L, destinations[i], 0,
                    TimeUnit.SECONDS.toNanos(20)));
            }
            for (int i = 0; i < 4; i++)
            {
                assertEquals(length - i * 1000L, join(futures.get(i), Duration.ofSeconds(30)));
                assertBytesEqual(block, i * 1000, destinations[i], 0, length - i * 1000);
            }
            assertEquals(4, server.counters().requests());
        }
        assertEquals(0, source.openHandles());
    }
}
