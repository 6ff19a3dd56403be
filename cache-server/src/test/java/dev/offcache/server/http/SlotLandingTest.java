package dev.offcache.server.http;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.range.engine.RangeCache;
import dev.offcache.range.engine.RangeCacheBuilder;
import dev.offcache.range.origin.BlockForwardingObjectStore;
import dev.offcache.range.origin.BlockProgress;
import dev.offcache.range.origin.FileSystemOrigin;
import dev.offcache.range.origin.ObjectStore;
import dev.offcache.range.store.FetchClass;
import dev.offcache.range.testing.CountingOrigin;
import dev.offcache.server.source.EngineObjectNames;
import dev.offcache.server.tier.TieredBlockStore;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A cold GET through the engine over the tiered store, whose origin reads into block buffers: the answer lands in
 * RAM slots with no staging buffer, and each block is stored and sent as soon as its bytes are in, while the rest of
 * the same origin GET is still arriving; slots of a GET that timed out go back only when the origin is done with them.
 */
class SlotLandingTest
{
    private static final int BLOCK = ServerHarness.BLOCK;

    @TempDir
    Path tmp;

    @Test
    void eachBlockIsSentAsSoonAsItLandsInItsSlotWhileItsGetGoesOn() throws Exception
    {
        final byte[] object = L2HttpServerTest.random(12 * BLOCK + 321, 5);
        final HoldingOrigin holding = new HoldingOrigin(origin(object), 2);
        final CountingOrigin counting = new CountingOrigin(holding);
        counting.tellsSize(true);
        try (Fixture fixture = new Fixture(counting, Duration.ofSeconds(30)))
        {
            final HttpResponse<InputStream> response = fixture.get();
            assertEquals(200, response.statusCode());
            final byte[] first = new byte[2 * BLOCK];
            try (InputStream body = response.body())
            {
                assertEquals(first.length, body.readNBytes(first, 0, first.length));
                assertArrayEquals(Arrays.copyOf(object, first.length), first,
                    "the first two blocks arrived while their GET still held the third");
                assertTrue(holding.holding(), "the origin GET is still open");
                assertEquals(0, fixture.cache.fetcher().staging().liveBuffers(), "no staging buffer: read into slots");
                holding.release();
                final byte[] rest = body.readAllBytes();
                assertArrayEquals(Arrays.copyOfRange(object, first.length, object.length), rest);
            }
            assertEquals(2, counting.gets(), "12 blocks and a bit at 8 blocks per GET: two GETs");
            assertEquals(0, counting.heads(), "the size came with the first GET");
            assertEquals(0, fixture.cache.fetcher().staging().liveBuffers());
            assertEquals(fixture.store.ramBlocks(), fixture.store.liveSlots(), "every slot is resident or free");
        }
    }

    @Test
    void slotsOfATimedOutGetGoBackOnlyWhenTheOriginIsDoneWithThem() throws Exception
    {
        final byte[] object = L2HttpServerTest.random(4 * BLOCK, 6);
        final HoldingOrigin holding = new HoldingOrigin(origin(object), 1);
        try (Fixture fixture = new Fixture(new CountingOrigin(holding), Duration.ofMillis(300)))
        {
            final HttpResponse<InputStream> response = fixture.get();
            try (InputStream body = response.body())
            {
                final byte[] got = body.readAllBytes();
                assertTrue(got.length < object.length, "the timed-out GET cut the body: " + got.length);
                assertArrayEquals(Arrays.copyOf(object, got.length), got, "what came is the object's");
            }
            catch (final java.io.IOException cut)
            {
                // the connection closed mid-body: also a cut body
            }
            assertTrue(holding.holding(), "the origin still holds its read");
            assertTrue(fixture.store.liveSlots() - fixture.store.ramBlocks() >= 3,
                "the 3 slots not landed stay out while the origin may write into them: " +
                    fixture.store.liveSlots() + " live, " + fixture.store.ramBlocks() + " resident");
            holding.release();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (fixture.store.liveSlots() != fixture.store.ramBlocks() && System.nanoTime() < deadline)
            {
                Thread.sleep(5);
            }
            assertEquals(fixture.store.ramBlocks(), fixture.store.liveSlots(),
                "every slot back once the origin is done");
            assertEquals(1, fixture.store.ramBlocks(), "the block landed before the deadline is kept");
        }
    }

    private ObjectStore origin(final byte[] object) throws Exception
    {
        final Path dir = tmp.resolve("origin");
        Files.createDirectories(dir);
        Files.write(dir.resolve("obj.bin"), object);
        return new FileSystemOrigin(dir, 4);
    }

    /** Holds each GET's read into block buffers after its first {@code after} blocks, until released. */
    private static final class HoldingOrigin extends BlockForwardingObjectStore
    {
        private final int after;
        private final CountDownLatch released = new CountDownLatch(1);
        private volatile boolean holding;

        HoldingOrigin(final ObjectStore delegate, final int after)
        {
            super(delegate);
            this.after = after;
        }

        boolean holding()
        {
            return holding;
        }

        void release()
        {
            released.countDown();
        }

        @Override
        public boolean readAnswersCarrySize()
        {
            return true;
        }

        @Override
        public CompletableFuture<Integer> readBlocks(
            final String key, final long offset, final ByteBuffer[] destinations, final FetchClass fetchClass,
            final LongConsumer objectSize, final BlockProgress progress)
        {
            return delegate().readBlocks(key, offset, destinations, fetchClass, objectSize, (index, bytes) ->
            {
                progress.filled(index, bytes);
                if (offset == 0 && index == after - 1)
                {
                    holding = true;
                    try
                    {
                        released.await(30, TimeUnit.SECONDS);
                    }
                    catch (final InterruptedException ex)
                    {
                        Thread.currentThread().interrupt();
                    }
                    holding = false;
                }
            });
        }
    }

    /** The engine over the tiered store behind the HTTP server. */
    private final class Fixture implements AutoCloseable
    {
        final TieredBlockStore store;
        final RangeCache cache;
        final L2HttpServer server;
        final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

        Fixture(final ObjectStore origin, final Duration timeout) throws InterruptedException
        {
            final EngineObjectNames names = new EngineObjectNames();
            store = TieredBlockStore.open(new TieredBlockStore.Context()
                .blockSize(BLOCK)
                .ramCapacityBytes(32L * BLOCK)
                .ssdCapacityBytes(64L * BLOCK)
                .ssdDir(tmp.resolve("ssd"))
                .names(names));
            cache = RangeCache.newBuilder()
                .origin(origin)
                .store(store)
                .deployment(RangeCacheBuilder.Deployment.L2)
                .blockSize(BLOCK)
                .maxCoalescedGetBytes(8 * BLOCK)
                .originTimeout(timeout)
                .build();
            names.bind(cache);
            server = L2HttpServer.launch(new L2HttpServer.Context()
                .listen("127.0.0.1", 0)
                .ioThreads(1)
                .engine(cache)
                .apiKeys(ApiKeys.parse(ServerHarness.KEY))
                .memoryBudgetBytes(32L * BLOCK));
        }

        HttpResponse<InputStream> get() throws Exception
        {
            return client.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + server.address().getPort() + "/obj/obj.bin"))
                .header("Authorization", "Bearer " + ServerHarness.KEY).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        }

        @Override
        public void close()
        {
            server.close();
            cache.close();
        }
    }
}
