package dev.offcache.server.http;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.range.engine.RangeCache;
import dev.offcache.range.engine.RangeRequest;
import dev.offcache.range.l2.CircuitBreaker;
import dev.offcache.range.l2.FallbackReason;
import dev.offcache.range.l2.L2ClientCounters;
import dev.offcache.range.l2.L2Client;
import dev.offcache.range.l2.L2ClientContext;
import dev.offcache.range.metrics.MetricNames;
import dev.offcache.range.origin.DelayingOrigin;
import dev.offcache.range.origin.FileSystemOrigin;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The L2 server's read path end to end (issue 13): every request shape is one engine stream, so N contiguous cold
 * blocks cost ceil(N / blocks-per-GET) origin GETs, in flight together; each block lookup is counted once; headers go
 * out before a slow origin answers, so a healthy server never opens its client's breaker; a fault after the headers
 * is completed exactly from the origin by the client.
 */
class ServerReadPathTest
{
    private static final int BLOCK = ServerHarness.BLOCK;
    /** The coalescing cap of the harness below: 8 blocks per GET, so small files cross it. */
    private static final int CAP_BLOCKS = 8;

    @TempDir
    Path tmp;

    private ServerHarness harness;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @AfterEach
    void tearDown()
    {
        if (null != harness)
        {
            harness.close();
        }
    }

    private Path origin() throws IOException
    {
        final Path dir = tmp.resolve("origin");
        Files.createDirectories(dir);
        return dir;
    }

    private byte[] object(final Path dir, final String key, final int length, final long seed) throws IOException
    {
        final byte[] bytes = L2HttpServerTest.random(length, seed);
        Files.write(dir.resolve(key), bytes);
        return bytes;
    }

    private ServerHarness capped(final Path dir) throws InterruptedException
    {
        return new ServerHarness(dir, tmp.resolve("ssd"), 256, 1024L * BLOCK, TransportKind.AUTO, 0,
            (o) -> o, (engine) -> engine.maxCoalescedGetBytes(CAP_BLOCKS * BLOCK));
    }

    @Test
    void everyRequestShapeCostsCeilOfItsContiguousMissesOverTheCap() throws Exception
    {
        final Path dir = origin();
        final byte[] whole = object(dir, "whole.bin", 37 * BLOCK + 11, 1);
        final byte[] ranged = object(dir, "ranged.bin", 40 * BLOCK, 2);
        final byte[] multi = object(dir, "multi.bin", 40 * BLOCK, 3);
        harness = capped(dir);

        // GET, no Range: 38 contiguous cold blocks, 8 per GET
        assertArrayEquals(whole, get("/obj/whole.bin", null).body());
        assertEquals(5, harness.origin.gets(), "ceil(38 / 8) GETs for the whole object");

        // GET with a Range: blocks 0..21 (22 blocks)
        harness.origin.reset();
        final HttpResponse<byte[]> part = get("/obj/ranged.bin", "bytes=100-" + (21 * BLOCK + 4));
        assertEquals(206, part.statusCode());
        assertArrayEquals(Arrays.copyOfRange(ranged, 100, 21 * BLOCK + 5), part.body());
        assertEquals(3, harness.origin.gets(), "ceil(22 / 8) GETs for a range");

        // POST /ranges: blocks 0..9 (two adjoining ranges, 10 blocks), block 20 (two ranges in it), blocks 30..36
        harness.origin.reset();
        final long[][] ranges = {{0, 3L * BLOCK}, {3L * BLOCK, 10L * BLOCK}, {20L * BLOCK + 5, 20L * BLOCK + 10},
            {20L * BLOCK + 100, 20L * BLOCK + 200}, {30L * BLOCK, 37L * BLOCK}};
        final byte[] framed = post("/ranges/multi.bin", ranges).body();
        assertArrayEquals(frames(multi, ranges), framed);
        assertEquals(2 + 1 + 1, harness.origin.gets(), "ceil(10 / 8) + 1 + ceil(7 / 8) GETs for POST /ranges");
    }

