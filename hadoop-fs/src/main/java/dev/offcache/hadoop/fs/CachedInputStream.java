package dev.offcache.hadoop.fs;

import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;

import org.apache.hadoop.fs.ByteBufferPositionedReadable;
import org.apache.hadoop.fs.ByteBufferReadable;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSExceptionMessages;
import org.apache.hadoop.fs.FSInputStream;
import org.apache.hadoop.fs.FileRange;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Options.OpenFileOptions;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.StreamCapabilities;
import org.apache.hadoop.fs.VectoredReadUtils;
import org.apache.hadoop.fs.statistics.IOStatistics;
import org.apache.hadoop.fs.statistics.IOStatisticsSource;
import org.apache.hadoop.util.functional.FutureIO;

import dev.offcache.embed.SharedCache;
import dev.offcache.range.engine.RangeRequest;

/**
 * The input stream of {@link OffcacheFileSystem}: every read is a positional read of the JVM's shared range cache
 * (hits copied from off-heap blocks, misses fetched once, coalesced, from the wrapped file system). Vectored reads go
 * to the cache as one request, so ranges that share or adjoin blocks share fetches.
 *
 * <p>Its {@link IOStatistics} are its own: the engine counts this stream's hits, misses, fetches and bytes in the
 * stream's counters as it serves each read ({@link StreamStatistics}).
 *
 * <p>A broken cache never fails a read: any failure of the cache (other than bad arguments) is counted and the
 * bytes are read from the wrapped file system's own stream, opened on first need. Not thread-safe for sequential
 * reads (as Hadoop streams are not); positional reads may run concurrently.
 */
