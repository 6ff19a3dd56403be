package dev.offcache.iceberg.io;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.hadoop.conf.Configurable;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.DelegateFileIO;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.SupportsBulkOperations;
import org.apache.iceberg.io.SupportsPrefixOperations;

import dev.offcache.embed.CacheKeys;
import dev.offcache.embed.CacheSettings;
import dev.offcache.embed.JvmCaches;
import dev.offcache.embed.SharedCache;

/**
 * An Iceberg {@link FileIO} that reads through offcache: set {@code io-impl=dev.offcache.iceberg.io.OffcacheFileIO}
 * in the catalog and name the real one in {@code offcache.io-impl} (default {@code HadoopFileIO}). Files Iceberg
 * opens with a known length (data and delete files, manifests: their sizes are in Iceberg's metadata) are read
 * through the JVM's shared range cache ({@link JvmCaches}, one per {@code offcache.*} settings) and identified by
 * location and length, since Iceberg never rewrites a file; files opened without a length (table metadata, version
 * hints, which can change) and everything else (writes, deletes, listings) go straight to the wrapped FileIO.
 *
 * <p>Serializable, as Spark ships it to executors: the wrapped FileIO and the properties travel, the cache handle is
 * transient and looked up again in each JVM.
 */
public class OffcacheFileIO implements DelegateFileIO, Configurable
{
    /** The property naming the wrapped FileIO's class. */
    public static final String WRAPPED_IMPL = "offcache.io-impl";
    /** The default wrapped FileIO. */
    public static final String DEFAULT_WRAPPED_IMPL = "org.apache.iceberg.hadoop.HadoopFileIO";

    private static final long serialVersionUID = 1L;

    private HashMap<String, String> properties = new HashMap<>();
    private FileIO wrapped;
    private CacheSettings settings;
    private transient Configuration conf;
    private transient volatile SharedCache shared;
    private transient Set<String> registered;
    private transient IcebergOrigin source;

    /**
     * Made by Iceberg's {@code CatalogUtil.loadFileIO} from {@code io-impl}; {@link #initialize} follows.
     */
    public OffcacheFileIO()
    {
    }

    /**
     * Wraps a FileIO directly (for code that builds its own FileIO).
     *
     * @param wrapped    the real FileIO, already initialized; this instance closes it.
     * @param properties {@code offcache.*} settings.
     */
    public OffcacheFileIO(final FileIO wrapped, final Map<String, String> properties)
    {
        this.properties = new HashMap<>(properties);
        this.settings = CacheSettings.from(this.properties::get);
        this.wrapped = wrapped;
    }

    @Override
    public void initialize(final Map<String, String> props)
    {
        properties = new HashMap<>(props);
        settings = CacheSettings.from(properties::get);
        final String impl = properties.getOrDefault(WRAPPED_IMPL, DEFAULT_WRAPPED_IMPL);
        if (impl.equals(OffcacheFileIO.class.getName()))
        {
            throw new IllegalArgumentException(WRAPPED_IMPL + " must name the real FileIO, not offcache itself");
        }
        wrapped = CatalogUtil.loadFileIO(impl, properties, conf);
    }

    @Override
    public void setConf(final Configuration configuration)
    {
        conf = configuration;
    }

    @Override
    public Configuration getConf()
    {
        return conf;
    }

    /**
     * Returns the wrapped FileIO.
     *
     * @return the wrapped FileIO.
     */
    public FileIO wrapped()
    {
        return wrapped;
    }

    /**
     * Returns the JVM's shared cache this instance reads through (looked up on first use).
     *
     * @return the JVM's shared cache this instance reads through (looked up on first use).
     */
    public SharedCache sharedCache()
    {
        SharedCache cache = shared;
        if (cache == null)
        {
            synchronized (this)
            {
                cache = shared;
                if (cache == null)
                {
                    cache = JvmCaches.get(settings);
                    registered = ConcurrentHashMap.newKeySet();
                    source = new IcebergOrigin(wrapped);
                    shared = cache;
                }
            }
        }
        return cache;
    }

    @Override
    public InputFile newInputFile(final String path)
    {
        // No length: table metadata and version hints, which may change; never cached.
        return wrapped.newInputFile(path);
    }

    @Override
    public InputFile newInputFile(final String path, final long length)
    {
        final InputFile real = wrapped.newInputFile(path, length);
        final URI uri;
        final SharedCache cache;
        try
        {
            uri = toUri(path);
            cache = sharedCache();
            final String prefix = CacheKeys.prefix(uri);
            if (registered.add(prefix))
            {
                cache.router().registerIfAbsent(prefix, source);
            }
        }
        catch (final RuntimeException ex)
        {
            // A location the cache cannot key, or no cache at all: read it through the real FileIO.
            return real;
        }
        final String key = cache.open(uri, length, CacheKeys.LENGTH_ONLY);
        return new CachedIcebergInputFile(cache, real, path, uri, length, key);
    }

    @Override
    public OutputFile newOutputFile(final String path)
    {
        return wrapped.newOutputFile(path);
    }

    @Override
    public void deleteFile(final String path)
    {
        wrapped.deleteFile(path);
    }

    @Override
    public Map<String, String> properties()
    {
        return Map.copyOf(properties);
    }

    @Override
    public Iterable<FileInfo> listPrefix(final String prefix)
    {
        return prefixOperations().listPrefix(prefix);
    }

    @Override
    public void deletePrefix(final String prefix)
    {
        prefixOperations().deletePrefix(prefix);
    }

    @Override
    public void deleteFiles(final Iterable<String> paths) throws BulkDeletionFailureException
    {
        if (!(wrapped instanceof SupportsBulkOperations))
        {
            for (final String path : paths)
            {
                wrapped.deleteFile(path);
            }
            return;
        }
        ((SupportsBulkOperations) wrapped).deleteFiles(paths);
    }

    @Override
    public void close()
    {
        if (wrapped != null)
        {
            wrapped.close();
        }
    }

    private SupportsPrefixOperations prefixOperations()
    {
        if (!(wrapped instanceof SupportsPrefixOperations))
        {
            throw new UnsupportedOperationException(wrapped.getClass().getName() +
                " does not list or delete by prefix");
        }
        return (SupportsPrefixOperations) wrapped;
    }

    /** A location as a URI; Iceberg locations are plain strings and may hold characters a URI must escape. */
    static URI toUri(final String location)
    {
        try
        {
            return new URI(location);
        }
        catch (final URISyntaxException notEscaped)
        {
            final int colon = location.indexOf(':');
            if (colon <= 0)
            {
                throw new IllegalArgumentException("not a location with a scheme: " + location, notEscaped);
            }
            final String scheme = location.substring(0, colon);
            String rest = location.substring(colon + 1);
            String authority = null;
            if (rest.startsWith("//"))
            {
                final int slash = rest.indexOf('/', 2);
                authority = slash < 0 ? rest.substring(2) : rest.substring(2, slash);
                rest = slash < 0 ? "/" : rest.substring(slash);
            }
            try
            {
                return new URI(scheme, authority, rest, null, null);
            }
            catch (final URISyntaxException ex)
            {
                throw new IllegalArgumentException("not a usable location: " + location, ex);
            }
        }
    }
}
