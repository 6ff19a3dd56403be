package dev.offcache.iceberg.io;

import java.net.URI;

import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.SeekableInputStream;

import dev.offcache.embed.SharedCache;

/**
 * An Iceberg {@link InputFile} whose streams read through the shared range cache. Its length came from Iceberg's own
 * metadata (manifests record every data file's size), so opening it asks nothing; {@link #exists()} asks the wrapped
 * file.
 */
final class CachedIcebergInputFile implements InputFile
{
    private final SharedCache shared;
    private final InputFile wrapped;
    private final String location;
    private final URI uri;
    private final long length;
    private final String key;

    CachedIcebergInputFile(
        final SharedCache shared, final InputFile wrapped, final String location, final URI uri, final long length,
        final String key)
    {
        this.shared = shared;
        this.wrapped = wrapped;
        this.location = location;
        this.uri = uri;
        this.length = length;
        this.key = key;
    }

    @Override
    public long getLength()
    {
        return length;
    }

    @Override
    public SeekableInputStream newStream()
    {
        return new CachedIcebergStream(shared, key, length, uri);
    }

    @Override
    public String location()
    {
        return location;
    }

    @Override
    public boolean exists()
    {
        return wrapped.exists();
    }

    @Override
    public String toString()
    {
        return "CachedIcebergInputFile{" + location + ", " + length + " bytes}";
    }
}
