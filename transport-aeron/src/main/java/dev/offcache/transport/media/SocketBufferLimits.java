package dev.offcache.transport.media;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The largest UDP socket buffers the kernel grants an unprivileged socket option ({@code net.core.rmem_max} and
 * {@code net.core.wmem_max} on Linux); the UDP receiver window must fit in the receive buffer, or datagrams are
 * dropped and resent.
 */
final class SocketBufferLimits
{
    private static final Path RMEM_MAX = Path.of("/proc/sys/net/core/rmem_max");
    private static final Path WMEM_MAX = Path.of("/proc/sys/net/core/wmem_max");

    private SocketBufferLimits()
    {
    }

    /**
     * The smaller of the two limits, or {@link Long#MAX_VALUE} where they cannot be read (not Linux).
     *
     * @return bytes.
     */
    static long maxBufferLength()
    {
        return Math.min(read(RMEM_MAX), read(WMEM_MAX));
    }

    private static long read(final Path file)
    {
        // One read into a large buffer: a /proc/sys file answers a read at a non-zero offset with end of file, so
        // Files.readAllBytes (which starts with a one-byte read when the size is 0) sees only the first digit.
        try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.US_ASCII))
        {
            final String line = reader.readLine();
            return line == null ? Long.MAX_VALUE : Long.parseLong(line.trim());
        }
        catch (final IOException | RuntimeException ex)
        {
            return Long.MAX_VALUE;
        }
    }
}
