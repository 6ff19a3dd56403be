package dev.offcache.testkit.net;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Loopback ports for tests and benchmarks. Fixed ones, for what must bind the same ports again (a cluster member
 * restarted on its address), are chosen below the kernel's ephemeral range, which every socket bound to port 0 draws
 * from, so no such socket can take one of them between a stop and a rebind; a free one is for a single bind.
 */
public final class LoopbackPorts
{
    /** The lowest port a base is drawn from: above the well-known and most registered services' ports. */
    public static final int LOWEST = 11_000;

    private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    /** The kernel's default first ephemeral port, used when the range cannot be read. */
    private static final int DEFAULT_FIRST_EPHEMERAL = 32_768;

    private LoopbackPorts()
    {
    }

    /**
     * A random multiple of {@code span} from {@link #LOWEST} whose {@code span} ports all lie below the ephemeral
     * range ({@link #LOWEST} itself when the range starts lower than that).
     *
     * @param span the ports the caller uses from the base on.
     * @return the first port.
     */
    public static int randomBase(final int span)
    {
        if (span <= 0)
        {
            throw new IllegalArgumentException("span must be positive: " + span);
        }
        final int slots = Math.max(1, (firstEphemeralPort() - LOWEST - span) / span);
        return LOWEST + span * ThreadLocalRandom.current().nextInt(slots);
    }

    /**
     * A UDP port on 127.0.0.1 that was free a moment ago (bound, then released): for a channel bound once.
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

    /** The first port of the kernel's ephemeral range, or 32768 when it cannot be read. */
    private static int firstEphemeralPort()
    {
        try
        {
            // A line reader (one read into its buffer): a /proc/sys file answers a read at a non-zero offset with end
            // of file, so Files.readString (a one-byte first read when the size is 0) saw "3" and every base was
            // LOWEST, the same ports for every cluster test on the machine.
            return Integer.parseInt(Files.readAllLines(EPHEMERAL_RANGE).get(0).trim().split("\\s+")[0]);
        }
        catch (final IOException | RuntimeException ex)
        {
            return DEFAULT_FIRST_EPHEMERAL;
        }
    }
}
