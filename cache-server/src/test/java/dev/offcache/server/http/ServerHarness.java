package dev.offcache.server.http;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import dev.offcache.range.engine.RangeCacheBuilder;
import dev.offcache.range.engine.RangeCache;
import dev.offcache.range.origin.FileSystemOrigin;
import dev.offcache.range.origin.ObjectStore;
import dev.offcache.range.testing.CountingOrigin;
import dev.offcache.server.source.EngineObjectNames;
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
    final L2HttpServer server;

    ServerHarness(final Path originDir, final Path ssdDir, final int ramBlocks, final long memoryBudget,
        final TransportKind transport) throws InterruptedException
    {
        this(originDir, ssdDir, ramBlocks, memoryBudget, transport, 0, UnaryOperator.identity(),
            UnaryOperator.identity());
    }

    /** The same on a given port (0: any), so a test can stop a server and start it again at the same address. */
    ServerHarness(final Path originDir, final Path ssdDir, final int ramBlocks, final long memoryBudget,
        final TransportKind transport, final int port) throws InterruptedException
    {
        this(originDir, ssdDir, ramBlocks, memoryBudget, transport, port, UnaryOperator.identity(),
            UnaryOperator.identity());
    }

    /**
     * The same with the engine reading its origin (the counting one) through {@code wrapOrigin} (a latency in front
     * of it, say) and further engine settings.
     */
    ServerHarness(final Path originDir, final Path ssdDir, final int ramBlocks, final long memoryBudget,
        final TransportKind transport, final int port, final UnaryOperator<ObjectStore> wrapOrigin,
        final UnaryOperator<RangeCacheBuilder> engine) throws InterruptedException
    {
        this(BLOCK, originDir, ssdDir, ramBlocks, memoryBudget, transport, port, wrapOrigin, engine);
    }

    /** The same with another block size. */
    ServerHarness(final int blockSize, final Path originDir, final Path ssdDir, final int ramBlocks,
        final long memoryBudget, final TransportKind transport, final int port,
        final UnaryOperator<ObjectStore> wrapOrigin, final UnaryOperator<RangeCacheBuilder> engine)
        throws InterruptedException
    {
        this(blockSize, originDir, ssdDir, ramBlocks, memoryBudget, transport, port, wrapOrigin, engine,
            UnaryOperator.identity());
    }

    /** The same with further server settings (limits, timeouts). */
    ServerHarness(final int blockSize, final Path originDir, final Path ssdDir, final int ramBlocks,
        final long memoryBudget, final TransportKind transport, final int port,
        final UnaryOperator<ObjectStore> wrapOrigin, final UnaryOperator<RangeCacheBuilder> engine,
        final UnaryOperator<L2HttpServer.Context> serverSettings)
        throws InterruptedException
    {
        origin = new CountingOrigin(new FileSystemOrigin(originDir, 4));
        // keys say how they fail: "fail*" on every GET, "failmid*" on a GET past the first block, "failsize*" on a HEAD
        origin.failGetsMatching((get) -> get.key().startsWith("fail") &&
            (!get.key().startsWith("failmid") || get.offset() + get.length() > BLOCK));
        origin.failSizesOf((key) -> key.startsWith("failsize"));
        final EngineObjectNames names = new EngineObjectNames();
        store = TieredBlockStore.open(new TieredBlockStore.Context()
            .blockSize(blockSize)
            .ramCapacityBytes((long) ramBlocks * blockSize)
            .ssdCapacityBytes(256L * blockSize)
            .ssdDir(ssdDir)
            .names(names));
        cache = engine.apply(RangeCache.newBuilder()
            .origin(wrapOrigin.apply(origin))
            .store(store)
            .deployment(RangeCacheBuilder.Deployment.L2)
            .blockSize(blockSize))
            .build();
        names.bind(cache);
        store.metrics().countLookupsOf(cache.metrics());
        server = L2HttpServer.launch(serverSettings.apply(new L2HttpServer.Context()
            .listen("127.0.0.1", port)
            .transport(transport)
            .ioThreads(2)
            .engine(cache)
            .apiKeys(ApiKeys.parse(KEY))
            .memoryBudgetBytes(memoryBudget)
            .maxBodyBytes(256 * 1024)
            .prefetchQueueCapacity(4)
            .tierMetrics(store.metrics())
            .moreMetrics(cache.metrics()::collectInto)));
    }

    /**
     * Prefetches a whole object over HTTP ({@code POST /prefetch}) and waits until the SSD tier holds
     * {@code blocks} blocks.
     */
    void prefetchToSsd(final String key, final long size, final int blocks) throws Exception
    {
        final HttpResponse<String> prefetch = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1).build()
            .send(HttpRequest.newBuilder(URI.create(base() + "/prefetch"))
                .header("Authorization", "Bearer " + KEY)
                .POST(HttpRequest.BodyPublishers.ofString(
                    "{\"key\":\"" + key + "\",\"size\":" + size + "}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        if (prefetch.statusCode() != 202)
        {
            throw new AssertionError("prefetch refused: " + prefetch.statusCode() + " " + prefetch.body());
        }
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (store.ssd().blockCount() < blocks)
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("prefetch did not land: " + store.ssd().blockCount() + " of " + blocks);
            }
            Thread.sleep(10);
        }
    }

    String base()
    {
        return "http://127.0.0.1:" + server.address().getPort();
    }

    int port()
    {
        return server.address().getPort();
    }

    /**
     * A request to this server with the bearer key and a 20 s timeout.
     */
    HttpRequest.Builder request(final String path)
    {
        return HttpRequest.newBuilder(URI.create(base() + path))
            .timeout(Duration.ofSeconds(20))
            .header("Authorization", "Bearer " + KEY);
    }

    /**
     * A GET of {@code path}, with a {@code Range} header unless {@code range} is null.
     */
    HttpResponse<byte[]> get(final HttpClient client, final String path, final String range) throws Exception
    {
        final HttpRequest.Builder builder = request(path);
        if (null != range)
        {
            builder.header("Range", range);
        }
        return client.send(builder.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    @Override
    public void close()
    {
        server.close();
        cache.close();
    }
}
