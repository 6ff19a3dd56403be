package dev.offcache.range.l2;

import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.offcache.core.slab.BlockRef;
import dev.offcache.range.engine.ByteRange;
import dev.offcache.range.engine.RangeCache;
import dev.offcache.range.engine.RangeRequest;
import dev.offcache.range.origin.FileSystemOrigin;
import dev.offcache.range.store.FetchClass;
import dev.offcache.range.testing.CountingOrigin;
import dev.offcache.range.testing.SlabBlockStore;
import dev.offcache.range.testing.TestObjects;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The L2 client's vectored reads ({@code POST /ranges}: one request for several ranges, exact bytes even when the
 * body breaks), sizes from answers (no HEAD before a first read; a 416 past the end), and interim responses (a
 * server that answers late but says {@code 102 Processing} is waited for and never counted as unresponsive), and
 * checksummed frames (a chunk whose CRC32C does not match is read again from the origin, and only it).
 */
class L2ClientVectoredAndInterimTest
{
    private static final String KEY = "data/part-1.parquet";
    private static final int SIZE = 2 * 1024 * 1024 + 333;
    private static final int CRC_BLOCK = 64 * 1024;

    @TempDir
    Path root;

    private byte[] truth;
    private FaultyL2Server server;
    private CountingOrigin real;
    private L2Client client;

    /**
     * Loads and compiles the client's classes once, so no test's first request spends its 500 ms header deadline on
     * class loading (the tests below assert that nothing fell back).
     */
    @BeforeAll
    static void warmUp(@TempDir final Path dir) throws IOException
    {
        final byte[] bytes = TestObjects.write(dir, "warm", 4096, 1);
        try (FaultyL2Server warm = new FaultyL2Server();
            L2Client warmClient = new L2Client(new L2ClientContext().serverUri(URI.create(warm.url())).apiKey("k")
                .origin(new FileSystemOrigin(dir, 1)).abandonTimeout(Duration.ofSeconds(10))))
        {
            warm.objects.put("warm", bytes);
            for (int i = 0; i < 3; i++)
            {
                warmClient.read("warm", 0, ByteBuffer.allocateDirect(4096)).orTimeout(20, TimeUnit.SECONDS).join();
                warmClient.readVectored("warm", new long[] {0, 100}, new ByteBuffer[] {ByteBuffer.allocateDirect(10),
                    ByteBuffer.allocateDirect(10)}, FetchClass.DEMAND, null).orTimeout(20, TimeUnit.SECONDS).join();
            }
        }
    }

    @BeforeEach
    void setUp() throws IOException
    {
        truth = TestObjects.write(root, KEY, SIZE, 9);
        server = new FaultyL2Server();
        server.objects.put(KEY, truth);
        real = new CountingOrigin(new FileSystemOrigin(root, 2));
        client = new L2Client(new L2ClientContext()
            .serverUri(URI.create(server.url()))
            .apiKey("k")
            .origin(real)
            .abandonTimeout(Duration.ofMillis(500))
            .stallTimeout(Duration.ofMillis(1500))
            .breakerThreshold(5).breakerOpenTime(Duration.ofSeconds(3)));
    }

    @AfterEach
    void tearDown() throws IOException
    {
        client.close();
        server.close();
    }

    @Test
    void severalRangesAreOnePostAndTheSizeComesWithIt()
    {
        final long[] offsets = {10, 300_000, SIZE - 50};
        final int[] lengths = {1000, 70_000, 200};
        final ByteBuffer[] destinations = buffers(lengths);
        final AtomicLong size = new AtomicLong(-1);
        final int[] counts = client.readVectored(KEY, offsets, destinations, FetchClass.DEMAND, size::set)
            .orTimeout(10, TimeUnit.SECONDS).join();
        assertEquals(1, server.rangesRequests.get());
        assertEquals(1, server.requests.get(), "one request for three ranges");
        assertArrayEquals(new int[] {1000, 70_000, 50}, counts, "the last range clamped to the object's end");
        assertEquals(SIZE, size.get());
        for (int i = 0; i < offsets.length; i++)
        {
            assertBytes(offsets[i], counts[i], destinations[i]);
        }
        assertEquals(0, real.gets());
        assertEquals(1, client.metrics().get(L2ClientCounters.Counter.L2_HITS));
    }

