package dev.offcache.parquet.io;

import java.io.EOFException;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.apache.parquet.bytes.ByteBufferAllocator;
import org.apache.parquet.io.ParquetFileRange;
import org.apache.parquet.io.SeekableInputStream;

import dev.offcache.embed.SharedCache;
import dev.offcache.range.engine.RangeRequest;

/**
 * The stream of a {@link CachedInputFile}: every read is a positional read of the shared cache; a vectored read is
 * one cache request, so ranges sharing or adjoining blocks share fetches. A cache failure is retried once straight
 * from the file's source, bypassing the store (a broken cache never fails a read). Not thread-safe, as parquet-mr
 * streams are not.
 */
final class CachedSeekableInputStream extends SeekableInputStream
{
    private final SharedCache shared;
    private final String key;
    private final long length;
    private final URI location;
    private final byte[] oneByte = new byte[1];
    private long pos;
    private boolean closed;

    CachedSeekableInputStream(final SharedCache shared, final String key, final long length, final URI location)
    {
        this.shared = shared;
        this.key = key;
        this.length = length;
        this.location = location;
    }

    @Override
    public long getPos()
    {
        return pos;
    }

    @Override
    public void seek(final long newPos) throws IOException
    {
        checkOpen();
        if (newPos < 0 || newPos > length)
        {
            throw new EOFException("seek to " + newPos + " outside " + location + " (" + length + " bytes)");
        }
        pos = newPos;
    }

    @Override
    public int read() throws IOException
    {
        return read(oneByte, 0, 1) < 0 ? -1 : oneByte[0] & 0xFF;
    }

    @Override
    public int read(final byte[] buffer, final int offset, final int len) throws IOException
    {
        checkOpen();
        if (len == 0)
        {
            return 0;
        }
        if (pos >= length)
        {
            return -1;
        }
        final int n = (int) Math.min(len, length - pos);
        copy(ByteBuffer.wrap(buffer, offset, n));
        return n;
    }

    @Override
    public void readFully(final byte[] bytes) throws IOException
    {
        readFully(bytes, 0, bytes.length);
    }

    @Override
    public void readFully(final byte[] bytes, final int start, final int len) throws IOException
    {
        checkOpen();
        if (pos + len > length)
        {
            throw new EOFException("read of " + len + " bytes at " + pos + " past the end of " + location);
        }
        copy(ByteBuffer.wrap(bytes, start, len));
    }

    @Override
    public int read(final ByteBuffer buf) throws IOException
    {
        checkOpen();
        if (!buf.hasRemaining())
        {
            return 0;
        }
        if (pos >= length)
        {
            return -1;
        }
        final int n = (int) Math.min(buf.remaining(), length - pos);
        final int limit = buf.limit();
        buf.limit(buf.position() + n);
        try
        {
            copy(buf);
        }
        finally
        {
            buf.limit(limit);
        }
        return n;
    }

    @Override
    public void readFully(final ByteBuffer buf) throws IOException
    {
        checkOpen();
        if (pos + buf.remaining() > length)
        {
            throw new EOFException("read of " + buf.remaining() + " bytes at " + pos + " past the end of " + location);
        }
        copy(buf);
    }

    @Override
    public boolean readVectoredAvailable(final ByteBufferAllocator allocator)
    {
        return true;
    }

    @Override
    public void readVectored(final List<ParquetFileRange> ranges, final ByteBufferAllocator allocator)
        throws IOException
    {
        checkOpen();
        final List<RangeRequest> requests = new ArrayList<>(ranges.size());
        final List<ByteBuffer> buffers = new ArrayList<>(ranges.size());
        for (final ParquetFileRange range : ranges)
        {
            if (range.getOffset() < 0 || range.getLength() < 0 || range.getOffset() + range.getLength() > length)
            {
                throw new EOFException("range " + range + " outside " + location + " (" + length + " bytes)");
            }
            final ByteBuffer buffer = allocator.allocate(range.getLength());
            buffer.limit(buffer.position() + range.getLength());
            buffers.add(buffer);
            requests.add(RangeRequest.of(range.getOffset(), buffer));
        }
        final CompletableFuture<Void> all = shared.cache().readVectoredAsync(key, requests, false);
        for (int i = 0; i < ranges.size(); i++)
        {
            final ParquetFileRange range = ranges.get(i);
            final ByteBuffer buffer = buffers.get(i);
            range.setDataReadFuture(all.handle((v, error) ->
            {
                if (error != null)
                {
                    shared.readFromSource(key, range.getOffset(), buffer.duplicate());
                }
                return buffer;
            }));
        }
    }

    @Override
    public void close()
    {
        closed = true;
    }

    private void copy(final ByteBuffer buffer)
    {
        final int n = buffer.remaining();
        shared.readOrFallback(key, pos, buffer);
        pos += n;
    }

    private void checkOpen() throws IOException
    {
        if (closed)
        {
            throw new IOException("stream of " + location + " is closed");
        }
    }
}