    @Test
    void cachedBlocksBetweenMissesSplitTheRunsAndNothingElseDoes() throws Exception
    {
        final Path dir = origin();
        final byte[] data = object(dir, "holes.bin", 24 * BLOCK, 4);
        harness = capped(dir);
        assertEquals(206, get("/obj/holes.bin", "bytes=" + 5 * BLOCK + "-" + (5 * BLOCK + 9)).statusCode());
        assertEquals(206, get("/obj/holes.bin", "bytes=" + 12 * BLOCK + "-" + (14 * BLOCK - 1)).statusCode());
        harness.origin.reset();
        final long hitsBefore = harness.cache.metrics().value(MetricNames.BLOCK_HITS);
        assertArrayEquals(data, get("/obj/holes.bin", null).body());
        // misses 0..4, 6..11, 14..21 (8: the cap), 22..23
        assertEquals(4, harness.origin.gets());
        assertEquals(3, harness.cache.metrics().value(MetricNames.BLOCK_HITS) - hitsBefore, "blocks 5, 12, 13");
    }

    @Test
    void eachBlockLookupIsCountedOnceWithItsOutcome() throws Exception
    {
        final Path dir = origin();
        final byte[] data = object(dir, "eight.bin", 8 * BLOCK, 5);
        harness = capped(dir);
        assertArrayEquals(data, get("/obj/eight.bin", null).body());
        assertEquals(8, harness.cache.metrics().value(MetricNames.BLOCK_REQUESTS));
        assertEquals(8, lookups("miss"), "a cold 8-block read: 8 lookups, 8 misses");
        assertEquals(0, lookups("ram_hit"));
        assertEquals(0, lookups("ssd_hit"));
        assertEquals(1, harness.origin.gets());
        assertArrayEquals(data, get("/obj/eight.bin", null).body());
        assertEquals(8, lookups("ram_hit"), "the same read again: 8 RAM hits");
        assertEquals(8, lookups("miss"));
        assertEquals(16, harness.cache.metrics().value(MetricNames.BLOCK_REQUESTS));
    }

    @Test
    void aVectoredReadThroughTheL2ClientIsOnePostAndItsMissesAreCoalesced() throws Exception
    {
        final Path dir = origin();
        final byte[] data = object(dir, "vector.bin", 32 * BLOCK, 6);
        harness = capped(dir);
        try (RangeCache engine = RangeCache.newBuilder()
            .origin(client(dir, Duration.ofSeconds(5)))
            .blockSize(BLOCK)
            .l1CapacityBytes(64L * BLOCK)
            .build())
        {
            final long[] positions = {10, 2L * BLOCK, 20L * BLOCK + 7};
            final int[] lengths = {BLOCK, 5 * BLOCK, 3 * BLOCK};
            final List<RangeRequest> ranges = new ArrayList<>();
            for (int i = 0; i < positions.length; i++)
            {
                ranges.add(new RangeRequest(positions[i], lengths[i], new UnsafeBuffer(new byte[lengths[i]]), 0));
            }
            engine.readVectored("vector.bin", ranges);
            for (final RangeRequest range : ranges)
            {
                assertArrayEquals(Arrays.copyOfRange(data, (int) range.position(),
                    (int) range.position() + range.length()), range.destination().byteArray());
            }
            assertEquals(1, harness.server.metrics().requests("ranges", 200), "one POST /ranges for the read");
            assertEquals(0, harness.server.metrics().requests("obj", 206) + harness.server.metrics().requests("obj",
                200), "and no GET, no HEAD");
            // the L1 engine asked for blocks 0..1, 2..6 (adjoining: 0..6) and 20..23; the server fetched them so
            assertEquals(2, harness.origin.gets(), "blocks 0..6 in one GET, 20..23 in another");
        }
    }

    @Test
    void aCold16MiBObjectBehindASlowOriginIsTwoOverlappingGets() throws Exception
    {
        coldReadsBehindASlowOrigin(false);
    }

