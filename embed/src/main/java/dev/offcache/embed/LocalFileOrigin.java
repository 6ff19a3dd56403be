package dev.offcache.embed;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link EngineOrigin} over local {@code file:} paths: positional {@link FileChannel} reads straight into the cache's
 * staging buffer, on a small pool of daemon threads. For engines that read Parquet from local or mounted disks
 * without Hadoop; register it for {@code CacheKeys.prefix(URI.create("file:///"))}.
 */
public final class LocalFileOrigin implements EngineOrigin
{
    private static final AtomicInteger THREAD_ID = new AtomicInteger();
    private static final ExecutorService IO = Executors.newCachedThreadPool((runnable) ->
    {
        final Thread thread = new Thread(runnable, "offcache-local-source-" + THREAD_ID.incrementAndGet());
        thread.setDaemon(true);
        return thread;
    });

    @Override
    public CompletableFuture<Integer> read(
        final URI location, final long length, final long offset, final ByteBuffer destination)
    {
        return CompletableFuture.supplyAsync(() ->
        {
            try (FileChannel channel = FileChannel.open(Path.of(location), StandardOpenOption.READ))
            {
                int total = 0;
                while (destination.hasRemaining())
                {
                    final int n = channel.read(destination, offset + total);
                    if (n < 0)
                    {
                        break;
                    }
                    total += n;
                }
                return total;
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
        }, IO);
    }
}