    @Test
    void checksummedFramesWithoutDamageAreAHit()
    {
        server.checksumBlock = CRC_BLOCK;
        final long[] offsets = {10, 300_000, SIZE - 50};
        final int[] lengths = {200_000, 70_000, 200};
        final ByteBuffer[] destinations = buffers(lengths);
        final int[] counts = client.readVectored(KEY, offsets, destinations, FetchClass.DEMAND, null)
            .orTimeout(10, TimeUnit.SECONDS).join();
        assertArrayEquals(new int[] {200_000, 70_000, 50}, counts);
        for (int i = 0; i < offsets.length; i++)
        {
            assertBytes(offsets[i], counts[i], destinations[i]);
        }
        assertEquals(0, client.metrics().readFallbacksTotal());
        assertEquals(1, client.metrics().get(L2ClientCounters.Counter.L2_HITS));
        assertEquals(0, real.gets());
    }

    @Test
    void damagedChunksOfAVectoredReadAreReadAgainFromTheOriginAndOnlyThey()
    {
        server.checksumBlock = CRC_BLOCK;
        server.damagedBlocks.addAll(List.of(1, 3, 20));
        // blocks 0-3 (1 whole and the start of 3 damaged), inside block 19, inside block 20 (damaged)
        final long[] offsets = {0, 1_300_000, 20L * CRC_BLOCK + 5};
        final int[] lengths = {200_000, 1000, 100};
        final ByteBuffer[] destinations = buffers(lengths);
        final int[] counts = client.readVectored(KEY, offsets, destinations, FetchClass.DEMAND, null)
            .orTimeout(10, TimeUnit.SECONDS).join();
        assertArrayEquals(lengths, counts);
        for (int i = 0; i < offsets.length; i++)
        {
            assertBytes(offsets[i], counts[i], destinations[i]);
        }
        final L2ClientCounters metrics = client.metrics();
        assertEquals(1, server.rangesRequests.get());
        assertEquals(1, metrics.readFallbacks(FallbackReason.CHECKSUM));
        assertEquals(1, metrics.readFallbacksTotal());
        assertEquals(CRC_BLOCK + (200_000 - 3 * CRC_BLOCK) + 100, metrics.get(L2ClientCounters.Counter.ORIGIN_BYTES),
            "the origin read exactly the damaged chunks");
        assertEquals(201_100, metrics.get(L2ClientCounters.Counter.L2_BYTES) +
            metrics.get(L2ClientCounters.Counter.ORIGIN_BYTES));
        assertEquals(0, metrics.get(L2ClientCounters.Counter.L2_HITS), "a damaged answer is no hit");
        assertEquals(CircuitBreaker.State.CLOSED, client.breaker().state(), "damage is an answer, not a dead server");
    }

    @Test
    void randomDamageAndBrokenBodiesStillGiveTheOriginsBytes()
    {
        server.checksumBlock = CRC_BLOCK;
        final Random random = new Random(19);
        final FaultyL2Server.Fault[] faults = {FaultyL2Server.Fault.NONE, FaultyL2Server.Fault.SHORT_BODY,
            FaultyL2Server.Fault.CLOSE_MID_STREAM};
        final int blocks = (SIZE + CRC_BLOCK - 1) / CRC_BLOCK;
        long total = 0;
        for (int read = 0; read < 30; read++)
        {
            server.fault = faults[random.nextInt(faults.length)];
            server.damagedBlocks.clear();
            for (int d = random.nextInt(4); d > 0; d--)
            {
                server.damagedBlocks.add(random.nextInt(blocks));
            }
            final int ranges = 1 + random.nextInt(5);
            final long[] offsets = new long[ranges];
            final int[] lengths = new int[ranges];
            for (int i = 0; i < ranges; i++)
            {
                offsets[i] = random.nextInt(SIZE - 1);
                lengths[i] = 1 + random.nextInt((int) Math.min(3 * CRC_BLOCK, SIZE - offsets[i]));
            }
            final ByteBuffer[] destinations = buffers(lengths);
            final int[] counts = client.readVectored(KEY, offsets, destinations, FetchClass.DEMAND, null)
                .orTimeout(20, TimeUnit.SECONDS).join();
            assertArrayEquals(lengths, counts, "read " + read);
            for (int i = 0; i < ranges; i++)
            {
                assertBytes(offsets[i], counts[i], destinations[i]);
                total += counts[i];
            }
        }
        final L2ClientCounters metrics = client.metrics();
        assertEquals(total, metrics.get(L2ClientCounters.Counter.L2_BYTES) +
            metrics.get(L2ClientCounters.Counter.ORIGIN_BYTES), "every byte from exactly one of the two");
        assertTrue(metrics.readFallbacks(FallbackReason.CHECKSUM) > 0);
    }

