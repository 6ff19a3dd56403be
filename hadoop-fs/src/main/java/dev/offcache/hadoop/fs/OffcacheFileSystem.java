package dev.offcache.hadoop.fs;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.net.URI;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.EtagSource;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FilterFileSystem;
import org.apache.hadoop.fs.FutureDataInputStreamBuilder;
import org.apache.hadoop.fs.Options.OpenFileOptions;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.impl.OpenFileParameters;

import dev.offcache.embed.CacheKeys;
import dev.offcache.embed.CacheSettings;
import dev.offcache.embed.JvmCaches;
import dev.offcache.embed.SharedCache;

/**
 * A Hadoop {@link FileSystem} that reads through offcache and keeps users' paths: register it as
 * {@code fs.<scheme>.impl} (for {@code s3a}, {@code file}, {@code hdfs}, {@code gs}, {@code abfs}...) and name the real
 * implementation in {@code offcache.fs.<scheme>.impl} (known schemes have a default). Everything but reads (create,
 * append, delete, rename, list, status) goes straight to the real file system; opened files are read through the
 * JVM's shared range cache ({@link JvmCaches}, one per {@code offcache.*} settings), keyed by path, length and
 * modification time (or ETag), so a rewritten file is never served from the old file's blocks.
 *
 * <p>{@code openFile()} with a {@code FileStatus} ({@code withFileStatus}) makes no status call; with only
 * {@code fs.option.openfile.length} neither, and the file is then identified by path and length alone (for table
 * formats that never rewrite a path). A plain {@code open(Path)} asks the real file system for the status once.
 *
 * <p>Ownership: this instance owns the real file system (closed with it); the shared cache belongs to the JVM.
 */
public class OffcacheFileSystem extends FilterFileSystem
{
    /** {@code offcache.fs.<scheme>.impl}: the class of the real file system wrapped for a scheme. */
    public static final String WRAPPED_IMPL = "offcache.fs.%s.impl";
    /** {@code offcache.fs.version}: {@code mtime} (default) or {@code etag}, what identifies a file's version. */
    public static final String VERSION = "offcache.fs.version";

    private static final Map<String, String> DEFAULT_WRAPPED = Map.of(
        "file", "org.apache.hadoop.fs.LocalFileSystem",
        "s3a", "org.apache.hadoop.fs.s3a.S3AFileSystem",
        "hdfs", "org.apache.hadoop.hdfs.DistributedFileSystem",
        "gs", "com.google.cloud.hadoop.fs.gcs.GoogleHadoopFileSystem",
        "abfs", "org.apache.hadoop.fs.azurebfs.AzureBlobFileSystem",
        "abfss", "org.apache.hadoop.fs.azurebfs.SecureAzureBlobFileSystem");

    private SharedCache shared;
    private HadoopOrigin source;
    private String prefix;
    private boolean preferEtag;

    /**
     * Made by Hadoop's {@code FileSystem.get} from {@code fs.<scheme>.impl}.
     */
    public OffcacheFileSystem()
    {
        super();
    }

    @Override
    public void initialize(final URI name, final Configuration conf) throws IOException
    {
        final String scheme = name.getScheme();
        if (scheme == null)
        {
            throw new IOException("offcache: no scheme in " + name);
        }
        final String key = String.format(Locale.ROOT, WRAPPED_IMPL, scheme);
        final String impl = conf.getTrimmed(key, DEFAULT_WRAPPED.get(scheme.toLowerCase(Locale.ROOT)));
        if (impl == null || impl.isEmpty())
        {
            throw new IOException("offcache: no real file system for scheme '" + scheme + "': set " + key +
                " to its class (for example org.apache.hadoop.fs.s3a.S3AFileSystem)");
        }
        final Class<?> type;
        try
        {
            type = conf.getClassByName(impl);
        }
        catch (final ClassNotFoundException ex)
        {
            throw new IOException("offcache: " + key + "=" + impl + " is not on the class path", ex);
        }
        if (OffcacheFileSystem.class.isAssignableFrom(type) || !FileSystem.class.isAssignableFrom(type))
        {
            throw new IOException("offcache: " + key + "=" + impl + " must name the real file system, not " +
                (FileSystem.class.isAssignableFrom(type) ? "offcache itself" : "a non-FileSystem class"));
        }
        final String version = conf.getTrimmed(VERSION, "mtime").toLowerCase(Locale.ROOT);
        if (!"mtime".equals(version) && !"etag".equals(version))
        {
            throw new IOException("offcache: invalid " + VERSION + "='" + version + "': use mtime or etag");
        }
        preferEtag = "etag".equals(version);
        final CacheSettings settings;
        try
        {
            settings = CacheSettings.from(conf::getTrimmed);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IOException("offcache: " + ex.getMessage(), ex);
        }
        final FileSystem real = newWrapped(type, key, impl);
        real.setConf(conf);
        real.initialize(name, conf);
        this.fs = real;
        try
        {
            super.initialize(name, conf);
            shared = JvmCaches.get(settings);
        }
        catch (final IOException | RuntimeException ex)
        {
            real.close();
            throw ex;
        }
        prefix = CacheKeys.prefix(getUri());
        source = new HadoopOrigin(real);
        shared.router().register(prefix, source);
    }

