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
    void aGapLargerThanTheCoalescingCapIsRefused()
    {
        assertThrows(IllegalArgumentException.class, () -> new EngineFixture(BLOCK, 64L * BLOCK,
            (b) -> b.maxCoalescedGetBytes(4 * BLOCK).coalesceGapBytes(5 * BLOCK)).close());
    }
}
