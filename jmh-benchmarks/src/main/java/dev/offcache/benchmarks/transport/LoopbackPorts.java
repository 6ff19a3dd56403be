package dev.offcache.benchmarks.transport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetAddress;

/**
 * Free UDP ports on 127.0.0.1 for the benchmarks' Aeron request channels.
 */
public final class LoopbackPorts
{
    private LoopbackPorts()
    {
    }

    /**
     * A UDP port on 127.0.0.1 that was free a moment ago (bound, then released).
     *
     * @return the port.
     */
    public static int freeUdpPort()
    {
        try (DatagramSocket socket = new DatagramSocket(0, InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