    /**
     * The real file system, made with its no-argument constructor. Not through Hadoop's
     * {@code ReflectionUtils.newInstance}: with MapReduce on the class path that loads {@code JobConf}, whose static
     * initialiser adds {@code mapred-default.xml} and {@code yarn-default.xml} (and their {@code -site} files) to every
     * {@link Configuration} of the JVM, so each later {@code new Configuration()} (parquet-mr's
     * {@code ParquetReadOptions.builder()} makes one per file it opens) parses two more large XML files: a few
     * milliseconds per warm Parquet scan that the adapter would add to engines that make their file systems
     * themselves.
     */
    private static FileSystem newWrapped(final Class<?> type, final String key, final String impl) throws IOException
    {
        try
        {
            final Constructor<?> constructor = type.getDeclaredConstructor();
            constructor.setAccessible(true);
            return (FileSystem) constructor.newInstance();
        }
        catch (final NoSuchMethodException ex)
        {
            throw new IOException("offcache: " + key + "=" + impl + " has no no-argument constructor", ex);
        }
        catch (final InvocationTargetException ex)
        {
            throw new IOException("offcache: could not make " + impl + " (" + key + "): " + ex.getCause(),
                ex.getCause());
        }
        catch (final ReflectiveOperationException | RuntimeException ex)
        {
            throw new IOException("offcache: could not make " + impl + " (" + key + "): " + ex, ex);
        }
    }

    @Override
    public String getScheme()
    {
        return fs.getScheme();
    }

    /**
     * Returns the wrapped (real) file system.
     *
     * @return the wrapped (real) file system.
     */
    public FileSystem wrapped()
    {
        return fs;
    }

    /**
     * Returns the JVM's shared cache this instance reads through.
     *
     * @return the JVM's shared cache this instance reads through.
     */
    public SharedCache sharedCache()
    {
        return shared;
    }

    @Override
    public FSDataInputStream open(final Path path, final int bufferSize) throws IOException
    {
        return open(fs.getFileStatus(path));
    }

    /**
     * The standard builder over this file system, so {@code build()} comes back to {@link #openFileWithOptions}
     * ({@code FilterFileSystem} would hand the builder of the real file system out, bypassing the cache).
     */
    @Override
    public FutureDataInputStreamBuilder openFile(final Path path) throws IOException
    {
        final FutureDataInputStreamBuilder builder = createDataInputStreamBuilder(this, path);
        return builder;
    }

    @Override
    protected CompletableFuture<FSDataInputStream> openFileWithOptions(
        final Path path, final OpenFileParameters parameters) throws IOException
    {
        for (final String mandatory : parameters.getMandatoryKeys())
        {
            if (!OpenFileOptions.FS_OPTION_OPENFILE_STANDARD_OPTIONS.contains(mandatory))
            {
                // An option only the real file system understands (or refuses): let it decide, uncached.
                return super.openFileWithOptions(path, parameters);
            }
        }
        final CompletableFuture<FSDataInputStream> result = new CompletableFuture<>();
        try
        {
            final FileStatus status = parameters.getStatus();
            if (status != null)
            {
                result.complete(open(status, makeQualified(path)));
                return result;
            }
            final long length =
                lengthOption(parameters.getOptions().getTrimmed(OpenFileOptions.FS_OPTION_OPENFILE_LENGTH));
            if (length >= 0)
            {
                final Path qualified = makeQualified(path);
                result.complete(stream(qualified, length, CacheKeys.LENGTH_ONLY));
            }
            else
            {
                result.complete(open(fs.getFileStatus(path)));
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            result.completeExceptionally(ex);
        }
        return result;
    }

    @Override
    public void close() throws IOException
    {
        if (shared != null && source != null)
        {
            shared.router().unregister(prefix, source);
            source = null;
        }
        super.close();
    }

    /**
     * The length an engine passed, leniently as Hadoop reads it ({@code 4096}, {@code 4096.0}); an absent, negative
     * or implausible value (above 2^48 bytes) is ignored, and the file's status is asked for instead.
     */
    static long lengthOption(final String value)
    {
        if (value == null || value.isEmpty())
        {
            return -1;
        }
        double length;
        try
        {
            length = Long.parseLong(value);
        }
        catch (final NumberFormatException notLong)
        {
            try
            {
                length = Double.parseDouble(value);
            }
            catch (final NumberFormatException notNumber)
            {
                return -1;
            }
        }
        return length >= 0 && length <= (double) (1L << 48) ? (long) length : -1;
    }

    private FSDataInputStream open(final FileStatus status) throws IOException
    {
        return open(status, makeQualified(status.getPath()));
    }

    private FSDataInputStream open(final FileStatus status, final Path path) throws IOException
    {
        if (status.isDirectory())
        {
            throw new FileNotFoundException("Can't open " + path + " because it is a directory");
        }
        return stream(path, status.getLen(), versionOf(status));
    }

    private FSDataInputStream stream(final Path path, final long length, final String version)
    {
        final String key = shared.open(path.toUri(), length, version);
        return new FSDataInputStream(new CachedInputStream(shared, key, length, path, fs));
    }

    private String versionOf(final FileStatus status)
    {
        final String etag = status instanceof EtagSource ? ((EtagSource) status).getEtag() : null;
        final boolean hasEtag = etag != null && !etag.isEmpty();
        if (hasEtag && (preferEtag || status.getModificationTime() <= 0))
        {
            return CacheKeys.etagVersion(etag);
        }
        return status.getModificationTime() > 0 ? CacheKeys.mtimeVersion(status.getModificationTime()) :
            CacheKeys.LENGTH_ONLY;
    }
}