final class CachedInputStream extends FSInputStream
    implements ByteBufferReadable, ByteBufferPositionedReadable, StreamCapabilities, IOStatisticsSource
{
    private final SharedCache shared;
    private final String key;
    private final long length;
    private final Path path;
    private final FileSystem inner;
    private final StreamStatistics stats;
    private final byte[] oneByte = new byte[1];
    private final Object fallbackLock = new Object();
    private FSDataInputStream fallback;
    private long pos;
    private volatile boolean closed;

    CachedInputStream(
        final SharedCache shared, final String key, final long length, final Path path, final FileSystem inner)
    {
        this.shared = shared;
        this.key = key;
        this.length = length;
        this.path = path;
        this.inner = inner;
        this.stats = new StreamStatistics(shared.l2() != null);
    }

    @Override
    public synchronized void seek(final long position) throws IOException
    {
        checkOpen();
        if (position < 0)
        {
            throw new EOFException(FSExceptionMessages.NEGATIVE_SEEK + " " + position);
        }
        if (position > length)
        {
            throw new EOFException(FSExceptionMessages.CANNOT_SEEK_PAST_EOF + " " + position + " of " + path);
        }
        stats.seek();
        pos = position;
    }

    @Override
    public synchronized long getPos() throws IOException
    {
        checkOpen();
        return pos;
    }

    @Override
    public boolean seekToNewSource(final long targetPos)
    {
        return false;
    }

    @Override
    public synchronized int available() throws IOException
    {
        checkOpen();
        return (int) Math.min(Integer.MAX_VALUE, length - pos);
    }

    @Override
    public synchronized int read() throws IOException
    {
        final int n = read(oneByte, 0, 1);
        return n <= 0 ? -1 : oneByte[0] & 0xFF;
    }

    @Override
    public synchronized int read(final byte[] buffer, final int offset, final int len) throws IOException
    {
        checkOpen();
        checkArray(buffer, offset, len);
        if (len == 0)
        {
            return 0;
        }
        final int n = readAt(pos, buffer, offset, len);
        if (n > 0)
        {
            pos += n;
        }
        return n;
    }

    @Override
    public int read(final long position, final byte[] buffer, final int offset, final int len) throws IOException
    {
        checkOpen();
        validatePositionedReadArgs(position, buffer, offset, len);
        if (len == 0)
        {
            return 0;
        }
        return readAt(position, buffer, offset, len);
    }

    @Override
    public void readFully(final long position, final byte[] buffer, final int offset, final int len) throws IOException
    {
        checkOpen();
        validatePositionedReadArgs(position, buffer, offset, len);
        if (position + len > length)
        {
            throw new EOFException(FSExceptionMessages.EOF_IN_READ_FULLY + " " + path + " at " + position);
        }
        if (len > 0)
        {
            copy(position, buffer, offset, len);
        }
    }

    @Override
    public synchronized int read(final ByteBuffer buffer) throws IOException
    {
        final int n = read(pos, buffer);
        if (n > 0)
        {
            pos += n;
        }
        return n;
    }

    @Override
    public int read(final long position, final ByteBuffer buffer) throws IOException
    {
        checkOpen();
        if (position < 0)
        {
            throw new EOFException(FSExceptionMessages.NEGATIVE_SEEK + " " + position);
        }
        if (!buffer.hasRemaining())
        {
            return 0;
        }
        if (position >= length)
        {
            return -1;
        }
        final int n = (int) Math.min(buffer.remaining(), length - position);
        final int limit = buffer.limit();
        buffer.limit(buffer.position() + n);
        try
        {
            copy(position, buffer);
        }
        finally
        {
            buffer.limit(limit);
        }
        return n;
    }

    @Override
    public void readFully(final long position, final ByteBuffer buffer) throws IOException
    {
        checkOpen();
        if (position < 0)
        {
            throw new EOFException(FSExceptionMessages.NEGATIVE_SEEK + " " + position);
        }
        if (position + buffer.remaining() > length)
        {
            throw new EOFException(FSExceptionMessages.EOF_IN_READ_FULLY + " " + path + " at " + position);
        }
        if (buffer.hasRemaining())
        {
            copy(position, buffer);
        }
    }

    @Override
    public void readVectored(final List<? extends FileRange> ranges, final IntFunction<ByteBuffer> allocate)
        throws IOException
    {
        checkOpen();
        // Checked here: nulls, negative lengths, overlaps. Ranges past the end fail in their own future, as Hadoop's
        // streams do, so the other ranges are still read.
        final List<? extends FileRange> sorted = VectoredReadUtils.validateAndSortRanges(ranges, Optional.empty());
        stats.vectored(sorted.size());
        final List<RangeRequest> requests = new ArrayList<>(sorted.size());
        final List<FileRange> inFile = new ArrayList<>(sorted.size());
        final List<ByteBuffer> buffers = new ArrayList<>(sorted.size());
        for (final FileRange range : sorted)
        {
            if (range.getOffset() + range.getLength() > length)
            {
                range.setData(CompletableFuture.failedFuture(new EOFException("range " + range + " of " + path +
                    " is past its end (" + length + " bytes)")));
                continue;
            }
            final ByteBuffer buffer = allocate.apply(range.getLength());
            buffer.limit(buffer.position() + range.getLength());
            inFile.add(range);
            buffers.add(buffer);
            requests.add(RangeRequest.of(range.getOffset(), buffer));
        }
        CompletableFuture<Void> all;
        try
        {
            all = requests.isEmpty() ? CompletableFuture.completedFuture(null) :
                shared.cache().readVectoredAsync(key, requests, false, stats.cache());
        }
        catch (final RuntimeException ex)
        {
            all = CompletableFuture.failedFuture(ex);
        }
        for (int i = 0; i < inFile.size(); i++)
        {
            final FileRange range = inFile.get(i);
            final ByteBuffer buffer = buffers.get(i);
            range.setData(all.handle((v, error) ->
            {
                if (error != null)
                {
                    stats.fallback();
                    try
                    {
                        fallbackRead(range.getOffset(), buffer.duplicate());
                        stats.fallbackBytes(range.getLength());
                    }
                    catch (final IOException ex)
                    {
                        throw new UncheckedIOException(ex);
                    }
                }
                stats.bytes(range.getLength());
                return buffer;
            }));
        }
    }

    @Override
    public boolean hasCapability(final String capability)
    {
        switch (capability.toLowerCase(Locale.ROOT))
        {
            case StreamCapabilities.READBYTEBUFFER:
            case StreamCapabilities.PREADBYTEBUFFER:
            case StreamCapabilities.VECTOREDIO:
            case StreamCapabilities.IOSTATISTICS:
                return true;
            default:
                return false;
        }
    }

    @Override
    public IOStatistics getIOStatistics()
    {
        return stats;
    }

    @Override
    public synchronized void close() throws IOException
    {
        if (closed)
        {
            return;
        }
        closed = true;
        synchronized (fallbackLock)
        {
            if (fallback != null)
            {
                fallback.close();
                fallback = null;
            }
        }
        super.close();
    }

    @Override
    public String toString()
    {
        return "CachedInputStream{" + path + ", length=" + length + ", " + stats + "}";
    }

    private int readAt(final long position, final byte[] buffer, final int offset, final int len) throws IOException
    {
        if (position >= length)
        {
            return -1;
        }
        final int n = (int) Math.min(len, length - position);
        copy(position, buffer, offset, n);
        return n;
    }

    private void copy(final long position, final byte[] buffer, final int offset, final int len) throws IOException
    {
        try
        {
            shared.cache().read(key, position, buffer, offset, len, stats.cache());
        }
        catch (final RuntimeException ex)
        {
            stats.fallback();
            fallbackStream().readFully(position, buffer, offset, len);
            stats.fallbackBytes(len);
        }
        stats.read(len);
    }

    private void copy(final long position, final ByteBuffer buffer) throws IOException
    {
        final int len = buffer.remaining();
        final int start = buffer.position();
        try
        {
            shared.cache().read(key, position, buffer, stats.cache());
        }
        catch (final RuntimeException ex)
        {
            stats.fallback();
            buffer.position(start);
            fallbackRead(position, buffer);
            stats.fallbackBytes(len);
        }
        stats.read(len);
    }

    private void fallbackRead(final long position, final ByteBuffer buffer) throws IOException
    {
        final FSDataInputStream in = fallbackStream();
        if (buffer.hasArray())
        {
            in.readFully(position, buffer.array(), buffer.arrayOffset() + buffer.position(), buffer.remaining());
            buffer.position(buffer.limit());
            return;
        }
        final byte[] chunk = new byte[Math.min(buffer.remaining(), 1 << 20)];
        long at = position;
        while (buffer.hasRemaining())
        {
            final int n = Math.min(chunk.length, buffer.remaining());
            in.readFully(at, chunk, 0, n);
            buffer.put(chunk, 0, n);
            at += n;
        }
    }

    /**
     * The real file system's stream, opened on first need under its own lock: vectored-read completions call this
     * on fetch threads, which must never wait for the stream's monitor (a sequential reader may hold it while it
     * waits for those very fetches).
     */
    private FSDataInputStream fallbackStream() throws IOException
    {
        synchronized (fallbackLock)
        {
            checkOpen();
            if (fallback == null)
            {
                fallback = FutureIO.awaitFuture(inner.openFile(path)
                    .optLong(OpenFileOptions.FS_OPTION_OPENFILE_LENGTH, length)
                    .build());
            }
            return fallback;
        }
    }

    private void checkOpen() throws IOException
    {
        if (closed)
        {
            throw new IOException(FSExceptionMessages.STREAM_IS_CLOSED + ": " + path);
        }
    }

    private static void checkArray(final byte[] buffer, final int offset, final int len)
    {
        if (buffer == null)
        {
            throw new NullPointerException("null buffer");
        }
        if (offset < 0 || len < 0 || len > buffer.length - offset)
        {
            throw new IndexOutOfBoundsException("offset " + offset + ", length " + len + ", buffer " + buffer.length);
        }
    }
}
