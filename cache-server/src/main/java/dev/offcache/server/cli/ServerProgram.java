package dev.offcache.server.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import dev.offcache.range.engine.RangeCacheBuilder;
import dev.offcache.range.engine.RangeCache;
import dev.offcache.core.counters.CounterTypes;
import dev.offcache.range.metrics.CacheStatsMXBeans;
import dev.offcache.range.metrics.CountersRegion;
import dev.offcache.range.origin.ObjectStore;
import dev.offcache.server.http.ApiKeys;
import dev.offcache.server.http.HttpMetrics;
import dev.offcache.server.http.L2HttpServer;
import dev.offcache.server.http.ObjectKeyPolicy;
import dev.offcache.server.s3.BucketOrigins;
import dev.offcache.server.s3.EngineBackend;
import dev.offcache.server.s3.S3Api;
import dev.offcache.server.s3.S3Buckets;
import dev.offcache.server.s3.S3Credentials;
import dev.offcache.server.source.EngineObjectNames;
import dev.offcache.server.tier.TierCounters;
import dev.offcache.server.tier.TieredBlockStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running L2 server assembled from checked options: the range-cache engine (tier L2) over the origin with the
 * tiered RAM + SSD store (which names its SSD blocks through the engine's {@link RangeCache#objectKey}), and the
 * HTTP front over the engine, and the server's counters region (the HTTP front's and the tiers' counters, in the
 * {@code --server-counters-file} when given). It owns all of them and closes them in order: HTTP (drain, stop
 * prefetch, stop the event loops) → engine (store: spill RAM to SSD; origin) → the counters region, once no thread
 * that writes into it runs → a temporary SSD directory, if it made one.
 */
