package dev.offcache.iceberg.io;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.RangeReadable;
import org.apache.iceberg.io.SeekableInputStream;

import dev.offcache.embed.EngineOrigin;
import dev.offcache.embed.CacheKeys;

/**
 * Reads the ranges a shared cache misses from the wrapped {@link FileIO}: one stream per miss run, opened with the
 * length known (no HEAD), one positional read of the whole run ({@link RangeReadable} where the stream offers it:
 * S3FileIO sends one ranged GET), copied into the cache's staging buffer. Runs on a small pool of daemon threads.
 */
final class IcebergOrigin implements EngineOrigin
{
    private static final AtomicInteger THREAD_ID = new AtomicInteger();
    private static final ExecutorService IO = Executors.newCachedThreadPool((runnable) ->
    {
        final Thread thread = new Thread(runnable, "offcache-iceberg-source-" + THREAD_ID.incrementAndGet());
        thread.setDaemon(true);
        return thread;
    });

    private final FileIO io;

    IcebergOrigin(final FileIO io)
    {
        this.io = io;
    }

    @Override
    public CompletableFuture<Integer> read(
        final URI location, final long length, final long offset, final ByteBuffer destination)
    {
        return CompletableFuture.supplyAsync(() ->
        {
            final int want = destination.remaining();
            final byte[] heap = new byte[want];
            try (SeekableInputStream in = io.newInputFile(CacheKeys.plainLocation(location), length).newStream())
            {
                if (in instanceof RangeReadable)
                {
                    ((RangeReadable) in).readFully(offset, heap, 0, want);
                }
                else
                {
                    in.seek(offset);
                    int done = 0;
                    while (done < want)
                    {
                        final int n = in.read(heap, done, want - done);
                        if (n < 0)
                        {
                            break;
                        }
                        done += n;
                    }
                    if (done < want)
                    {
                        return done;
                    }
                }
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
            destination.put(heap);
            return want;
        }, IO);
    }
}
