package dev.offcache.server.http;

import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import dev.offcache.server.source.ObjectIdTable;
import dev.offcache.server.source.ReadThroughSource;
import dev.offcache.server.tier.TieredBlockStore;

/** A real server on 127.0.0.1 over a tiered store and a counting local origin, closed in the right order. */
final class ServerHarness implements AutoCloseable
{
    static final String KEY = "test-key-0123456789abcdef";
    static final int BLOCK = 64 * 1024;

    final CountingOrigin origin;
    final TieredBlockStore store;
    final ExecutorService io = Executors.newFixedThreadPool(8);
    final L2HttpServer server;

    ServerHarness(final Path originDir, final Path ssdDir, final int ramBlocks, final long memoryBudget,
        final TransportKind transport) throws InterruptedException
    {
        origin = new CountingOrigin(originDir);
        final ObjectIdTable ids = new ObjectIdTable();
        store = TieredBlockStore.open(new TieredBlockStore.Context()
            .blockSize(BLOCK)
            .ramBudgetBytes((long) ramBlocks * BLOCK)
            .ssdBudgetBytes(256L * BLOCK)
            .ssdDir(ssdDir)
            .names(ids));
        final ReadThroughSource source = new ReadThroughSource(store, origin, ids, io);
        server = L2HttpServer.start(new L2HttpServer.Context()
            .listen("127.0.0.1", 0)
            .transport(transport)
            .ioThreads(2)
            .source(source)
            .apiKeys(ApiKeys.parse(KEY))
            .memoryBudgetBytes(memoryBudget)
            .maxBodyBytes(256 * 1024)
            .prefetchQueueCapacity(4)
            .tierMetrics(store.metrics()));
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
        store.close();
    }
}
