package dev.offcache.transport;

import java.util.Map;

import dev.offcache.core.shuffle.PartitionId;
import dev.offcache.transport.media.AeronMedia;
import dev.offcache.transport.media.TransportChannels;
import dev.offcache.transport.server.PayloadServer;
import dev.offcache.transport.source.DirectBufferPayloadSource;
import dev.offcache.transport.source.ShufflePartitionSource;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bad configuration is refused with a message naming what was wrong; channel helpers and id formats round-trip.
 */
class ConfigurationTest
{
    @Test
    void mediaContextRefusesBadSizesAndReadsTheEnvironment()
    {
        final IllegalArgumentException term = assertThrows(IllegalArgumentException.class,
            () -> new AeronMedia.Context().udpTermLength(3 * 1024 * 1024).conclude());
        assertTrue(term.getMessage().contains("udpTermLength"), term.getMessage());
        final IllegalArgumentException mtu = assertThrows(IllegalArgumentException.class,
            () -> new AeronMedia.Context().ipcMtu(1000).conclude());
        assertTrue(mtu.getMessage().contains("ipcMtu"), mtu.getMessage());

        final AeronMedia.Context external = AeronMedia.Context.fromEnvironment(
            Map.of(AeronMedia.Context.ENV_AERON_DIR, "/dev/shm/aeron-x", AeronMedia.Context.ENV_THREADING_MODE,
            "dedicated"));
        assertEquals("/dev/shm/aeron-x", external.aeronDirectoryName());
        assertNull(AeronMedia.Context.fromEnvironment(Map.of()).aeronDirectoryName());
        final IllegalArgumentException mode = assertThrows(IllegalArgumentException.class,
            () -> AeronMedia.Context.fromEnvironment(Map.of(AeronMedia.Context.ENV_THREADING_MODE, "fast")));
        assertTrue(mode.getMessage().contains("OFFCACHE_AERON_THREADING_MODE"), mode.getMessage());
    }

    @Test
    void serverContextNamesTheMissingSetting()
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> new PayloadServer.Context().requestChannel(TransportChannels.IPC)
                .payloadSource(new DirectBufferPayloadSource()).conclude());
        assertTrue(ex.getMessage().contains("aeron"), ex.getMessage());
    }

    @Test
    void channelsAndPartitionIds()
    {
        assertEquals("aeron:udp?endpoint=127.0.0.1:40123", TransportChannels.udp("127.0.0.1", 40123));
        assertTrue(TransportChannels.isIpc(TransportChannels.IPC));
        final String withParams = TransportChannels.withTermLengthAndMtu(TransportChannels.IPC, 1 << 20, 8192);
        assertTrue(withParams.contains("term-length=1048576") && withParams.contains("mtu=8192"), withParams);
        assertThrows(IllegalArgumentException.class, () -> TransportChannels.udp("127.0.0.1", 70000));

        assertTrue(TransportChannels.isLoopback("aeron:udp?endpoint=127.0.0.1:40123"));
        assertTrue(TransportChannels.isLoopback("aeron:udp?endpoint=127.3.2.1:40123"));
        assertTrue(TransportChannels.isLoopback("aeron:udp?endpoint=localhost:40123"));
        assertTrue(TransportChannels.isLoopback("aeron:udp?endpoint=[::1]:40123"));
        assertFalse(TransportChannels.isLoopback("aeron:udp?endpoint=10.1.2.3:40123"));
        assertFalse(TransportChannels.isLoopback("aeron:udp?endpoint=cache-7.example:40123"), "names not resolved");
        assertFalse(TransportChannels.isLoopback(TransportChannels.IPC));

        final PayloadServer.Context server = new PayloadServer.Context();
        assertTrue(server.responsePublicationChannel("aeron:udp?endpoint=127.0.0.1:40123").contains("mtu=65504"),
            "loopback: the largest MTU");
        assertTrue(server.responsePublicationChannel("aeron:udp?endpoint=10.1.2.3:40123").contains("mtu=8192"),
            "elsewhere: the UDP MTU");
        assertTrue(server.responsePublicationChannel(TransportChannels.IPC).contains("mtu=65504"));
        assertTrue(new PayloadServer.Context().responseLoopbackMtu(16384)
            .responsePublicationChannel("aeron:udp?endpoint=localhost:40123").contains("mtu=16384"));

        final PartitionId id = new PartitionId("job-7", 2, 11);
        assertEquals("job-7/2/11", ShufflePartitionSource.idOf(id));
        assertEquals(id, ShufflePartitionSource.parseId("job-7/2/11"));
        assertThrows(IllegalArgumentException.class, () -> ShufflePartitionSource.parseId("job-7/x/11"));
        assertThrows(IllegalArgumentException.class, () -> ShufflePartitionSource.parseId("11"));
    }
}
