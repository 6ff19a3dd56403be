package dev.offcache.server.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import dev.offcache.server.http.ApiKeys;
import dev.offcache.server.http.L2HttpServer;
import dev.offcache.server.source.LocalDirectoryOrigin;
import dev.offcache.server.source.ObjectIdTable;
import dev.offcache.server.source.ReadThroughSource;
import dev.offcache.server.tier.TieredBlockStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running L2 server assembled from checked options: the tiered store, the source over the origin, the HTTP front.
 * It owns all of them and closes them in order: HTTP (drain, stop prefetch) → fetch threads → store (spill RAM to
 * SSD) → a temporary SSD directory, if it made one.
 */
public final class ServerProgram implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(ServerProgram.class);

    private final TieredBlockStore store;
    private final ExecutorService fetchThreads;
    private final L2HttpServer server;
    private final Path temporaryDiskPath;
    private final String apiKey;
    private boolean closed;

    private ServerProgram(
        final TieredBlockStore store,
        final ExecutorService fetchThreads,
        final L2HttpServer server,
        final Path temporaryDiskPath,
        final String apiKey)
    {
        this.store = store;
        this.fetchThreads = fetchThreads;
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
     * @param originDir  the origin directory.
     * @param diskPath   the SSD tier's directory.
     * @param diskIsTemp whether to delete {@code diskPath} at close.
     * @return the running program.
     * @throws InterruptedException when interrupted while binding.
     */
    static ServerProgram start(
        final OffcacheServerCommand options,
        final ApiKeys apiKeys,
        final String apiKey,
        final Path originDir,
        final Path diskPath,
        final boolean diskIsTemp) throws InterruptedException
    {
        final ObjectIdTable ids = new ObjectIdTable();
        final TieredBlockStore store = TieredBlockStore.open(new TieredBlockStore.Context()
            .blockSize(options.blockSizeKb * 1024)
            .ramBudgetBytes(options.ramMb * 1024L * 1024)
            .ssdBudgetBytes(options.diskMb * 1024L * 1024)
            .ssdDir(diskPath)
            .names(ids));
        final AtomicInteger threadIds = new AtomicInteger();
        final ExecutorService fetchThreads = Executors.newFixedThreadPool(options.fetchThreads, (r) ->
        {
            final Thread thread = new Thread(r, "offcache-fetch-" + threadIds.getAndIncrement());
            thread.setDaemon(true);
            return thread;
        });
        try
        {
            final ReadThroughSource source = new ReadThroughSource(
                store, new LocalDirectoryOrigin(originDir), ids, fetchThreads);
            final L2HttpServer server = L2HttpServer.start(new L2HttpServer.Context()
                .listen(options.listenHost(), options.listenPort())
                .transport(options.transport)
                .ioThreads(options.ioThreads)
                .source(source)
                .apiKeys(apiKeys)
                .authDisabled(options.disableAuth)
                .allowedPrefixes(options.allowedPrefixes())
                .maxKeyLength(options.maxKeyLength)
                .maxRanges(options.maxRanges)
                .maxBodyBytes(options.maxBodyKb * 1024)
                .maxConnections(options.maxConnections)
                .memoryBudgetBytes(options.memoryBudgetMb * 1024L * 1024)
                .prefetchQueueCapacity(options.prefetchQueue)
                .prefetchThreads(options.prefetchThreads)
                .shutdownGrace(Duration.ofSeconds(options.shutdownGraceSeconds))
                .tierMetrics(store.metrics()));
            return new ServerProgram(store, fetchThreads, server, diskIsTemp ? diskPath : null, apiKey);
        }
        catch (final InterruptedException | RuntimeException ex)
        {
            fetchThreads.shutdownNow();
            store.close();
            throw ex;
        }
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
        server.close();
        fetchThreads.shutdown();
        try
        {
            fetchThreads.awaitTermination(5, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        store.close();
        if (null != temporaryDiskPath)
        {
            try (Stream<Path> paths = Files.walk(temporaryDiskPath))
            {
                for (final Path path : paths.sorted(Comparator.reverseOrder()).toList())
                {
                    Files.deleteIfExists(path);
                }
            }
            catch (final IOException ex)
            {
                LOG.warn("could not delete temporary SSD directory {}: {}", temporaryDiskPath, ex.toString());
            }
        }
    }
}
