package dev.offcache.embed;

import java.io.EOFException;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;

/**
 * A read position over one object of known length in the JVM's shared cache: the seek/read/readFully semantics the
 * engines' stream types (Parquet's and Iceberg's {@code SeekableInputStream}) share, so each adapter's stream only
 * maps its interface onto this. Every read goes through {@link SharedCache#readOrFallback} (a broken cache never
 * fails a read). Not thread-safe, as the engines' streams are not; holds no resources of its own.
 */
public final class CachedCursor
{
    private final SharedCache shared;
    private final String key;
    private final long length;
    private final URI location;
    private final byte[] oneByte = new byte[1];
    private long pos;
    private boolean closed;

    /**
     * A cursor at position 0.
     *
     * @param shared   the shared cache.
     * @param key      the object's cache key.
     * @param length   the object's length.
     * @param location where the object is, for messages.
     */
    public CachedCursor(final SharedCache shared, final String key, final long length, final URI location)
    {
        this.shared = shared;
        this.key = key;
        this.length = length;
        this.location = location;
    }

    /**
     * The shared cache.
     *
     * @return it.
     */
    public SharedCache shared()
    {
        return shared;
    }

    /**
     * The object's cache key.
     *
     * @return it.
     */
    public String key()
    {
        return key;
    }

    /**
     * The object's length.
     *
     * @return bytes.
     */
    public long length()
    {
        return length;
    }

    /**
     * The position.
     *
     * @return the next byte a sequential read returns.
     */
    public long position()
    {
        return pos;
    }

    /**
     * Moves the position.
     *
     * @param newPos from 0 to the length.
     * @throws IOException when closed, or (an {@link EOFException}) outside the object.
     */
    public void seek(final long newPos) throws IOException
    {
        checkOpen();
        if (newPos < 0 || newPos > length)
        {
            throw new EOFException("seek to " + newPos + " outside " + location + " (" + length + " bytes)");
        }
        pos = newPos;
    }

    /**
     * One byte.
     *
     * @return the byte, or -1 at the end.
     * @throws IOException when closed.
     */
    public int read() throws IOException
    {
        return read(oneByte, 0, 1) < 0 ? -1 : oneByte[0] & 0xFF;
    }

    /**
     * Up to {@code len} bytes from the position, which advances.
     *
     * @param buffer where to.
     * @param offset its first index.
     * @param len    at most this many.
     * @return bytes read, 0 for {@code len == 0}, -1 at the end.
     * @throws IOException when closed.
     */
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
        advance(ByteBuffer.wrap(buffer, offset, n));
        return n;
    }

    /**
     * Up to the buffer's remaining bytes from the position, which advances.
     *
     * @param buffer where to, from its position.
     * @return bytes read, 0 when it has no room, -1 at the end.
     * @throws IOException when closed.
     */
    public int read(final ByteBuffer buffer) throws IOException
    {
        checkOpen();
        if (!buffer.hasRemaining())
        {
            return 0;
        }
        if (pos >= length)
        {
            return -1;
        }
        final int n = (int) Math.min(buffer.remaining(), length - pos);
        final int limit = buffer.limit();
        buffer.limit(buffer.position() + n);
        try
        {
            advance(buffer);
        }
        finally
        {
            buffer.limit(limit);
        }
        return n;
    }

    /**
     * Exactly the buffer's remaining bytes from the position, which advances.
     *
     * @param buffer where to, from its position.
     * @throws IOException when closed, or (an {@link EOFException}) when the object ends first.
     */
    public void readFully(final ByteBuffer buffer) throws IOException
    {
        checkOpen();
        checkWithin(pos, buffer.remaining());
        advance(buffer);
    }

    /**
     * Exactly {@code len} bytes at {@code position}; the cursor's position does not move.
     *
     * @param position the first byte.
     * @param buffer   where to.
     * @param offset   its first index.
     * @param len      bytes.
     * @throws IOException when closed, or (an {@link EOFException}) outside the object.
     */
    public void readFully(final long position, final byte[] buffer, final int offset, final int len)
        throws IOException
    {
        checkOpen();
        checkWithin(position, len);
        if (len > 0)
        {
            shared.readOrFallback(key, position, ByteBuffer.wrap(buffer, offset, len));
        }
    }

    /**
     * The object's last bytes, as many as fit.
     *
     * @param buffer where to.
     * @param offset its first index.
     * @param len    at most this many.
     * @return bytes read.
     * @throws IOException when closed.
     */
    public int readTail(final byte[] buffer, final int offset, final int len) throws IOException
    {
        final int n = (int) Math.min(len, length);
        readFully(length - n, buffer, offset, n);
        return n;
    }

    /**
     * Later reads fail.
     */
    public void close()
    {
        closed = true;
    }

    /**
     * Fails when closed.
     *
     * @throws IOException when closed.
     */
    public void checkOpen() throws IOException
    {
        if (closed)
        {
            throw new IOException("stream of " + location + " is closed");
        }
    }

    /**
     * Fails when a read would leave the object.
     *
     * @param position the first byte.
     * @param len      bytes.
     * @throws EOFException when {@code [position, position + len)} is not inside the object.
     */
    public void checkWithin(final long position, final long len) throws EOFException
    {
        if (position < 0 || len < 0 || position + len > length)
        {
            throw new EOFException("read of " + len + " bytes at " + position + " outside " + location + " (" +
                length + " bytes)");
        }
    }

    private void advance(final ByteBuffer buffer)
    {
        final int n = buffer.remaining();
        shared.readOrFallback(key, pos, buffer);
        pos += n;
    }
}
