package dev.offcache.parquet.io;

import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.apache.parquet.bytes.ByteBufferAllocator;
import org.apache.parquet.io.ParquetFileRange;
import org.apache.parquet.io.SeekableInputStream;

import dev.offcache.embed.CachedCursor;
import dev.offcache.embed.SharedCache;
import dev.offcache.range.engine.RangeRequest;

/**
 * The stream of a {@link CachedInputFile}: every read is a positional read of the shared cache through a
 * {@link CachedCursor}; a vectored read is one cache request, so ranges sharing or adjoining blocks share fetches. A
 * cache failure is retried once straight from the file's source, bypassing the store (a broken cache never fails a
 * read). Not thread-safe, as parquet-mr streams are not.
 */
final class CachedSeekableInputStream extends SeekableInputStream
{
    private final CachedCursor cursor;

    CachedSeekableInputStream(final SharedCache shared, final String key, final long length, final URI location)
    {
        this.cursor = new CachedCursor(shared, key, length, location);
    }

    @Override
    public long getPos()
    {
        return cursor.position();
    }

    @Override
    public void seek(final long newPos) throws IOException
    {
        cursor.seek(newPos);
    }

    @Override
    public int read() throws IOException
    {
        return cursor.read();
    }

    @Override
    public int read(final byte[] buffer, final int offset, final int len) throws IOException
    {
        return cursor.read(buffer, offset, len);
    }

    @Override
    public void readFully(final byte[] bytes) throws IOException
    {
        readFully(bytes, 0, bytes.length);
    }

    @Override
    public void readFully(final byte[] bytes, final int start, final int len) throws IOException
    {
        cursor.readFully(ByteBuffer.wrap(bytes, start, len));
    }

    @Override
    public int read(final ByteBuffer buf) throws IOException
    {
        return cursor.read(buf);
    }

    @Override
    public void readFully(final ByteBuffer buf) throws IOException
    {
        cursor.readFully(buf);
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
        cursor.checkOpen();
        final List<RangeRequest> requests = new ArrayList<>(ranges.size());
        final List<ByteBuffer> buffers = new ArrayList<>(ranges.size());
        for (final ParquetFileRange range : ranges)
        {
            cursor.checkWithin(range.getOffset(), range.getLength());
            final ByteBuffer buffer = allocator.allocate(range.getLength());
            buffer.limit(buffer.position() + range.getLength());
            buffers.add(buffer);
            requests.add(RangeRequest.of(range.getOffset(), buffer));
        }
        final SharedCache shared = cursor.shared();
        final String key = cursor.key();
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
        cursor.close();
    }
}