    @Test
    void aNewCold16MiBObjectBehindASlowOriginIsTwoOverlappingGetsAndNoHead() throws Exception
    {
        coldReadsBehindASlowOrigin(true);
    }

    /**
     * Cold 16 MiB reads through the client and server behind a 200 ms origin (1 MiB blocks), against one direct GET:
     * two GETs in flight together, bytes exact, best of a few <= 2x direct. {@code newObject}: the server has never
     * seen the object and its origin's answers carry the size (no HEAD either); else the server knows the size.
     */
    private void coldReadsBehindASlowOrigin(final boolean newObject) throws Exception
    {
        final int mib = 1024 * 1024;
        final Path dir = origin();
        // 200 ms rather than S3's ~30: the latency, not this shared machine's CPU, must dominate the times compared
        // (L2ColdReadBenchmark measures the 30 ms case)
        final long latency = TimeUnit.MILLISECONDS.toNanos(200);
        final AtomicReference<DelayingOrigin> slow = new AtomicReference<>();
        harness = new ServerHarness(mib, dir, tmp.resolve("ssd"), 64, 64L * mib, TransportKind.AUTO, 0,
            (o) -> slow.updateAndGet((x) -> new DelayingOrigin(o, latency)), (engine) -> engine);
        harness.origin.tellsSize(newObject);
        try (DelayingOrigin direct = new DelayingOrigin(new FileSystemOrigin(dir, 4), latency);
            L2Client client = client(dir, Duration.ofSeconds(5)))
        {
            // The structure is exact (two GETs, in flight together); the time is taken as the best of a few cold
            // reads, because other builds share this machine (the JMH benchmark measures it properly).
            long bestDirect = Long.MAX_VALUE;
            long bestL2 = Long.MAX_VALUE;
            for (int attempt = 0; attempt < 5 && !(attempt >= 2 && bestL2 <= 2 * bestDirect); attempt++)
            {
                final String key = "cold-" + attempt + ".bin";
                final byte[] data = object(dir, key, 16 * mib, 10 + attempt);
                if (!newObject)
                {
                    // the server knows the size (as after any earlier request for the object); the blocks are cold
                    assertEquals(16L * mib, (long) client.size(key).join());
                }
                final long getsBefore = slow.get().gets();
                final long headsBefore = slow.get().heads();
                final ByteBuffer viaL2 = ByteBuffer.allocateDirect(16 * mib);
                final long l2Start = System.nanoTime();
                assertEquals(16 * mib, client.read(key, 0, viaL2).orTimeout(30, TimeUnit.SECONDS).join());
                bestL2 = Math.min(bestL2, System.nanoTime() - l2Start);
                assertEquals(2, slow.get().gets() - getsBefore, "16 MiB at 8 MiB per GET");
                assertEquals(0, slow.get().heads() - headsBefore, "no HEAD with the read");
                assertEquals(2, slow.get().peakGetsInFlight(), "both GETs in flight at once");
                final byte[] got = new byte[16 * mib];
                viaL2.get(got);
                assertArrayEquals(data, got);

                final ByteBuffer plain = ByteBuffer.allocateDirect(16 * mib);
                final long directStart = System.nanoTime();
                assertEquals(16 * mib, direct.read(key, 0, plain).orTimeout(30, TimeUnit.SECONDS).join());
                bestDirect = Math.min(bestDirect, System.nanoTime() - directStart);
            }
            System.out.printf("cold 16 MiB (%s), 200 ms origin: through L2 %.1f ms, one direct GET %.1f ms (best)%n",
                newObject ? "new object" : "size known", bestL2 / 1e6, bestDirect / 1e6);
            assertEquals(0, client.metrics().readFallbacksTotal());
            assertTrue(bestL2 <= 2 * bestDirect, "L2 " + bestL2 / 1e6 + " ms > 2 x direct " + bestDirect / 1e6 + " ms");
        }
    }

