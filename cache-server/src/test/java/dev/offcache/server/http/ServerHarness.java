package dev.offcache.server.http;

import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.UnaryOperator;

import dev.offcache.range.config.RangeCacheContext;
import dev.offcache.range.engine.RangeCache;
import dev.offcache.server.metrics.EngineMetrics;
import dev.offcache.server.source.EngineObjectNames;
import dev.offcache.server.source.EngineRangeSource;
import dev.offcache.server.source.RangeSource;
import dev.offcache.server.tier.TieredBlockStore;

/**
 * A real server on 127.0.0.1 over the range-cache engine (tiered store, the engine's names for the SSD tier) and a
 * counting local origin, wired as {@code offcache-server} wires them, closed in the right order.
 */
final class ServerHarness implements AutoCloseable
{
    static final String KEY = "test-key-0123456789abcdef";
    static final int BLOCK = 64 * 1024;

    final CountingOrigin origin;
    final TieredBlockStore store;
    final RangeCache cache;
    final ExecutorService io = Executors.newFixedThreadPool(8);
    final L2HttpServer server;

    ServerHarness(final Path originDir, final Path ssdDir, final int ramBlocks, final long memoryBudget,
        final TransportKind transport) throws InterruptedException
    {
        this(originDir, ssdDir, ramBlocks, memoryBudget, transport, 0, UnaryOperator.identity());
    }

    /** The same on a given port (0: any), so a test can stop a server and start it again at the same address. */
    ServerHarness(final Path originDir, final Path ssdDir, final int ramBlocks, final long memoryBudget,
        final TransportKind transport, final int port) throws InterruptedException
    {
        this(originDir, ssdDir, ramBlocks, memoryBudget, transport, port, UnaryOperator.identity());
    }

    /** The same with the HTTP layer reading through {@code wrapSource} (to slow it down, say). */
    ServerHarness(final Path originDir, final Path ssdDir, final int ramBlocks, final long memoryBudget,
        final TransportKind transport, final int port, final UnaryOperator<RangeSource> wrapSource)
        throws InterruptedException
    {
        origin = new CountingOrigin(originDir);
        final EngineObjectNames names = new EngineObjectNames();
        store = TieredBlockStore.open(new TieredBlockStore.Context()
            .blockSize(BLOCK)
            .ramBudgetBytes((long) ramBlocks * BLOCK)
            .ssdBudgetBytes(256L * BLOCK)
            .ssdDir(ssdDir)
            .names(names));
        cache = RangeCache.newBuilder()
            .origin(origin)
            .l1Store(store)
            .tier(RangeCacheContext.Tier.L2)
            .blockSize(BLOCK)
            .build();
        names.bind(cache);
        final EngineRangeSource source = new EngineRangeSource(cache, io);
        server = L2HttpServer.start(new L2HttpServer.Context()
            .listen("127.0.0.1", port)
            .transport(transport)
            .ioThreads(2)
            .source(wrapSource.apply(source))
            .apiKeys(ApiKeys.parse(KEY))
            .memoryBudgetBytes(memoryBudget)
            .maxBodyBytes(256 * 1024)
            .prefetchQueueCapacity(4)
            .tierMetrics(store.metrics())
            .moreMetrics((out) -> EngineMetrics.collectInto(out, cache.metrics())));
    }

    String base()
    {
        return "http://127.0.0.1:" + server.address().getPort();
    }

    int port()
    {
        return server.address().getPort();
    }

    @Override
    public void close()
    {
        server.close();
        io.shutdownNow();
        cache.close();
    }
}
