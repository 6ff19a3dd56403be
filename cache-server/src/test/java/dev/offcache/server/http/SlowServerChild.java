package dev.offcache.server.http;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import dev.offcache.range.origin.DelayingOrigin;

/**
 * A real L2 server in its own JVM whose origin answers each GET after {@code delayMs}, one block per GET and one GET
 * at a time, so a long response is still streaming when the parent test kills this process with SIGKILL. Prints
 * {@code PORT <n>} once listening and runs until killed or until its stdin closes.
 *
 * <p>Arguments: origin dir, SSD dir, per-GET delay in ms.
 */
public final class SlowServerChild
{
    private SlowServerChild()
    {
    }

    /**
     * Runs the server.
     *
     * @param args origin dir, SSD dir, per-GET delay in ms.
     * @throws Exception on failure to start.
     */
    public static void main(final String[] args) throws Exception
    {
        final long delayNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[2]));
        try (ServerHarness harness = new ServerHarness(Path.of(args[0]), Path.of(args[1]), 16,
            16L * ServerHarness.BLOCK, TransportKind.AUTO, 0, (origin) -> new DelayingOrigin(origin, delayNanos),
            (engine) -> engine.maxCoalescedGetBytes(ServerHarness.BLOCK).streamWindows(1, 1)))
        {
            System.out.println("PORT " + harness.port());
            System.out.flush();
            while (System.in.read() >= 0)
            {
                // runs until the parent closes our stdin (or kills us)
            }
        }
        catch (final IOException ex)
        {
            // stdin broke: the parent is gone
        }
    }
}
