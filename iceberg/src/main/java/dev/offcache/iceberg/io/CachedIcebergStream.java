package dev.offcache.iceberg.io;

import java.io.EOFException;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;

import org.apache.iceberg.io.RangeReadable;
import org.apache.iceberg.io.SeekableInputStream;

import dev.offcache.embed.SharedCache;

/**
 * The stream of a {@link CachedIcebergInputFile}: sequential and positional ({@link RangeReadable}: {@code readFully},
 * {@code readTail}) reads of the shared cache. A failed cache read is served straight from the file's source (a
 * broken cache never fails a read). Not thread-safe, as Iceberg's streams are not.
 */
final class CachedIcebergStream extends SeekableInputStream implements RangeReadable
{
    private final SharedCache shared;
    private final String key;
    private final long length;
    private final URI location;
    private final byte[] oneByte = new byte[1];
    private long pos;
    private boolean closed;

    CachedIcebergStream(final SharedCache shared, final String key, final long length, final URI location)
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
        copy(pos, buffer, offset, n);
        pos += n;
        return n;
    }

    @Override
    public void readFully(final long position, final byte[] buffer, final int offset, final int len)
        throws IOException
    {
        checkOpen();
        if (position < 0 || position + len > length)
        {
            throw new EOFException("read of " + len + " bytes at " + position + " outside " + location + " (" +
                length + " bytes)");
        }
        copy(position, buffer, offset, len);
    }

    @Override
    public int readTail(final byte[] buffer, final int offset, final int len) throws IOException
    {
        checkOpen();
        final int n = (int) Math.min(len, length);
        copy(length - n, buffer, offset, n);
        return n;
    }

    @Override
    public void close()
    {
        closed = true;
    }

    private void copy(final long position, final byte[] buffer, final int offset, final int len)
    {
        if (len > 0)
        {
            shared.readOrFallback(key, position, ByteBuffer.wrap(buffer, offset, len));
        }
    }

    private void checkOpen() throws IOException
    {
        if (closed)
        {
            throw new IOException("stream of " + location + " is closed");
        }
    }
}