    @Test
    void aHealthyServerWithAOneSecondOriginNeverOpensItsClientsBreaker() throws Exception
    {
        final Path dir = origin();
        final int objects = 6;
        final byte[][] data = new byte[objects][];
        for (int i = 0; i < objects; i++)
        {
            data[i] = object(dir, "slow-" + i + ".bin", 3 * BLOCK + 17 * i, 20 + i);
        }
        harness = new ServerHarness(dir, tmp.resolve("ssd"), 64, 64L * BLOCK, TransportKind.AUTO, 0,
            (o) -> new DelayingOrigin(o, TimeUnit.SECONDS.toNanos(1)), (engine) -> engine);
        // the client's defaults: 500 ms for headers, the breaker opens after 5 unanswered calls
        try (L2Client client = new L2Client(new L2ClientContext()
            .serverUri(URI.create(harness.base()))
            .apiKey(ServerHarness.KEY)
            .origin(new FileSystemOrigin(dir, 2)));
            RangeCache engine = RangeCache.newBuilder().origin(client).blockSize(BLOCK).l1CapacityBytes(64L * BLOCK)
                .build())
        {
            // every object is new to the server: a HEAD (1 s) and a GET (1 s) at the origin before any byte
            final ExecutorService readers = Executors.newFixedThreadPool(objects);
            try
            {
                final List<CompletableFuture<byte[]>> reads = new ArrayList<>();
                for (int i = 0; i < objects; i++)
                {
                    final int index = i;
                    reads.add(CompletableFuture.supplyAsync(() ->
                    {
                        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[data[index].length]);
                        engine.read("slow-" + index + ".bin", 0, buffer, 0, data[index].length);
                        return buffer.byteArray();
                    }, readers));
                }
                for (int i = 0; i < objects; i++)
                {
                    assertArrayEquals(data[i], reads.get(i).get(60, TimeUnit.SECONDS));
                }
            }
            finally
            {
                readers.shutdownNow();
            }
            final L2ClientCounters metrics = client.metrics();
            assertEquals(0, metrics.readFallbacksTotal(), "no read fell back: the server answered in time");
            assertEquals(objects, metrics.get(L2ClientCounters.Counter.L2_HITS));
            assertEquals(CircuitBreaker.State.CLOSED, client.breaker().state());
            assertEquals(0, metrics.get(L2ClientCounters.Counter.BREAKER_OPENS));
            assertTrue(harness.server.metrics().interimResponses() >= objects,
                "102 Processing while the sizes were looked up: " + harness.server.metrics().interimResponses());
        }
    }

    @Test
    void aFaultAfterTheHeadersIsCompletedExactlyFromTheOrigin() throws Exception
    {
        final Path dir = origin();
        // the server's origin fails any GET reaching past the first block of a "failmid" key
        final byte[] data = object(dir, "failmid-big.bin", 6 * BLOCK + 99, 30);
        harness = capped(dir);
        try (L2Client client = client(dir, Duration.ofSeconds(5)))
        {
            final ByteBuffer first = ByteBuffer.allocateDirect(10);
            assertEquals(10, client.read("failmid-big.bin", 0, first).join(), "caches block 0 on the server");
            final ByteBuffer all = ByteBuffer.allocateDirect(data.length);
            assertEquals(data.length, client.read("failmid-big.bin", 0, all).orTimeout(20, TimeUnit.SECONDS).join());
            final byte[] got = new byte[data.length];
            all.get(got);
            assertArrayEquals(data, got);
            final L2ClientCounters metrics = client.metrics();
            assertEquals(1, metrics.readFallbacks(FallbackReason.SHORT_BODY) +
                metrics.readFallbacks(FallbackReason.BROKEN_STREAM), "the body broke after the headers");
            assertEquals(1, metrics.get(L2ClientCounters.Counter.RESUMED), "and was resumed at the delivered offset");
            assertEquals(data.length + 10, metrics.get(L2ClientCounters.Counter.L2_BYTES) +
                metrics.get(L2ClientCounters.Counter.ORIGIN_BYTES));
            assertEquals(CircuitBreaker.State.CLOSED, client.breaker().state());
            assertEquals(1, harness.server.metrics().streamsAborted());
        }
    }

    /** The capped harness over an origin whose GET answers carry the object's size, as S3's and HTTP's do. */
    private ServerHarness cappedTellingSizes(final Path dir) throws InterruptedException
    {
        final ServerHarness telling = capped(dir);
        telling.origin.tellsSize(true);
        return telling;
    }

    @Test
    void aNewObjectCostsNoHeadInAnyRequestShapeAndTheSameGets() throws Exception
    {
        final Path dir = origin();
        final byte[] whole = object(dir, "whole.bin", 37 * BLOCK + 11, 41);
        final byte[] ranged = object(dir, "ranged.bin", 40 * BLOCK, 42);
        final byte[] multi = object(dir, "multi.bin", 40 * BLOCK, 43);
        final byte[] adjoining = object(dir, "adjoining.bin", 16 * BLOCK, 44);
        harness = cappedTellingSizes(dir);

        // GET, no Range: the first GET (blocks 0..7) tells the size; the stream fetches the other 30 blocks
        final HttpResponse<byte[]> all = get("/obj/whole.bin", null);
        assertEquals(200, all.statusCode());
        assertArrayEquals(whole, all.body());
        assertEquals(5, harness.origin.gets(), "ceil(38 / 8) GETs for a new object");
        assertEquals(37L * BLOCK + 11, harness.cache.sizeNow("whole.bin"), "the size came with a GET");
        assertEquals(38, lookups("miss"), "each chunk counted once, as a miss");
        assertEquals(0, lookups("ram_hit"));
        assertEquals(38, harness.cache.metrics().value(MetricNames.BLOCK_REQUESTS));
        assertArrayEquals(whole, get("/obj/whole.bin", null).body());
        assertEquals(38, lookups("ram_hit"), "read again: 38 RAM hits");

        // a Range over blocks 0..21: blocks 0..15 fetched with the size lookup (two GETs at once), the rest after
        harness.origin.reset();
        final HttpResponse<byte[]> part = get("/obj/ranged.bin", "bytes=100-" + (21 * BLOCK + 4));
        assertEquals(206, part.statusCode());
        assertEquals("bytes 100-" + (21 * BLOCK + 4) + "/" + 40 * BLOCK,
            part.headers().firstValue("Content-Range").orElseThrow());
        assertArrayEquals(Arrays.copyOfRange(ranged, 100, 21 * BLOCK + 5), part.body());
        assertEquals(3, harness.origin.gets(), "ceil(22 / 8) GETs for a range of a new object");

        // POST /ranges: as for a known object (the adjoining first ranges are fetched with the size lookup)
        harness.origin.reset();
        final long[][] ranges = {{0, 3L * BLOCK}, {3L * BLOCK, 10L * BLOCK}, {20L * BLOCK + 5, 20L * BLOCK + 10},
            {20L * BLOCK + 100, 20L * BLOCK + 200}, {30L * BLOCK, 37L * BLOCK}};
        assertArrayEquals(frames(multi, ranges), post("/ranges/multi.bin", ranges).body());
        assertEquals(2 + 1 + 1, harness.origin.gets(), "ceil(10 / 8) + 1 + ceil(7 / 8) GETs");

        // a first range of one block adjoining the next: still one run across them, not cut at the first range
        harness.origin.reset();
        final long[][] touching = {{0, 10}, {10, 16L * BLOCK}};
        assertArrayEquals(frames(adjoining, touching), post("/ranges/adjoining.bin", touching).body());
        assertEquals(2, harness.origin.gets(), "ceil(16 / 8) GETs");
        assertEquals(0, harness.origin.heads(), "no HEAD for any new object");
        assertEquals(0, harness.cache.metrics().value(MetricNames.ORIGIN_HEADS));
    }

    @Test
    void openSuffixAndPastTheEndRangesOfNewObjectsAreAnsweredExactly() throws Exception
    {
        final Path dir = origin();
        final int size = 3 * BLOCK + 5;
        final byte[] data = object(dir, "open.bin", size, 51);
        for (final String key : new String[] {"past.bin", "pastlast.bin", "suffix.bin"})
        {
            Files.write(dir.resolve(key), data);
        }
        Files.write(dir.resolve("empty.bin"), new byte[0]);
        Files.write(dir.resolve("empty-ranged.bin"), new byte[0]);
        final byte[] tiny = object(dir, "tiny.bin", 100, 52);
        harness = cappedTellingSizes(dir);

        final HttpResponse<byte[]> open = get("/obj/open.bin", "bytes=" + (BLOCK + 7) + "-");
        assertEquals(206, open.statusCode());
        assertEquals("bytes " + (BLOCK + 7) + "-" + (size - 1) + "/" + size,
            open.headers().firstValue("Content-Range").orElseThrow());
        assertArrayEquals(Arrays.copyOfRange(data, BLOCK + 7, size), open.body());
        assertCosts(1, 0, "an open range: one GET of up to 8 blocks from its start tells the size");

        final HttpResponse<byte[]> past = get("/obj/past.bin", "bytes=" + 10L * BLOCK + "-" + (10L * BLOCK + 9));
        assertEquals(416, past.statusCode());
        assertEquals("bytes */" + size, past.headers().firstValue("Content-Range").orElseThrow());
        assertCosts(1, 0, "a range past the end: the GET's answer (0 bytes) tells the size");

        final HttpResponse<byte[]> pastLast = get("/obj/pastlast.bin",
            "bytes=" + (3 * BLOCK + 10) + "-" + (3 * BLOCK + 20));
        assertEquals(416, pastLast.statusCode());
        assertEquals("bytes */" + size, pastLast.headers().firstValue("Content-Range").orElseThrow());
        assertCosts(1, 0, "a range past the end inside the last block");

        final HttpResponse<byte[]> suffix = get("/obj/suffix.bin", "bytes=-100");
        assertEquals(206, suffix.statusCode());
        assertArrayEquals(Arrays.copyOfRange(data, size - 100, size), suffix.body());
        assertCosts(1, 1, "a suffix range needs the size first: a HEAD, then the GET");

        final HttpResponse<byte[]> empty = get("/obj/empty.bin", null);
        assertEquals(200, empty.statusCode());
        assertEquals(0, empty.body().length);
        assertEquals("0", empty.headers().firstValue("Content-Length").orElseThrow());
        assertCosts(1, 0, "a 0-byte object");

        final HttpResponse<byte[]> emptyRanged = get("/obj/empty-ranged.bin", "bytes=0-10");
        assertEquals(416, emptyRanged.statusCode());
        assertEquals("bytes */0", emptyRanged.headers().firstValue("Content-Range").orElseThrow());
        assertCosts(1, 0, "any range of a 0-byte object");

        final HttpResponse<byte[]> small = get("/obj/tiny.bin", "bytes=0-99999");
        assertEquals(206, small.statusCode());
        assertEquals("bytes 0-99/100", small.headers().firstValue("Content-Range").orElseThrow());
        assertArrayEquals(tiny, small.body());
        assertCosts(1, 0, "an object shorter than a block");

        assertEquals(404, get("/obj/missing.bin", null).statusCode());
        assertEquals(404, get("/obj/missing.bin", "bytes=5-9").statusCode());
        assertCosts(2, 0, "a missing object: its GET says so");
    }

    @Test
    void aWholeNewObjectOverTheCapStartsItsNextGetWithTheFirstAnswersHeadersNotAfterItsBody() throws Exception
    {
        final int mib = 1024 * 1024;
        final Path dir = origin();
        final byte[] whole = object(dir, "whole.bin", 16 * mib, 71);
        final byte[] open = object(dir, "open.bin", 16 * mib, 72);
        final AtomicReference<SecondGetLatchOrigin> latch = new AtomicReference<>();
        harness = new ServerHarness(mib, dir, tmp.resolve("ssd"), 64, 64L * mib, TransportKind.AUTO, 0,
            (o) -> latch.updateAndGet((x) -> new SecondGetLatchOrigin(o)), (engine) -> engine);
        harness.origin.tellsSize(true);
        // the first GET (blocks 0..7) tells the size and then holds its body until a second GET arrives: the
        // stream's run of blocks 8..15 must start on the size alone
        final long started = System.nanoTime();
        assertArrayEquals(whole, get("/obj/whole.bin", null).body());
        assertEquals(2, latch.get().gets(), "16 MiB at 8 MiB per GET");
        assertEquals(2, latch.get().peakInFlight(), "the second GET while the first body is still held");
        assertTrue(System.nanoTime() - started < TimeUnit.SECONDS.toNanos(SecondGetLatchOrigin.HOLD_SECONDS),
            "the first body was not held for the whole hold");
        assertEquals(0, harness.origin.heads());

        // an open range (bytes=S-) is the same: one coalesced GET from S tells the size, the next run starts with it
        final HttpResponse<byte[]> tail = get("/obj/open.bin", "bytes=" + (mib + 5) + "-");
        assertEquals(206, tail.statusCode());
        assertArrayEquals(Arrays.copyOfRange(open, mib + 5, 16 * mib), tail.body());
        assertEquals(4, latch.get().gets(), "blocks 1..8 and 9..15");
        assertEquals(0, harness.origin.heads(), "no HEAD");
    }

    @Test
    void anOpenRangeOfASmallNewObjectIsOneGetAndNoFetchOfItsProbeFails() throws Exception
    {
        final Path dir = origin();
        final int blocks = 12;
        final byte[] data = object(dir, "small.bin", blocks * BLOCK - 10, 81);
        final byte[] whole = object(dir, "whole-small.bin", blocks * BLOCK - 10, 82);
        // the default cap: 8 MiB, 128 blocks of 64 KiB asked for before the size is known
        harness = new ServerHarness(dir, tmp.resolve("ssd"), 256, 1024L * BLOCK, TransportKind.AUTO, 0,
            (o) -> o, (engine) -> engine);
        harness.origin.tellsSize(true);
        final int runBlocks = harness.cache.fetcher().maxRunBlocks();
        assertEquals(128, runBlocks);
        final long failedBefore = harness.cache.fetcher().blocksFailed();
        final long pastEndBefore = harness.cache.fetcher().blocksPastEnd();

        final HttpResponse<byte[]> open = get("/obj/small.bin", "bytes=100-");
        assertEquals(206, open.statusCode());
        assertArrayEquals(Arrays.copyOfRange(data, 100, data.length), open.body());
        assertCosts(1, 0, "an open range of a 12-block object");
        assertArrayEquals(whole, get("/obj/whole-small.bin", null).body());
        assertCosts(1, 0, "a whole 12-block object");

        assertEquals(0, harness.cache.fetcher().blocksFailed() - failedBefore, "no block fetch failed");
        // the past-end blocks complete after the blocks the response needed, so the body can arrive first
        final long pastEndExpected = 2L * (runBlocks - blocks);
        final long waitUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (harness.cache.fetcher().blocksPastEnd() - pastEndBefore < pastEndExpected &&
            System.nanoTime() < waitUntil)
        {
            Thread.sleep(1);
        }
        assertEquals(pastEndExpected, harness.cache.fetcher().blocksPastEnd() - pastEndBefore,
            "the blocks asked for past the end completed as such");
        assertEquals(0, harness.cache.fetcher().inFlightBlocks(), "nothing left in flight");
        assertEquals(2L * blocks, harness.cache.metrics().value(MetricNames.BLOCK_REQUESTS), "each chunk once");
    }

    @Test
    void concurrentFirstReadersOfANewObjectShareEveryFetchAndAskNoHead() throws Exception
    {
        final Path dir = origin();
        final int blocks = 16;
        final byte[] data = object(dir, "shared.bin", blocks * BLOCK, 61);
        harness = cappedTellingSizes(dir);
        final int readers = 8;
        final List<CompletableFuture<HttpResponse<byte[]>>> answers = new ArrayList<>();
        for (int i = 0; i < readers; i++)
        {
            // half ask for the whole object (the size comes with blocks 0..7), half for a closed range (0..15)
            final HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(harness.base() + "/obj/shared.bin"))
                .timeout(Duration.ofSeconds(30)).header("Authorization", "Bearer " + ServerHarness.KEY);
            if (i % 2 == 1)
            {
                request.header("Range", "bytes=0-" + (blocks * BLOCK - 1));
            }
            answers.add(http.sendAsync(request.build(), HttpResponse.BodyHandlers.ofByteArray()));
        }
        for (final CompletableFuture<HttpResponse<byte[]>> answer : answers)
        {
            assertArrayEquals(data, answer.get(60, TimeUnit.SECONDS).body());
        }
        assertEquals(0, harness.origin.heads(), "no HEAD: one size, learned by the fetches they share");
        assertEquals((long) blocks * BLOCK, harness.origin.bytesRequested(), "each block asked of the origin once");
        assertTrue(harness.origin.gets() >= 2 && harness.origin.gets() <= blocks,
            "GETs: " + harness.origin.gets());
        assertEquals((long) readers * blocks, harness.cache.metrics().value(MetricNames.BLOCK_REQUESTS),
            "each reader's chunks counted once");
    }

    /** The origin GETs and HEADs since the last call, as expected; then starts counting afresh. */
    private void assertCosts(final long gets, final long heads, final String what)
    {
        assertEquals(gets, harness.origin.gets(), what + ": GETs");
        assertEquals(heads, harness.origin.heads(), what + ": HEADs");
        harness.origin.reset();
    }

    private L2Client client(final Path dir, final Duration abandon)
    {
        return new L2Client(new L2ClientContext()
            .serverUri(URI.create(harness.base()))
            .apiKey(ServerHarness.KEY)
            .origin(new FileSystemOrigin(dir, 2))
            .abandonTimeout(abandon));
    }

    private HttpResponse<byte[]> get(final String path, final String range) throws Exception
    {
        final HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(harness.base() + path))
            .timeout(Duration.ofSeconds(30)).header("Authorization", "Bearer " + ServerHarness.KEY);
        if (null != range)
        {
            request.header("Range", range);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private HttpResponse<byte[]> post(final String path, final long[][] ranges) throws Exception
    {
        final StringBuilder json = new StringBuilder("{\"ranges\":[");
        for (int i = 0; i < ranges.length; i++)
        {
            json.append(i == 0 ? "[" : ",[").append(ranges[i][0]).append(',').append(ranges[i][1]).append(']');
        }
        return http.send(HttpRequest.newBuilder(URI.create(harness.base() + path))
            .timeout(Duration.ofSeconds(30)).header("Authorization", "Bearer " + ServerHarness.KEY)
            .POST(HttpRequest.BodyPublishers.ofString(json.append("]}").toString())).build(),
            HttpResponse.BodyHandlers.ofByteArray());
    }

    private static byte[] frames(final byte[] data, final long[][] ranges)
    {
        int total = 0;
        for (final long[] range : ranges)
        {
            total += Long.BYTES + (int) (range[1] - range[0]);
        }
        final ByteBuffer out = ByteBuffer.allocate(total).order(ByteOrder.LITTLE_ENDIAN);
        for (final long[] range : ranges)
        {
            out.putLong(range[1] - range[0]);
            out.put(data, (int) range[0], (int) (range[1] - range[0]));
        }
        return out.array();
    }

    private long lookups(final String result) throws Exception
    {
        final String page = http.send(HttpRequest.newBuilder(URI.create(harness.base() + "/metrics"))
            .header("Authorization", "Bearer " + ServerHarness.KEY).build(), HttpResponse.BodyHandlers.ofString())
            .body();
        final Matcher matcher = Pattern.compile("(?m)^offcache_server_block_lookups_total\\{result=\"" + result +
            "\"\\} (\\d+)").matcher(page);
        assertTrue(matcher.find(), "no lookup counter for " + result);
        return Long.parseLong(matcher.group(1));
    }
}
