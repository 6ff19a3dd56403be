package dev.offcache.server.http;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.offcache.range.engine.RangeCacheBuilder;
import dev.offcache.range.engine.RangeCache;
import dev.offcache.range.metrics.MetricNames;
import dev.offcache.range.origin.FileSystemOrigin;
import dev.offcache.server.source.EngineObjectNames;
import dev.offcache.server.tier.TieredBlockStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The HTTP server over the real range-cache engine (single flight, coalescing, fetch permits) and the tiered store:
 * exact bytes for concurrent whole-object and random-range reads, each byte fetched from the origin once, with a
 * RAM tier smaller than the object so blocks also come back from the SSD tier under the engine's names.
 */
class ServerOverEngineTest
{
    private static final int BLOCK = ServerHarness.BLOCK;

    @TempDir
    Path tmp;

    @Test
    void concurrentReadsThroughTheEngineEqualTheOriginAndFetchEachByteOnce() throws Exception
    {
        final Path originDir = tmp.resolve("origin");
        Files.createDirectories(originDir);
        final byte[] big = L2HttpServerTest.random(11 * BLOCK + 77, 21);
        Files.write(originDir.resolve("big.bin"), big);
        final EngineObjectNames names = new EngineObjectNames();
        final TieredBlockStore store = TieredBlockStore.open(new TieredBlockStore.Context()
            .blockSize(BLOCK)
            .ramCapacityBytes(6L * BLOCK)
            .ssdCapacityBytes(64L * BLOCK)
            .ssdDir(tmp.resolve("ssd"))
            .names(names));
        try (RangeCache cache = RangeCache.newBuilder()
            .origin(new FileSystemOrigin(originDir, 4))
            .store(store)
            .deployment(RangeCacheBuilder.Deployment.L2)
            .blockSize(BLOCK)
            .build();
            L2HttpServer server = L2HttpServer.launch(new L2HttpServer.Context()
                .listen("127.0.0.1", 0)
                .ioThreads(2)
                .engine(cache)
                .apiKeys(ApiKeys.parse(ServerHarness.KEY))
                .memoryBudgetBytes(8L * BLOCK)))
        {
            names.bind(cache);
            store.metrics().countLookupsOf(cache.metrics());
            final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            final String url = "http://127.0.0.1:" + server.address().getPort() + "/obj/big.bin";
            final List<CompletableFuture<HttpResponse<byte[]>>> wholes = new ArrayList<>();
            for (int i = 0; i < 8; i++)
            {
                wholes.add(client.sendAsync(HttpRequest.newBuilder(URI.create(url))
                    .header("Authorization", "Bearer " + ServerHarness.KEY).build(),
                    HttpResponse.BodyHandlers.ofByteArray()));
            }
            for (final CompletableFuture<HttpResponse<byte[]>> whole : wholes)
            {
                assertArrayEquals(big, whole.get(30, TimeUnit.SECONDS).body());
            }
            final Random random = new Random(3);
            for (int i = 0; i < 30; i++)
            {
                final int start = random.nextInt(big.length);
                final int end = Math.min(big.length - 1, start + random.nextInt(2 * BLOCK));
                final HttpResponse<byte[]> part = client.send(HttpRequest.newBuilder(URI.create(url))
                    .header("Authorization", "Bearer " + ServerHarness.KEY)
                    .header("Range", "bytes=" + start + "-" + end).build(), HttpResponse.BodyHandlers.ofByteArray());
                assertEquals(206, part.statusCode());
                assertArrayEquals(Arrays.copyOfRange(big, start, end + 1), part.body());
            }
            assertEquals(big.length, cache.metrics().value(MetricNames.ORIGIN_BYTES + MetricNames.DEMAND),
                "single flight: every byte came from the origin once");
            assertTrue(store.metrics().ssdHits() > 0, "some blocks came back from the SSD tier");
            assertEquals(404, client.send(HttpRequest.newBuilder(URI.create(url.replace("big", "nope")))
                .header("Authorization", "Bearer " + ServerHarness.KEY).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode());
        }
    }
}
