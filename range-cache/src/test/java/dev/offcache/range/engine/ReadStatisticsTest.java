package dev.offcache.range.engine;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.offcache.range.metrics.ReadStatistics;
import dev.offcache.range.testing.CountingOrigin;
import dev.offcache.range.testing.EngineFixture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A caller's {@link ReadStatistics} count exactly what its own reads did, whatever other callers of the same engine
 * do: misses, origin requests and bytes on a cold read (checked against the origin's log), hits on a reread, a
 * second caller's hits on blocks the first one loaded without the first one's counts moving, joins of another's
 * fetch in flight, gap blocks read through, and vectored reads.
 */
class ReadStatisticsTest
{
    private static final int BLOCK = 4096;

    @Test
    void aColdReadCountsItsMissesAndOriginBytesAndARereadItsHits()
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 64L * BLOCK, (b) -> b))
        {
            final int size = 5 * BLOCK + 100;
            final byte[] expected = f.object("k", size, 1);
            final ReadStatistics a = new ReadStatistics();
            final byte[] got = new byte[size];
            f.cache.read("k", 0, got, 0, size, a);
            assertArrayEquals(expected, got);
            assertEquals(1, f.origin.gets());
            assertCounts(a, 0, 0, 6, 0, size, 1, size);

            final byte[] again = new byte[size];
            f.cache.read("k", 0, again, 0, size, a);
            assertArrayEquals(expected, again);
            assertEquals(1, f.origin.gets(), "the reread is all hits");
            assertCounts(a, 6, size, 6, 0, size, 1, size);
        }
    }

    @Test
    void aPartialReadCountsTheBytesItAskedForAndTheWholeBlocksFetched()
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 64L * BLOCK, (b) -> b))
        {
            final byte[] expected = f.object("k", 8 * BLOCK, 2);
            final ReadStatistics a = new ReadStatistics();
            final ByteBuffer buffer = ByteBuffer.allocateDirect(5000);
            f.cache.read("k", 100, buffer, a);
            assertEquals(5000, buffer.position());
            assertArrayEquals(Arrays.copyOfRange(expected, 100, 5100), bytes(buffer.flip()));
            assertCounts(a, 0, 0, 2, 0, 5000, 1, 2 * BLOCK);
            // block 1 is held now, block 2 is not: one hit, one miss, one more GET of one block
            final ByteBuffer next = ByteBuffer.allocate(BLOCK);
            f.cache.read("k", BLOCK + 10, next, a);
            assertArrayEquals(Arrays.copyOfRange(expected, BLOCK + 10, 2 * BLOCK + 10), bytes(next.flip()));
            assertCounts(a, 1, BLOCK - 10, 3, 0, 5000 + 10, 2, 3 * BLOCK);
            assertEquals(3L * BLOCK, f.origin.log().stream().mapToLong(CountingOrigin.Get::length).sum());
        }
    }

    @Test
    void twoCallersSeeOnlyTheirOwnReads()
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 64L * BLOCK, (b) -> b))
        {
            final int size = 4 * BLOCK;
            final byte[] expected = f.object("k", size, 3);
            final ReadStatistics a = new ReadStatistics();
            final ReadStatistics b = new ReadStatistics();
            final byte[] got = new byte[size];
            f.cache.read("k", 0, got, 0, size, a);
            final String before = a.toString();
            final byte[] theirs = new byte[size];
            f.cache.read("k", 0, theirs, 0, size, b);
            assertArrayEquals(expected, theirs);
            assertCounts(b, 4, size, 0, 0, 0, 0, 0);
            assertEquals(before, a.toString(), "the first caller's counts do not move when the second reads");
            assertCounts(a, 0, 0, 4, 0, size, 1, size);
            // a read with no counters counts nowhere
            f.cache.read("k", 0, new byte[size], 0, size);
            assertEquals(before, a.toString());
            assertCounts(b, 4, size, 0, 0, 0, 0, 0);
        }
    }

    @Test
    void aReadJoiningAnotherCallersFetchCountsAMissButNoOriginRequest() throws Exception
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 64L * BLOCK, (b) -> b))
        {
            final int size = 2 * BLOCK;
            final byte[] expected = f.object("k", size, 4);
            f.cache.size("k");
            final CompletableFuture<Void> gate = f.origin.gateGets((key) -> true);
            final ReadStatistics a = new ReadStatistics();
            final ReadStatistics b = new ReadStatistics();
            final byte[] mine = new byte[size];
            final byte[] theirs = new byte[100];
            final CompletableFuture<Void> first =
                f.cache.readVectoredAsync("k", List.of(RangeRequest.of(0, mine, 0, size)), false, a);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (f.origin.gets() == 0 && System.nanoTime() < deadline)
            {
                Thread.onSpinWait();
            }
            final CompletableFuture<Void> second =
                f.cache.readVectoredAsync("k", List.of(RangeRequest.of(BLOCK, theirs, 0, 100)), false, b);
            gate.complete(null);
            first.get(10, TimeUnit.SECONDS);
            second.get(10, TimeUnit.SECONDS);
            assertArrayEquals(expected, mine);
            assertArrayEquals(Arrays.copyOfRange(expected, BLOCK, BLOCK + 100), theirs);
            assertEquals(1, f.origin.gets());
            assertCounts(a, 0, 0, 2, 0, size, 1, size);
            assertCounts(b, 0, 0, 1, 1, 100, 0, 0);
        }
    }

    @Test
    void aVectoredReadCountsEachRangeAndTheGapItReadThrough() throws Exception
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 64L * BLOCK, (b) -> b.coalesceGapBytes(2 * BLOCK)))
        {
            final byte[] expected = f.object("k", 10 * BLOCK, 5);
            final ReadStatistics a = new ReadStatistics();
            final byte[] one = new byte[200];
            final byte[] two = new byte[300];
            // blocks 1 and 4 wanted; 2 and 3 are the gap one GET reads through
            f.cache.readVectoredAsync("k", List.of(RangeRequest.of(BLOCK + 50, one, 0, 200),
                RangeRequest.of(4L * BLOCK + 7, two, 0, 300)), false, a).get(10, TimeUnit.SECONDS);
            assertArrayEquals(Arrays.copyOfRange(expected, BLOCK + 50, BLOCK + 250), one);
            assertArrayEquals(Arrays.copyOfRange(expected, 4 * BLOCK + 7, 4 * BLOCK + 307), two);
            assertEquals(List.of(new CountingOrigin.Get("k", BLOCK, 4 * BLOCK)), f.origin.log());
            assertCounts(a, 0, 0, 2, 0, 500, 1, 4 * BLOCK);
            // the gap blocks were cached: a read of them is all hits
            final byte[] gap = new byte[2 * BLOCK];
            f.cache.readVectoredAsync("k", List.of(RangeRequest.of(2L * BLOCK, gap, 0, 2 * BLOCK)), false, a)
                .get(10, TimeUnit.SECONDS);
            assertArrayEquals(Arrays.copyOfRange(expected, 2 * BLOCK, 4 * BLOCK), gap);
            assertCounts(a, 2, 2 * BLOCK, 2, 0, 500, 1, 4 * BLOCK);
        }
    }

    private static void assertCounts(
        final ReadStatistics stats,
        final long hits,
        final long hitBytes,
        final long misses,
        final long joined,
        final long missBytes,
        final long originRequests,
        final long originBytes)
    {
        assertEquals(List.of(hits, hitBytes, misses, joined, missBytes, originRequests, originBytes),
            List.of(stats.blockHits(), stats.hitBytes(), stats.blockMisses(), stats.joinedBlocks(),
                stats.missBytes(), stats.originRequests(), stats.originBytes()),
            "hits, hit bytes, misses, joined, miss bytes, origin requests, origin bytes: " + stats);
    }

    private static byte[] bytes(final ByteBuffer buffer)
    {
        final byte[] out = new byte[buffer.remaining()];
        buffer.get(out);
        return out;
    }
}
