package dev.offcache.embed;

import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;

import dev.offcache.range.engine.RangeCache;
import dev.offcache.range.ram.RamBlockStore;
import dev.offcache.range.l2.L2Client;
import dev.offcache.range.l2.shard.ShardedL2Client;
import dev.offcache.range.metadata.ParquetFooter;
import dev.offcache.range.metadata.ParquetFooterCache;
import dev.offcache.range.metrics.MetricFamilies;
import dev.offcache.range.metrics.MetricNames;
import dev.offcache.range.origin.OriginException;
import dev.offcache.range.origin.ShortReadException;

/**
 * One range cache of a JVM, shared by every engine adapter instance with the same {@link CacheSettings}: the L1
 * capacity is the process's, not an instance's. Reads go to {@link #cache()} by {@link CacheKeys} keys; misses are
 * read through the {@link OriginRouter} from whichever source serves the key's prefix, or first from the L2 servers
 * when the settings name some ({@link L2Bridge}). Parsed Parquet footers have
 * their own cache ({@link #footer}), whose bytes come through the range cache.
 *
 * <p>Memory: the cache owns its L1 slab (off-heap, {@code l1Bytes}) and staging buffers; {@link JvmCaches} closes it
 * at JVM exit (or in tests). Adapters never close it.
 */
public final class SharedCache implements AutoCloseable
{
    private final CacheSettings settings;
    private final OriginRouter router = new OriginRouter();
    private final L2Bridge l2;
    private final RangeCache cache;
    private volatile ParquetFooterCache<String> footers;

    SharedCache(final CacheSettings settings)
    {
        this.settings = settings;
        this.l2 = settings.l2().enabled() ? new L2Bridge(router, settings.l2()) : null;
        try
        {
            this.cache = RangeCache.newBuilder()
                .origin(l2 == null ? router : l2)
                .l1CapacityBytes(settings.l1Bytes())
                .storeFactory(RamBlockStore::create)
                .blockSize(settings.blockSize())
                .fetchPermits(settings.fetchPermits(), Math.max(1, settings.fetchPermits() / 4))
                .coalesceGapBytes(settings.coalesceGapBytes())
                .countersFile(CountersFileSetting.next())
                .build();
        }
        catch (final RuntimeException | Error ex)
        {
            if (l2 != null)
            {
                l2.close();
            }
            throw ex;
        }
    }

    /**
     * Returns the settings it was built with.
     *
     * @return the settings it was built with.
     */
    public CacheSettings settings()
    {
        return settings;
    }

    /**
     * Returns the range cache (keys from {@link CacheKeys}).
     *
     * @return the range cache (keys from {@link CacheKeys}).
     */
    public RangeCache cache()
    {
        return cache;
    }

    /**
     * Returns the router that finds a source for each miss.
     *
     * @return the router that finds a source for each miss.
     */
    public OriginRouter router()
    {
        return router;
    }

    /**
     * Returns L2 misses go through, or null when the settings name no L2 servers.
     *
     * @return the L2 bridge, or null.
     */
    public L2Bridge l2()
    {
        return l2;
    }

    /**
     * The key of a file at a version, with its length remembered so reading it asks no origin for a size.
     *
     * @param location the file.
     * @param length   its length.
     * @param version  its version ({@link CacheKeys#mtimeVersion} and friends).
     * @return the key.
     */
    public String open(final URI location, final long length, final String version)
    {
        final String key = CacheKeys.key(location, length, version);
        cache.rememberSize(key, length);
        return key;
    }

    /**
     * The parsed footer of a Parquet file, read once through the range cache and kept parsed.
     *
     * @param key the file's key.
     * @return the footer.
     * @throws IOException when the file is not Parquet or its footer cannot be read.
     */
    public ParquetFooter footer(final String key) throws IOException
    {
        ParquetFooterCache<String> footerCache = footers;
        if (footerCache == null)
        {
            synchronized (this)
            {
                footerCache = footers;
                if (footerCache == null)
                {
                    footerCache = new ParquetFooterCache<>(settings.metadataCacheBytes(),
                        ParquetFooterCache.DEFAULT_MAX_FOOTER_BYTES, cache::readTail);
                    footers = footerCache;
                }
            }
        }
        return footerCache.footer(key);
    }

