package dev.offcache.range.engine;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.offcache.range.testing.EngineFixture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@code byte[]} and {@link ByteBuffer} overloads beside the Agrona buffer API: the same bytes, GETs and
 * checks, cold and warm, and no allocation on a hit.
 */
class PlainBufferReadTest
{
    private static final int BLOCK = 4096;

    @Test
    void byteArrayReadsAreTheOriginBytesColdAndWarm()
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 32L * BLOCK, (b) -> b))
        {
            final byte[] data = f.object("a", 5 * BLOCK + 123, 7);
            final byte[] into = new byte[3 * BLOCK + 17];
            f.cache.read("a", BLOCK - 5, into, 9, 3 * BLOCK);
            assertArrayEquals(Arrays.copyOfRange(data, BLOCK - 5, 4 * BLOCK - 5),
                Arrays.copyOfRange(into, 9, 9 + 3 * BLOCK));
            assertEquals(0, into[8], "nothing written before the offset");
            assertEquals(1, f.origin.gets(), "four contiguous missing blocks, one GET");
            final byte[] again = new byte[3 * BLOCK];
            f.cache.read("a", BLOCK - 5, again, 0, 3 * BLOCK);
            assertArrayEquals(Arrays.copyOfRange(data, BLOCK - 5, 4 * BLOCK - 5), again);
            assertEquals(1, f.origin.gets(), "warm: no GET");

            final byte[] tail = new byte[200];
            assertEquals(200, f.cache.readTail("a", tail, 0, 200));
            assertArrayEquals(Arrays.copyOfRange(data, data.length - 200, data.length), tail);
        }
    }

    @Test
    void byteBufferReadsFillPositionToLimitAndAdvance()
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 32L * BLOCK, (b) -> b))
        {
            final byte[] data = f.object("b", 4 * BLOCK, 8);
            for (final ByteBuffer buffer : List.of(ByteBuffer.allocate(2 * BLOCK + 10),
                ByteBuffer.allocateDirect(2 * BLOCK + 10), ByteBuffer.wrap(new byte[2 * BLOCK + 30], 10, 2 * BLOCK + 10)
                    .slice()))
            {
                buffer.position(10);
                f.cache.read("b", BLOCK + 1, buffer);
                assertEquals(buffer.limit(), buffer.position());
                final byte[] got = new byte[2 * BLOCK];
                buffer.position(10);
                buffer.get(got);
                assertArrayEquals(Arrays.copyOfRange(data, BLOCK + 1, 3 * BLOCK + 1), got);
            }
            final ByteBuffer tail = ByteBuffer.allocateDirect(5 * BLOCK);
            assertEquals(4 * BLOCK, f.cache.readTail("b", tail), "an object smaller than the tail asked for");
            assertEquals(4 * BLOCK, tail.position());
            assertEquals(5 * BLOCK, tail.limit(), "the limit is put back");
            final byte[] whole = new byte[4 * BLOCK];
            tail.flip().get(whole);
            assertArrayEquals(data, whole);
        }
    }

    @Test
    void vectoredReadsIntoArraysAndBuffers()
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 32L * BLOCK, (b) -> b))
        {
            final byte[] data = f.object("v", 8 * BLOCK, 9);
            final byte[] first = new byte[100];
            final ByteBuffer second = ByteBuffer.allocateDirect(BLOCK);
            f.cache.readVectored("v", List.of(RangeRequest.of(10, first, 0, 100), RangeRequest.of(5L * BLOCK, second)));
            assertArrayEquals(Arrays.copyOfRange(data, 10, 110), first);
            final byte[] got = new byte[BLOCK];
            second.get(got);
            assertArrayEquals(Arrays.copyOfRange(data, 5 * BLOCK, 6 * BLOCK), got);
        }
    }

    @Test
    void badInputIsRefusedBeforeAnyFetch()
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 32L * BLOCK, (b) -> b))
        {
            f.object("c", BLOCK, 1);
            assertThrows(IllegalArgumentException.class, () -> f.cache.read("c", 0, new byte[10], 5, 6));
            assertThrows(IllegalArgumentException.class, () -> f.cache.read("c", 0, (byte[]) null, 0, 1));
            assertThrows(IllegalArgumentException.class,
                () -> f.cache.read("c", 0, ByteBuffer.allocate(10).asReadOnlyBuffer()));
            final IllegalArgumentException past = assertThrows(IllegalArgumentException.class,
                () -> f.cache.read("c", BLOCK - 1, new byte[2], 0, 2));
            assertTrue(past.getMessage().contains("past the end"), past.getMessage());
            assertEquals(0, f.origin.gets());
        }
    }

    @Test
    void hitsIntoArraysAndDirectBuffersAllocateNothing()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (EngineFixture f = new EngineFixture(BLOCK, 64L * BLOCK, (b) -> b))
        {
            f.object("hot", 8 * BLOCK, 3);
            final byte[] array = new byte[2 * BLOCK];
            final ByteBuffer direct = ByteBuffer.allocateDirect(2 * BLOCK);
            f.cache.read("hot", 0, new byte[8 * BLOCK], 0, 8 * BLOCK);
            for (int i = 0; i < 20_000; i++)
            {
                f.cache.read("hot", (i * 517L) % (6 * BLOCK), array, 0, 2 * BLOCK);
                direct.clear();
                f.cache.read("hot", (i * 311L) % (6 * BLOCK), direct);
            }
            final long tid = Thread.currentThread().getId();
            final long before = threads.getThreadAllocatedBytes(tid);
            for (int i = 0; i < 20_000; i++)
            {
                f.cache.read("hot", (i * 517L) % (6 * BLOCK), array, 0, 2 * BLOCK);
                direct.clear();
                f.cache.read("hot", (i * 311L) % (6 * BLOCK), direct);
            }
            final long allocated = threads.getThreadAllocatedBytes(tid) - before;
            assertTrue(allocated < 40_000, "40k hits allocated " + allocated + " bytes");
            assertEquals(1, f.origin.gets());
        }
    }
}
