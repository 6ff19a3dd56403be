package dev.offcache.transport.media;

import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.channels.DatagramChannel;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The kernel's socket buffer limit, as {@link SocketBufferLimits} reads it, is what a socket asking for more really
 * gets ({@code net.core.rmem_max} / {@code wmem_max}; Linux reserves twice that for bookkeeping, and the JDK reports
 * the halved value).
 */
class SocketBufferLimitsTest
{
    @Test
    void theLimitIsWhatASocketIsGranted() throws IOException
    {
        assumeTrue(System.getProperty("os.name").toLowerCase().contains("linux"), "Linux only");
        final long limit = SocketBufferLimits.maxBufferLength();
        try (DatagramChannel channel = DatagramChannel.open())
        {
            channel.setOption(StandardSocketOptions.SO_RCVBUF, Integer.MAX_VALUE / 2);
            channel.setOption(StandardSocketOptions.SO_SNDBUF, Integer.MAX_VALUE / 2);
            final long granted = Math.min(channel.getOption(StandardSocketOptions.SO_RCVBUF),
                channel.getOption(StandardSocketOptions.SO_SNDBUF));
            assertEquals(granted, limit);
        }
        assertTrue(limit >= 4096, "a whole limit, not its first digit: " + limit);
    }

    @Test
    void theDefaultWindowFitsTheLimitAndAnExplicitOneIsKept()
    {
        final long limit = SocketBufferLimits.maxBufferLength();
        final int window = new AeronMedia.Context().effectiveWindowLength();
        assertTrue(window <= Math.max(limit, 64 * 1024) && window >= 64 * 1024, window + " for a limit of " + limit);
        assertEquals(Math.min(AeronMedia.Context.DEFAULT_INITIAL_WINDOW_LENGTH, Integer.highestOneBit((int)
            Math.min(limit, Integer.MAX_VALUE))), window);
        assertEquals(8 * 1024 * 1024, new AeronMedia.Context().initialWindowLength(8 * 1024 * 1024)
            .effectiveWindowLength());
    }
}