public final class ServerProgram implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(ServerProgram.class);

    private final TieredBlockStore store;
    private final RangeCache cache;
    private final CountersRegion counters;
    private final L2HttpServer server;
    private final Path temporaryDiskPath;
    private final String apiKey;
    private final CacheStatsMXBeans.Registration statsBean;
    private boolean closed;

    private ServerProgram(
        final CountersRegion counters,
        final TieredBlockStore store,
        final RangeCache cache,
        final L2HttpServer server,
        final Path temporaryDiskPath,
        final String apiKey,
        final CacheStatsMXBeans.Registration statsBean)
    {
        this.statsBean = statsBean;
        this.counters = counters;
        this.store = store;
        this.cache = cache;
        this.server = server;
        this.temporaryDiskPath = temporaryDiskPath;
        this.apiKey = apiKey;
    }

    /**
     * Starts a server.
     *
     * @param options    checked options.
     * @param apiKeys    the accepted keys (null with auth disabled).
     * @param apiKey     one key to print in the example, or null.
     * @param origin     the origin; the program owns it (closed with the engine, or at once if start fails).
     * @param diskPath   the SSD tier's directory.
     * @param diskIsTemp whether to delete {@code diskPath} at close.
     * @param s3Keys     the S3 API's access-key pairs (null when it is off or auth is disabled).
     * @return the running program.
     * @throws InterruptedException when interrupted while binding.
     */
    static ServerProgram start(
        final OffcacheServerCommand options,
        final ApiKeys apiKeys,
        final String apiKey,
        final ObjectStore origin,
        final Path diskPath,
        final boolean diskIsTemp,
        final S3Credentials s3Keys) throws InterruptedException
    {
        final EngineObjectNames names = new EngineObjectNames();
        final RangeCache cache;
        final TieredBlockStore store;
        final CountersRegion counters;
        try
        {
            counters = openCounters(options.serverCountersFile);
        }
        catch (final RuntimeException ex)
        {
            origin.close();
            throw ex;
        }
        // the slab is zeroed as it is allocated: seconds per GiB on a busy machine, so say what the start is doing
        LOG.info("allocating the RAM tier: {} MiB", options.ramMb);
        try
        {
            store = TieredBlockStore.open(storeContext(options).ssdDir(diskPath).names(names)
                .metrics(new TierCounters(counters)));
        }
        catch (final RuntimeException ex)
        {
            origin.close();
            counters.close();
            throw ex;
        }
        try
        {
            // a signal while the RAM tier was allocated stops the start here, before anything listens
            options.stopIfRequested();
            cache = engineBuilder(options).origin(origin).store(store).build();
        }
        catch (final RuntimeException ex)
        {
            store.close();
            origin.close();
            closeCounters(counters, store, null);
            throw ex;
        }
        // The store was opened before the engine that owns it: give it the engine's names now, before any read.
        names.bind(cache);
        store.metrics().countLookupsOf(cache.metrics());
        final int knownSizes = names.rememberSizes(store.ssd().objectSizes(), options.maxObjects);
        if (knownSizes > 0)
        {
            LOG.info("SSD tier recorded the sizes of {} objects: they are served without an origin HEAD", knownSizes);
        }
        try
        {
            final L2HttpServer server = L2HttpServer.launch(serverContext(options)
                .listen(options.listenHost(), options.listenPort())
                .transport(options.transport)
                .engine(cache)
                .apiKeys(apiKeys)
                .authDisabled(options.disableAuth)
                .allowedPrefixes(options.allowedPrefixes())
                .tierMetrics(store.metrics())
                .httpMetrics(new HttpMetrics(counters))
                .moreMetrics(cache.metrics()::collectInto)
                .s3(options.s3ApiEnabled() ? s3Api(options, s3Keys, cache, store) : null));
            final CacheStatsMXBeans.Registration statsBean = registerStats(cache, options.listen);
            return new ServerProgram(counters, store, cache, server, diskIsTemp ? diskPath : null, apiKey, statsBean);
        }
        catch (final InterruptedException | RuntimeException ex)
        {
            cache.close();
            closeCounters(counters, store, null);
            throw ex;
        }
    }

    /**
     * Frees the counters region unless a thread that writes them outlived its join (it then stays mapped: a leak, no
     * crash): the store's spill writer and SSD readers, and once the server has launched, its prefetch workers and
     * event loops.
     */
    private static void closeCounters(
        final CountersRegion counters, final TieredBlockStore store, final L2HttpServer server)
    {
        if (store.threadsStopped() && (null == server || server.threadsStopped()))
        {
            counters.close();
        }
        else
        {
            LOG.warn("a store or server thread outlived its shutdown: the server's counters region stays mapped");
        }
    }

    /**
     * The server's own counters (type id {@link CounterTypes#L2_SERVER}), with room for the HTTP front's and the
     * tiers': in a new memory-mapped file another process reads ({@code CountersFile.read}), or in memory.
     *
     * @param file the {@code --server-counters-file}, or null.
     * @return the region; the program frees it last.
     */
    static CountersRegion openCounters(final Path file)
    {
        return CountersRegion.open(file, CounterTypes.L2_SERVER, HttpMetrics.COUNTERS + TierCounters.COUNTERS);
    }

    /**
     * The engine's statistics as a platform MXBean, {@code dev.offcache:type=RangeCache,name="l2 HOST:PORT"} (the
     * --listen value, stable across restarts); a second server in one JVM on the same value goes without one.
     */
    private static CacheStatsMXBeans.Registration registerStats(final RangeCache cache, final String listen)
    {
        try
        {
            return CacheStatsMXBeans.register("l2 " + listen, cache::stats);
        }
        catch (final IllegalStateException ex)
        {
            LOG.warn("no stats MXBean for this server: {}", ex.getMessage());
            return null;
        }
    }

    /**
     * The engine's settings from the options (without its origin and store), also used to check them before
     * anything is made: the engine's bounds are checked once, by the engine.
     *
     * @param options parsed options.
     * @return the builder.
     */
    static RangeCacheBuilder engineBuilder(final OffcacheServerCommand options)
    {
        return RangeCache.newBuilder()
            .deployment(RangeCacheBuilder.Deployment.L2)
            .blockSize(kibibytes(options.blockSizeKb))
            .maxCoalescedGetBytes(options.maxCoalescedGetBytes)
            .fetchPermits(options.fetchPermits, options.demandReservedPermits)
            .originTimeout(Duration.ofMillis(options.originTimeoutMs))
            .maxObjects(options.maxObjects)
            .countersFile(options.rangeCountersFile);
    }

    /**
     * The HTTP front's limits from the options (without its listener, source and keys), also used to check them
     * before anything is made: the front checks its own bounds.
     *
     * @param options parsed options.
     * @return the context.
     */
    static L2HttpServer.Context serverContext(final OffcacheServerCommand options)
    {
        return new L2HttpServer.Context()
            .ioThreads(options.ioThreads)
            .maxKeyLength(options.maxKeyLength)
            .maxRanges(options.maxRanges)
            .maxBodyBytes(kibibytes(options.maxBodyKb))
            .maxConnections(options.maxConnections)
            .maxConnectionsPerAddress(options.maxConnectionsPerAddress)
            .requestReadTimeout(Duration.ofMillis(options.requestReadTimeoutMs))
            .memoryBudgetBytes(mebibytes(options.memoryBudgetMb))
            .prefetchQueueCapacity(options.prefetchQueue)
            .prefetchThreads(options.prefetchThreads)
            .shutdownGrace(Duration.ofSeconds(options.shutdownGraceSeconds))
            .unreadyDelay(Duration.ofSeconds(options.shutdownUnreadySeconds));
    }

    /**
     * KiB to bytes for an int setting; a value too large for an int is passed as the largest (or smallest), which
     * the components refuse.
     *
     * @param kib kibibytes.
     * @return bytes.
     */
    static int kibibytes(final int kib)
    {
        return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, kib * 1024L));
    }

    /** MiB to bytes, saturating, so an absurd value is refused by its bound instead of wrapping around. */
    private static long mebibytes(final long mib)
    {
        return mib > Long.MAX_VALUE >> 20 ? Long.MAX_VALUE : mib < Long.MIN_VALUE >> 20 ? Long.MIN_VALUE : mib << 20;
    }

    /**
     * The tiered store's settings from the options (without its directory and names), also used to check them
     * (the store checks its own bounds) and its direct memory against the JVM's limit before anything is allocated.
     *
     * @param options parsed options.
     * @return the context.
     */
    static TieredBlockStore.Context storeContext(final OffcacheServerCommand options)
    {
        return new TieredBlockStore.Context()
            .blockSize(kibibytes(options.blockSizeKb))
            .ramCapacityBytes(mebibytes(options.ramMb))
            .ssdCapacityBytes(mebibytes(options.diskMb))
            .ssdScrubBytesPerSecond(mebibytes(options.ssdScrubMbPerS))
            .ssdReadThreads(options.ssdReadThreads)
            .ssdOpenFiles(options.ssdOpenFiles);
    }

    private static S3Api s3Api(
        final OffcacheServerCommand options, final S3Credentials keys, final RangeCache cache,
        final TieredBlockStore store)
    {
        return new S3Api(new S3Api.Context()
            .listen(options.s3ApiHost(), options.s3ApiPort())
            .credentials(keys)
            .authDisabled(options.disableAuth)
            .buckets(s3Buckets(options, cache, store))
            .keyPolicy(new ObjectKeyPolicy(options.maxKeyLength, options.allowedPrefixes()))
            .writes(options.s3ApiWrites)
            .domain(options.s3ApiDomain));
    }

    /**
     * The buckets of the S3 API: the one origin under its bucket name, or each bucket of a {@link BucketOrigins}
     * under its own, its engine keys {@code BUCKET/KEY}.
     */
    private static S3Buckets s3Buckets(
        final OffcacheServerCommand options, final RangeCache cache, final TieredBlockStore store)
    {
        final String region = options.s3ApiRegionName();
        if (!(cache.origin() instanceof BucketOrigins routed))
        {
            return new S3Buckets(List.of(new S3Buckets.Bucket(options.s3ApiBucketName(), region,
                new EngineBackend(cache, store))));
        }
        final List<S3Buckets.Bucket> buckets = new ArrayList<>();
        for (final String name : routed.names())
        {
            buckets.add(new S3Buckets.Bucket(name, region,
                EngineBackend.ofBucket(cache, store, routed.origin(name), name)));
        }
        return new S3Buckets(buckets);
    }

    /**
     * The HTTP server.
     *
     * @return the server.
     */
    public L2HttpServer server()
    {
        return server;
    }

    /**
     * The store.
     *
     * @return the store.
     */
    public TieredBlockStore store()
    {
        return store;
    }

    /**
     * The range-cache engine the server reads through.
     *
     * @return the engine.
     */
    public RangeCache cache()
    {
        return cache;
    }

    /**
     * The example API key printed at start, if one was generated or given.
     *
     * @return the key or null.
     */
    public String apiKey()
    {
        return apiKey;
    }

    @Override
    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        if (null != statsBean)
        {
            try
            {
                statsBean.close();
            }
            catch (final IllegalStateException ex)
            {
                LOG.warn("could not unregister the stats MXBean: {}", ex.getMessage());
            }
        }
        server.close();
        cache.close();
        // last: the event loops and prefetch workers have stopped and the store has joined its threads, so nothing
        // writes into it now; a thread that outlived its join keeps the region mapped (a leak, not a write into
        // freed memory)
        closeCounters(counters, store, server);
        if (null != temporaryDiskPath)
        {
            deleteTree(temporaryDiskPath);
        }
    }

    /**
     * Deletes a temporary SSD directory and everything in it, if it is still there; a failure is logged, not thrown.
     *
     * @param dir the directory.
     */
    static void deleteTree(final Path dir)
    {
        if (!Files.exists(dir))
        {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir))
        {
            for (final Path path : paths.sorted(Comparator.reverseOrder()).toList())
            {
                Files.deleteIfExists(path);
            }
        }
        catch (final IOException ex)
        {
            LOG.warn("could not delete temporary SSD directory {}: {}", dir, ex.toString());
        }
    }
}
