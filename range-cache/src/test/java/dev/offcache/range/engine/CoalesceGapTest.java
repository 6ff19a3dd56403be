package dev.offcache.range.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import dev.offcache.range.testing.CountingOrigin;
import dev.offcache.range.testing.EngineFixture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@code coalesceGapBytes}: two missing runs of one read apart by a short gap of blocks nobody holds are one GET
 * with the gap read through (and cached); a longer gap, a held or wanted block in the gap, or no gap setting keep
 * the GETs apart; the bytes are always the origin's.
 */
class CoalesceGapTest
{
    private static final int BLOCK = 4096;

    private static List<RangeRequest> ranges(final long[][] spans)
    {
        final List<RangeRequest> ranges = new ArrayList<>();
        for (final long[] span : spans)
        {
            ranges.add(new RangeRequest(span[0], (int) span[1], new UnsafeBuffer(new byte[(int) span[1]]), 0));
        }
        return ranges;
    }

    private static void assertBytes(final byte[] expected, final List<RangeRequest> ranges)
    {
        for (final RangeRequest r : ranges)
        {
            assertArrayEquals(Arrays.copyOfRange(expected, (int) r.position(), (int) r.position() + r.length()),
                r.destination().byteArray());
        }
    }

    @Test
    void aGapUpToTheSettingIsReadThroughInOneGetAndCached()
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 64L * BLOCK, (b) -> b.coalesceGapBytes(3 * BLOCK)))
        {
            final byte[] expected = f.object("g", 20 * BLOCK, 1);
            // Blocks 0-1, then 3 unwanted blocks (2-4), then block 5; then 4 unwanted (6-9) and block 10.
            final List<RangeRequest> ranges = ranges(new long[][] {{10, 2 * BLOCK - 20}, {5L * BLOCK + 7, 100},
                {10L * BLOCK, BLOCK}});
            f.cache.readVectored("g", ranges);
            assertBytes(expected, ranges);
            assertEquals(List.of(new CountingOrigin.Get("g", 0, 6 * BLOCK), new CountingOrigin.Get("g", 10L * BLOCK,
                BLOCK)), f.origin.log(), "the 3-block gap is read through, the 4-block one is not");

            f.origin.reset();
            assertArrayEquals(Arrays.copyOfRange(expected, 2 * BLOCK, 5 * BLOCK), f.read("g", 2 * BLOCK, 3 * BLOCK));
            assertEquals(0, f.origin.gets(), "the gap's blocks were cached");
        }
    }

    @Test
    void aGapWithAHeldBlockIsNotReadThrough()
    {
        // The 4-block gap (1-4) is within the setting, but block 3 is held: reading through would refetch it.
        try (EngineFixture f = new EngineFixture(BLOCK, 64L * BLOCK, (b) -> b.coalesceGapBytes(4 * BLOCK)))
        {
            final byte[] expected = f.object("h", 8 * BLOCK, 2);
            f.read("h", 3L * BLOCK, 1);
            f.origin.reset();
            final List<RangeRequest> ranges = ranges(new long[][] {{0, BLOCK}, {5L * BLOCK, BLOCK}});
            f.cache.readVectored("h", ranges);
            assertBytes(expected, ranges);
            assertEquals(List.of(new CountingOrigin.Get("h", 0, BLOCK), new CountingOrigin.Get("h", 5L * BLOCK,
                BLOCK)), f.origin.log());
        }
    }

    @Test
    void withoutTheSettingRunsStayApartAndOnlyMissingNeighboursAreBridged()
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 64L * BLOCK, (b) -> b))
        {
            final byte[] expected = f.object("n", 8 * BLOCK, 3);
            final List<RangeRequest> ranges = ranges(new long[][] {{0, BLOCK}, {2L * BLOCK, BLOCK}});
            f.cache.readVectored("n", ranges);
            assertBytes(expected, ranges);
            assertEquals(2, f.origin.gets());
        }
        try (EngineFixture f = new EngineFixture(BLOCK, 64L * BLOCK, (b) -> b.coalesceGapBytes(2 * BLOCK)))
        {
            final byte[] expected = f.object("w", 8 * BLOCK, 4);
            // Warm ends, cold gap: nothing is fetched for the gap alone.
            f.read("w", 0, BLOCK);
            f.read("w", 3L * BLOCK, BLOCK);
            f.origin.reset();
            final List<RangeRequest> ranges = ranges(new long[][] {{0, BLOCK}, {3L * BLOCK, BLOCK}});
            f.cache.readVectored("w", ranges);
            assertBytes(expected, ranges);
            assertEquals(0, f.origin.gets(), "a warm read never fetches a gap");
        }
    }

    @Test
    void aGapIsReadThroughOnlyWhereItAndTheNextBlockFitUnderTheCap()
    {
        // A 4-block cap: a gap the run would reach the cap in saves no GET, so it is not read.
        try (EngineFixture f = new EngineFixture(BLOCK, 64L * BLOCK,
            (b) -> b.maxCoalescedGetBytes(4 * BLOCK).coalesceGapBytes(3 * BLOCK)))
        {
            final byte[] expected = f.object("c", 16 * BLOCK, 5);
            final List<RangeRequest> apart = ranges(new long[][] {{0, 2 * BLOCK}, {4L * BLOCK, BLOCK}});
            f.cache.readVectored("c", apart);
            assertBytes(expected, apart);
            assertEquals(List.of(new CountingOrigin.Get("c", 0, 2 * BLOCK), new CountingOrigin.Get("c", 4L * BLOCK,
                BLOCK)), f.origin.log(), "blocks 0-1 and 4: the 2-block gap and block 4 do not fit a 4-block run");

            f.origin.reset();
            final List<RangeRequest> fitting = ranges(new long[][] {{8L * BLOCK, BLOCK}, {11L * BLOCK, BLOCK}});
            f.cache.readVectored("c", fitting);
            assertBytes(expected, fitting);
            assertEquals(List.of(new CountingOrigin.Get("c", 8L * BLOCK, 4 * BLOCK)), f.origin.log(),
                "blocks 8 and 11: the 2-block gap fits, one GET");
        }
    }

    @Test
    void gapBlocksAtTheReadAheadEdgeNeitherStallNorLeakTheRead()
    {
        // Every other block of 23, a read-ahead of 4 blocks (one window of the 4-block cap): each run is a wanted
        // block, a 1-block gap and a wanted block; gap blocks count as requests in flight until they arrive.
        try (EngineFixture f = new EngineFixture(BLOCK, 64L * BLOCK,
            (b) -> b.maxCoalescedGetBytes(4 * BLOCK).coalesceGapBytes(BLOCK).streamWindows(1, 1)))
        {
            final byte[] expected = f.object("e", 23 * BLOCK, 6);
            final long[][] spans = new long[12][];
            for (int i = 0; i < spans.length; i++)
            {
                spans[i] = new long[] {2L * i * BLOCK, BLOCK};
            }
            final List<RangeRequest> ranges = ranges(spans);
            f.cache.readVectored("e", ranges);
            assertBytes(expected, ranges);
            final List<CountingOrigin.Get> gets = new ArrayList<>();
            for (int i = 0; i < 6; i++)
            {
                gets.add(new CountingOrigin.Get("e", 4L * i * BLOCK, 3 * BLOCK));
            }
            assertEquals(gets, f.origin.log(), "wanted, gap, wanted: 6 GETs of 3 blocks");
            f.origin.reset();
            assertArrayEquals(expected, f.read("e", 0, 23 * BLOCK));
            assertEquals(List.of(new CountingOrigin.Get("e", 3L * BLOCK, BLOCK),
                new CountingOrigin.Get("e", 7L * BLOCK, BLOCK), new CountingOrigin.Get("e", 11L * BLOCK, BLOCK),
                new CountingOrigin.Get("e", 15L * BLOCK, BLOCK), new CountingOrigin.Get("e", 19L * BLOCK, BLOCK)),
                f.origin.log(), "only the blocks no GET read are missing afterwards");
        }
    }

    @Test
    void aGapLargerThanTheCoalescingCapIsRefused()
    {
        assertThrows(IllegalArgumentException.class, () -> new EngineFixture(BLOCK, 64L * BLOCK,
            (b) -> b.maxCoalescedGetBytes(4 * BLOCK).coalesceGapBytes(5 * BLOCK)).close());
    }
}
