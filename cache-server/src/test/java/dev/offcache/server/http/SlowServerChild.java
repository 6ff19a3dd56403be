package dev.offcache.server.http;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.offcache.server.source.RangeSource;
import io.netty.buffer.ByteBuf;

/**
 * A real L2 server in its own JVM whose HTTP layer waits {@code delayMs} before each chunk, so a long response is
 * still streaming when the parent test kills this process with SIGKILL. Prints {@code PORT <n>} once listening and
 * runs until killed or until its stdin closes.
 *
 * <p>Arguments: origin dir, SSD dir, per-chunk delay in ms.
 */
public final class SlowServerChild
{
    private SlowServerChild()
    {
    }

    /**
     * Runs the server.
     *
     * @param args origin dir, SSD dir, per-chunk delay in ms.
     * @throws Exception on failure to start.
     */
    public static void main(final String[] args) throws Exception
    {
        final long delayMs = Long.parseLong(args[2]);
        try (ServerHarness harness = new ServerHarness(Path.of(args[0]), Path.of(args[1]), 16,
            16L * ServerHarness.BLOCK, TransportKind.AUTO, 0, (source) -> new Slow(source, delayMs)))
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

    /** Delays every chunk and never answers at once, so each chunk takes the waiting path. */
    private record Slow(RangeSource delegate, long delayMs) implements RangeSource
    {
        @Override
        public int blockSize()
        {
            return delegate.blockSize();
        }

        @Override
        public CompletableFuture<Long> size(final String key)
        {
            return delegate.size(key);
        }

        @Override
        public CompletableFuture<ByteBuf> read(final String key, final long offset, final int length)
        {
            return CompletableFuture.supplyAsync(() -> null,
                CompletableFuture.delayedExecutor(delayMs, TimeUnit.MILLISECONDS))
                .thenCompose((ignored) -> delegate.read(key, offset, length));
        }

        @Override
        public CompletableFuture<Void> prefetch(final String key, final long offset, final long length)
        {
            return delegate.prefetch(key, offset, length);
        }
    }
}
