package dev.offcache.hadoop.fs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Options.OpenFileOptions;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.functional.FutureIO;

import dev.offcache.embed.EngineOrigin;

/**
 * Reads the byte ranges a shared cache misses from the real (wrapped) file system: one open with the length known
 * (no status or HEAD call) and one ranged read per miss run, so S3A sends exactly one GET of exactly the run. A
 * stream that reads into a {@code ByteBuffer} by position does so straight into the cache's staging buffer; any
 * other gets one positional {@code readFully} of the run into a heap array (S3A with the random read policy: one
 * GET of exactly that range) that is then copied into place: one copy on the miss path, which waits for the origin
 * anyway.
 *
 * <p>Blocking file system calls run on a small pool of daemon threads shared by every instance in the JVM.
 */
final class HadoopOrigin implements EngineOrigin
{
    private static final AtomicInteger THREAD_ID = new AtomicInteger();
    private static final ExecutorService IO = Executors.newCachedThreadPool((runnable) ->
    {
        final Thread thread = new Thread(runnable, "offcache-hadoop-source-" + THREAD_ID.incrementAndGet());
        thread.setDaemon(true);
        return thread;
    });

    private final FileSystem fs;

    HadoopOrigin(final FileSystem fs)
    {
        this.fs = fs;
    }

    @Override
    public CompletableFuture<Integer> read(
        final URI location, final long length, final long offset, final ByteBuffer destination)
    {
        return CompletableFuture.supplyAsync(() ->
        {
            try
            {
                return readNow(new Path(location), length, offset, destination);
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
        }, IO);
    }

    private int readNow(final Path path, final long length, final long offset, final ByteBuffer destination)
        throws IOException
    {
        final int want = destination.remaining();
        try (FSDataInputStream in = FutureIO.awaitFuture(fs.openFile(path)
            .optLong(OpenFileOptions.FS_OPTION_OPENFILE_LENGTH, length)
            .opt(OpenFileOptions.FS_OPTION_OPENFILE_READ_POLICY, OpenFileOptions.FS_OPTION_OPENFILE_READ_POLICY_RANDOM)
            .build()))
        {
            if (in.hasCapability("in:preadbytebuffer"))
            {
                in.readFully(offset, destination);
                return want;
            }
            // One positional readFully of the whole run: S3A (random policy) sends one GET of exactly that range.
            final byte[] heap = new byte[want];
            in.readFully(offset, heap, 0, want);
            destination.put(heap);
            return want;
        }
    }
}