    /**
     * Returns the footer cache, or null before the first footer was asked for.
     *
     * @return the footer cache, or null before the first footer was asked for.
     */
    public ParquetFooterCache<String> footers()
    {
        return footers;
    }

    /**
     * Returns blocks served from L1 since the cache was made.
     *
     * @return blocks served from L1 since the cache was made.
     */
    public long blockHits()
    {
        return cache.metrics().value(MetricNames.BLOCK_HITS);
    }

    /**
     * Returns blocks that missed L1 since the cache was made.
     *
     * @return blocks that missed L1 since the cache was made.
     */
    public long blockMisses()
    {
        return cache.metrics().value(MetricNames.BLOCK_MISSES);
    }

    /**
     * Returns bytes read from the sources (the origin) since the cache was made.
     *
     * @return bytes read from the sources (the origin) since the cache was made.
     */
    public long originBytes()
    {
        return cache.metrics().value(MetricNames.ORIGIN_BYTES + MetricNames.DEMAND) +
            cache.metrics().value(MetricNames.ORIGIN_BYTES + MetricNames.PREFETCH);
    }

    /**
     * Returns reads sent to the sources (the origin) since the cache was made.
     *
     * @return reads sent to the sources (the origin) since the cache was made.
     */
    public long originGets()
    {
        return cache.metrics().value(MetricNames.ORIGIN_GETS + MetricNames.DEMAND) +
            cache.metrics().value(MetricNames.ORIGIN_GETS + MetricNames.PREFETCH);
    }

    /**
     * Adds this JVM's cache metrics to a scrape, read now: the engine's ({@code offcache_range_*}, its RAM store.s
     * {@code offcache_range_l1_*} among them), the footer cache's once it exists ({@code offcache_metadata_cache_*})
     * and the L2 client's when L2 servers are set ({@code offcache_l2client_*}, and {@code offcache_l2shard_*} with
     * a {@code server} label for several servers). An engine with a Prometheus registry registers
     * {@code () -> { MetricFamilies out = new MetricFamilies(); shared.collectInto(out); return out.snapshots(); }}.
     *
     * @param out the scrape's families.
     */
    public void collectInto(final MetricFamilies out)
    {
        cache.metrics().collectInto(out);
        final ParquetFooterCache<String> footerCache = footers;
        if (footerCache != null)
        {
            footerCache.collectInto(out);
        }
        if (l2 != null)
        {
            if (l2.client() instanceof L2Client single)
            {
                single.metrics().collectInto(out);
            }
            else if (l2.client() instanceof ShardedL2Client sharded)
            {
                sharded.collectInto(out);
            }
        }
    }

    /**
     * This JVM's cache metrics ({@link #collectInto}) in the Prometheus text format.
     *
     * @return the exposition text.
     */
    public String prometheusText()
    {
        return MetricFamilies.textOf(this::collectInto);
    }

    /**
     * Copies bytes of a file through the cache, or, when the cache fails for any reason, straight from the file's
     * source ({@link #readFromSource}): the read path of the adapters' streams (a broken cache never fails a read).
     *
     * @param key         the file's key.
     * @param position    the first byte; the range must lie inside the file (callers check).
     * @param destination where the bytes go, position to limit; the position advances by the bytes read.
     * @return true when the cache served the read, false when the source did.
     * @throws OriginException when the source fails as well.
     */
    public boolean readOrFallback(final String key, final long position, final ByteBuffer destination)
    {
        final int start = destination.position();
        try
        {
            cache.read(key, position, destination);
            return true;
        }
        catch (final RuntimeException ex)
        {
            destination.position(start);
            readFromSource(key, position, destination);
            return false;
        }
    }

    /**
     * Reads bytes straight from the file's source, bypassing the store and the fetch machinery: the fallback of an
     * adapter whose cache read failed (a broken cache never fails a read). Fills the buffer and advances its
     * position.
     *
     * @param key         the file's key.
     * @param position    the first byte.
     * @param destination where the bytes go, position to limit.
     * @throws OriginException when the source fails too, or ends early.
     */
    public void readFromSource(final String key, final long position, final ByteBuffer destination)
    {
        final int want = destination.remaining();
        final int got = router.read(key, position, destination.slice()).join();
        if (got != want)
        {
            throw new ShortReadException(key, position, want, got);
        }
        destination.position(destination.position() + want);
    }

    @Override
    public void close()
    {
        cache.close();
    }
}
