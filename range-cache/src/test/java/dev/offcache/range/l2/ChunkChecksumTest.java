package dev.offcache.range.l2;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.zip.CRC32C;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The CRC32C trailer check both L2 exchanges use: a trailer split across buffers is read whole, the chunk's bytes are
 * checked where they landed (direct or heap, at any position), a wrong CRC is told apart, and checking a chunk
 * allocates nothing (before, each check made a {@code duplicate()} of the destination).
 */
class ChunkChecksumTest
{
    private static final int ITERATIONS = 100_000;
    /** Room for the measuring calls; one duplicate per check would be megabytes. */
    private static final long ALLOWANCE_BYTES = 16 * 1024;

    @Test
    void aTrailerSplitAcrossBuffersChecksTheChunkInPlace()
    {
        final byte[] bytes = new byte[3000];
        new Random(5).nextBytes(bytes);
        for (final ByteBuffer destination : new ByteBuffer[] {ByteBuffer.allocateDirect(4000),
            ByteBuffer.allocate(4000)})
        {
            destination.position(500);
            destination.duplicate().put(bytes);
            final int crc = crcOf(bytes, 1000, 700);
            final ChunkChecksum check = new ChunkChecksum();
            final byte[] trailer = {(byte) (crc >>> 24), (byte) (crc >>> 16), (byte) (crc >>> 8), (byte) crc};
            assertFalse(check.takeTrailerByte(Unpooled.wrappedBuffer(trailer, 0, 1)));
            assertFalse(check.takeTrailerByte(Unpooled.wrappedBuffer(trailer, 1, 1)));
            final ByteBuf rest = Unpooled.wrappedBuffer(trailer, 2, 2);
            assertFalse(check.takeTrailerByte(rest));
            assertTrue(check.takeTrailerByte(rest), "four bytes make the trailer");
            assertTrue(check.matches(destination, 500 + 1000, 700), destination.toString());
            assertEquals(500, destination.position(), "position untouched");

            for (final byte b : trailer)
            {
                check.takeTrailerByte(Unpooled.wrappedBuffer(new byte[] {b}));
            }
            assertFalse(check.matches(destination, 500 + 1001, 700), "another chunk's bytes do not match");
        }
    }

    @Test
    void chunksFollowTheServersBlockGrid()
    {
        assertEquals(100, ChunkChecksum.chunkLength(1000, 1100, 5000), "to the end of the block");
        assertEquals(1100, ChunkChecksum.chunkLength(2200, 1100, 5000), "a whole block");
        assertEquals(7, ChunkChecksum.chunkLength(2200, 1100, 7), "what is left of the range");
    }

    @Test
    void checkingAChunkAllocatesNothing()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assertTrue(threads.isThreadAllocatedMemorySupported());
        threads.setThreadAllocatedMemoryEnabled(true);
        final byte[] bytes = new byte[64 * 1024];
        new Random(6).nextBytes(bytes);
        final ByteBuffer direct = ByteBuffer.allocateDirect(bytes.length);
        direct.duplicate().put(bytes);
        final ByteBuffer heap = ByteBuffer.wrap(bytes.clone());
        final int crc = crcOf(bytes, 100, 4000);
        final ByteBuf trailer = Unpooled.directBuffer(4).writeInt(crc);
        final ChunkChecksum check = new ChunkChecksum();
        final ByteBuffer[] destinations = {direct, heap};
        long good = loop(check, trailer, destinations);
        final long thread = Thread.currentThread().getId();
        final long before = threads.getThreadAllocatedBytes(thread);
        good += loop(check, trailer, destinations);
        final long allocated = threads.getThreadAllocatedBytes(thread) - before;
        assertEquals(4L * ITERATIONS, good, "every check matched");
        assertTrue(allocated < ALLOWANCE_BYTES, "checking chunks allocated " + allocated + " bytes");
        trailer.release();
    }

    private static long loop(final ChunkChecksum check, final ByteBuf trailer, final ByteBuffer[] destinations)
    {
        long good = 0;
        for (int i = 0; i < ITERATIONS; i++)
        {
            for (final ByteBuffer destination : destinations)
            {
                trailer.readerIndex(0);
                while (!check.takeTrailerByte(trailer))
                {
                    // the trailer's first three bytes
                }
                good += check.matches(destination, 100, 4000) ? 1 : 0;
            }
        }
        return good;
    }

    private static int crcOf(final byte[] bytes, final int from, final int length)
    {
        final CRC32C crc = new CRC32C();
        crc.update(bytes, from, length);
        return (int) crc.getValue();
    }
}
