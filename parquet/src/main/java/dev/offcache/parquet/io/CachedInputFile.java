package dev.offcache.parquet.io;

import java.io.IOException;
import java.net.URI;

import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

import dev.offcache.embed.CacheKeys;
import dev.offcache.embed.SharedCache;

/**
 * A Parquet {@link InputFile} read through a shared range cache: streams are positional reads of the cache, and
 * {@link #openReader} hands parquet-mr the footer from the parsed-footer cache, so a hot file's footer is neither
 * fetched nor parsed again. The file's bytes come from the {@code EngineOrigin} registered for its location's prefix
 * (for example {@code LocalFileOrigin} for {@code file:}).
 *
 * <p>Identity: location, length and version ({@link CacheKeys}); the length is known up front, so no size is asked.
 */
public final class CachedInputFile implements InputFile
{
    private static final ParquetMetadataConverter CONVERTER = new ParquetMetadataConverter();

    private final SharedCache shared;
    private final String key;
    private final long length;
    private final URI location;

    private CachedInputFile(final SharedCache shared, final String key, final long length, final URI location)
    {
        this.shared = shared;
        this.key = key;
        this.length = length;
        this.location = location;
    }

    /**
     * A file at a version.
     *
     * @param shared   the cache.
     * @param location the file.
     * @param length   its length.
     * @param version  its version ({@link CacheKeys#mtimeVersion}, {@link CacheKeys#etagVersion} or
     *                 {@link CacheKeys#LENGTH_ONLY} for files never rewritten).
     * @return the input file.
     */
    public static CachedInputFile of(
        final SharedCache shared, final URI location, final long length, final String version)
    {
        return new CachedInputFile(shared, shared.open(location, length, version), length, location);
    }

    @Override
    public long getLength()
    {
        return length;
    }

    @Override
    public SeekableInputStream newStream()
    {
        return new CachedSeekableInputStream(shared, key, length, location);
    }

    /**
     * The file's footer, from the parsed-footer cache (read through the range cache on a miss).
     *
     * @return parquet-mr's footer.
     * @throws IOException when the file is not Parquet or cannot be read.
     */
    public ParquetMetadata footer() throws IOException
    {
        return CONVERTER.fromParquetMetadata(shared.footer(key).metaData());
    }

    /**
     * A parquet-mr reader over this file with the cached footer.
     *
     * @param options read options.
     * @return the reader; the caller closes it.
     * @throws IOException when the file cannot be read.
     */
    public ParquetFileReader openReader(final ParquetReadOptions options) throws IOException
    {
        return new ParquetFileReader(this, footer(), options, newStream());
    }

    /**
     * Returns the cache key.
     *
     * @return the cache key.
     */
    public String key()
    {
        return key;
    }

    @Override
    public String toString()
    {
        return "CachedInputFile{" + location + ", " + length + " bytes}";
    }
}