    @ParameterizedTest
    @EnumSource(value = FaultyL2Server.Fault.class, names = {"SHORT_BODY", "CLOSE_MID_STREAM", "STALL_MID_BODY",
        "STATUS_500", "GARBAGE"})
    void aBrokenPostIsCompletedFromTheOriginExactly(final FaultyL2Server.Fault fault)
    {
        server.fault = fault;
        final long[] offsets = {0, 400_000, 1_400_000};
        final int[] lengths = {300_000, 1000, 600_000};
        final ByteBuffer[] destinations = buffers(lengths);
        final int[] counts = client.readVectored(KEY, offsets, destinations, FetchClass.DEMAND, null)
            .orTimeout(20, TimeUnit.SECONDS).join();
        assertArrayEquals(lengths, counts);
        long total = 0;
        for (int i = 0; i < offsets.length; i++)
        {
            assertBytes(offsets[i], counts[i], destinations[i]);
            total += counts[i];
        }
        final L2ClientCounters metrics = client.metrics();
        assertEquals(total, metrics.get(L2ClientCounters.Counter.L2_BYTES) +
            metrics.get(L2ClientCounters.Counter.ORIGIN_BYTES), "every byte from exactly one of the two");
        assertTrue(metrics.get(L2ClientCounters.Counter.ORIGIN_BYTES) > 0, "the origin filled in");
    }

    @Test
    void aReadPastTheEndIsAnAnswerThatTellsTheSize()
    {
        final AtomicLong size = new AtomicLong(-1);
        final ByteBuffer destination = ByteBuffer.allocateDirect(100);
        assertEquals(0, client.read(KEY, SIZE + 5, destination, FetchClass.DEMAND, size::set)
            .orTimeout(10, TimeUnit.SECONDS).join());
        assertEquals(SIZE, size.get());
        assertEquals(0, real.gets(), "no fallback to the origin");
    }

    @Test
    void aServerThatSaysProcessingIsWaitedForAndNeverOpensTheBreaker()
    {
        // answers after 1.2 s, well past the 500 ms header deadline, with 102 Processing every 300 ms meanwhile
        server.slowAnswerMs = 1200;
        server.interimEveryMs = 300;
        for (int i = 0; i < 7; i++)
        {
            final ByteBuffer destination = ByteBuffer.allocateDirect(4096);
            assertEquals(4096, client.read(KEY, i * 100_000L, destination).orTimeout(20, TimeUnit.SECONDS).join());
            assertBytes(i * 100_000L, 4096, destination);
        }
        assertEquals(7, client.metrics().get(L2ClientCounters.Counter.L2_HITS), "every read answered by L2");
        assertEquals(0, real.gets());
        assertEquals(CircuitBreaker.State.CLOSED, client.breaker().state());
        assertTrue(server.interimsSent.get() >= 7 * 3, "interim responses sent: " + server.interimsSent.get());
        assertEquals(SIZE, client.size(KEY).orTimeout(20, TimeUnit.SECONDS).join(), "a HEAD waits the same way");
        assertEquals(1, client.metrics().get(L2ClientCounters.Counter.HEAD_HITS));
    }

    @Test
    void aSlowServerThatSaysNothingIsAbandonedAsBefore()
    {
        server.slowAnswerMs = 1200;
        server.interimEveryMs = 0;
        final ByteBuffer destination = ByteBuffer.allocateDirect(4096);
        assertEquals(4096, client.read(KEY, 0, destination).orTimeout(20, TimeUnit.SECONDS).join());
        assertBytes(0, 4096, destination);
        assertEquals(1, client.metrics().readFallbacks(FallbackReason.NO_HEADERS));
    }

