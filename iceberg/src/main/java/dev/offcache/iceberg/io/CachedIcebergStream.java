package dev.offcache.iceberg.io;

import java.io.IOException;
import java.net.URI;

import org.apache.iceberg.io.RangeReadable;
import org.apache.iceberg.io.SeekableInputStream;

import dev.offcache.embed.CachedCursor;
import dev.offcache.embed.SharedCache;

/**
 * The stream of a {@link CachedIcebergInputFile}: sequential and positional ({@link RangeReadable}: {@code readFully},
 * {@code readTail}) reads of the shared cache through a {@link CachedCursor}. A failed cache read is served straight
 * from the file's source (a broken cache never fails a read). Not thread-safe, as Iceberg's streams are not.
 */
final class CachedIcebergStream extends SeekableInputStream implements RangeReadable
{
    private final CachedCursor cursor;

    CachedIcebergStream(final SharedCache shared, final String key, final long length, final URI location)
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
    public void readFully(final long position, final byte[] buffer, final int offset, final int len)
        throws IOException
    {
        cursor.readFully(position, buffer, offset, len);
    }

    @Override
    public int readTail(final byte[] buffer, final int offset, final int len) throws IOException
    {
        return cursor.readTail(buffer, offset, len);
    }

    @Override
    public void close()
    {
        cursor.close();
    }
}