    @Test
    void anEngineReadsANewObjectWithOneRequestAndAVectoredReadWithOnePost()
    {
        try (RangeCache cache = RangeCache.newBuilder().origin(client).blockSize(64 * 1024)
            .store(new SlabBlockStore(8L << 20, 64 * 1024)).build())
        {
            final UnsafeBuffer first = new UnsafeBuffer(new byte[5000]);
            cache.read(KEY, 1000, first, 0, 5000);
            assertArrayEquals(Arrays.copyOfRange(truth, 1000, 6000), first.byteArray());
            assertEquals(1, server.requests.get(), "one GET, no HEAD before it");
            assertEquals(SIZE, cache.sizeNow(KEY), "the size came from the GET's Content-Range");

            final List<RangeRequest> ranges = new ArrayList<>();
            final long[] positions = {200_000, 900_000, SIZE - 10};
            final int[] lengths = {10_000, 70_000, 10};
            for (int i = 0; i < positions.length; i++)
            {
                ranges.add(new RangeRequest(positions[i], lengths[i], new UnsafeBuffer(new byte[lengths[i]]), 0));
            }
            cache.readVectored(KEY, ranges);
            for (final RangeRequest range : ranges)
            {
                assertArrayEquals(Arrays.copyOfRange(truth, (int) range.position(),
                    (int) range.position() + range.length()), range.destination().byteArray());
            }
            assertEquals(1, server.rangesRequests.get(), "the vectored read's missing blocks in one POST /ranges");
            assertEquals(2, server.requests.get());
            assertEquals(0, real.gets() + real.heads(), "nothing from the real origin");
        }
    }

    @Test
    void aViewAndAPrefetchOfNewObjectsSendNoHeadEither()
    {
        final String other = "data/part-2.parquet";
        server.objects.put(other, truth);
        try (RangeCache cache = RangeCache.newBuilder().origin(client).blockSize(64 * 1024)
            .store(new SlabBlockStore(8L << 20, 64 * 1024)).build())
        {
            final BlockRef view = cache.readView(KEY, 3 * 64 * 1024 + 10, 500);
            try
            {
                final byte[] got = new byte[500];
                view.buffer().getBytes(10, got);
                assertArrayEquals(Arrays.copyOfRange(truth, 3 * 64 * 1024 + 10, 3 * 64 * 1024 + 510), got);
            }
            finally
            {
                view.release();
            }
            assertEquals(1, server.requests.get(), "a view of a new object: one GET, no HEAD before it");
            assertEquals(SIZE, cache.sizeNow(KEY));

            cache.prefetch(other, List.of(new ByteRange(100_000, 200_000))).orTimeout(20, TimeUnit.SECONDS).join();
            assertEquals(2, server.requests.get(), "a prefetch of ranges of a new object: one GET, no HEAD");
            assertEquals(SIZE, cache.sizeNow(other));
            final UnsafeBuffer prefetched = new UnsafeBuffer(new byte[200_000]);
            cache.read(other, 100_000, prefetched, 0, 200_000);
            assertArrayEquals(Arrays.copyOfRange(truth, 100_000, 300_000), prefetched.byteArray());
            assertEquals(2, server.requests.get(), "served from what the prefetch stored");
            assertEquals(0, real.gets() + real.heads(), "nothing from the real origin");
        }
    }

    @Test
    void aColdReadPastTheEndFailsCleanlyAndTheSizeIsKnownAfterwards()
    {
        try (RangeCache cache = RangeCache.newBuilder().origin(client).blockSize(64 * 1024)
            .store(new SlabBlockStore(8L << 20, 64 * 1024)).build())
        {
            final UnsafeBuffer buffer = new UnsafeBuffer(new byte[1000]);
            final IllegalArgumentException past = org.junit.jupiter.api.Assertions.assertThrows(
                IllegalArgumentException.class, () -> cache.read(KEY, SIZE - 500, buffer, 0, 1000));
            assertTrue(past.getMessage().contains("past the end"), past.getMessage());
            assertEquals(SIZE, cache.sizeNow(KEY));
            cache.read(KEY, SIZE - 1000, buffer, 0, 1000);
            assertArrayEquals(Arrays.copyOfRange(truth, SIZE - 1000, SIZE), buffer.byteArray());
        }
    }

    private ByteBuffer[] buffers(final int[] lengths)
    {
        final ByteBuffer[] buffers = new ByteBuffer[lengths.length];
        for (int i = 0; i < lengths.length; i++)
        {
            buffers[i] = ByteBuffer.allocateDirect(lengths[i]);
        }
        return buffers;
    }

    private void assertBytes(final long offset, final int count, final ByteBuffer destination)
    {
        final byte[] got = new byte[count];
        destination.duplicate().get(got);
        assertArrayEquals(Arrays.copyOfRange(truth, (int) offset, (int) offset + count), got, "at " + offset);
    }
}
