package dev.offcache.core.checksum;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.zip.CRC32C;

import org.agrona.BufferUtil;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class Crc32cTest
{
    private static int reference(final byte[] bytes, final int offset, final int length)
    {
        final CRC32C crc = new CRC32C();
        crc.update(bytes, offset, length);
        return (int) crc.getValue();
    }

    @Test
    void combineOfTwoRangesIsTheCrcOfBothInARow()
    {
        final Random random = new Random(7);
        final byte[] bytes = new byte[300_000];
        random.nextBytes(bytes);
        final int[] cuts = {0, 1, 7, 64, 4095, 65_536, 65_537, 150_000, 299_999, 300_000};
        for (final int cut : cuts)
        {
            final int whole = reference(bytes, 0, bytes.length);
            final int first = reference(bytes, 0, cut);
            final int second = reference(bytes, cut, bytes.length - cut);
            assertEquals(whole, Crc32c.combine(first, second, bytes.length - cut), "cut at " + cut);
        }
        // chunk by chunk, as a block's per-chunk checksums give the block's
        int combined = reference(bytes, 0, 0);
        for (int at = 0; at < bytes.length; at += 65_536)
        {
            final int length = Math.min(65_536, bytes.length - at);
            combined = Crc32c.combine(combined, reference(bytes, at, length), length);
        }
        assertEquals(reference(bytes, 0, bytes.length), combined);
        assertThrows(IllegalArgumentException.class, () -> Crc32c.combine(0, 0, -1));
    }

    @Test
    void aPartIsCheckedAgainstTheChunksItTouchesAndGetsItsOwnCrc()
    {
        final Random random = new Random(11);
        final byte[] bytes = new byte[4 * Crc32c.CHUNK_SIZE + 1234];
        random.nextBytes(bytes);
        final UnsafeBuffer block = new UnsafeBuffer(bytes);
        final int[] chunks = Crc32c.chunks(block, 0, bytes.length);
        assertEquals(5, chunks.length);
        assertEquals(reference(bytes, 0, bytes.length), Crc32c.combine(chunks, Crc32c.CHUNK_SIZE, bytes.length));
        for (int i = 0; i < 200; i++)
        {
            final int offset = random.nextInt(bytes.length);
            final int length = 1 + random.nextInt(bytes.length - offset);
            assertEquals(reference(bytes, offset, length) & 0xFFFF_FFFFL,
                Crc32c.checkedPart(block, bytes.length, chunks, offset, length), offset + "+" + length);
        }
        // one byte of chunk 2 damaged: a part touching chunk 2 fails, one beside it does not
        final int damaged = 2 * Crc32c.CHUNK_SIZE + 777;
        bytes[damaged] ^= 0x5A;
        assertEquals(-1, Crc32c.checkedPart(block, bytes.length, chunks, damaged - 10, 20));
        assertEquals(-1, Crc32c.checkedPart(block, bytes.length, chunks, 2 * Crc32c.CHUNK_SIZE + 1000, 10),
            "the damage is in the chunk, not in the part: still caught");
        assertEquals(-1, Crc32c.checkedPart(block, bytes.length, chunks, 0, bytes.length));
        assertEquals(reference(bytes, 100, 1000) & 0xFFFF_FFFFL,
            Crc32c.checkedPart(block, bytes.length, chunks, 100, 1000));
        assertEquals(reference(bytes, 3 * Crc32c.CHUNK_SIZE, 5000) & 0xFFFF_FFFFL,
            Crc32c.checkedPart(block, bytes.length, chunks, 3 * Crc32c.CHUNK_SIZE, 5000));
    }

    @Test
    void knownCheckValueOfStandardVector()
    {
        // The CRC-32C check value of "123456789" from the Castagnoli/iSCSI catalogue.
        final byte[] bytes = "123456789".getBytes(StandardCharsets.US_ASCII);
        assertEquals(0xE3069283, Crc32c.compute(new UnsafeBuffer(bytes), 0, bytes.length));
    }

    @Test
    void offHeapHeapAndSlicedBuffersAgreeWithJdk()
    {
        final Random random = new Random(42);
        final byte[] bytes = new byte[70_000];
        random.nextBytes(bytes);
        final ByteBuffer direct = ByteBuffer.allocateDirect(bytes.length);
        try
        {
            final UnsafeBuffer offHeap = new UnsafeBuffer(direct);
            offHeap.putBytes(0, bytes);
            final UnsafeBuffer heap = new UnsafeBuffer(bytes);
            final UnsafeBuffer heapSlice = new UnsafeBuffer(bytes, 100, 5_000);
            final ExpandableArrayBuffer expandable = new ExpandableArrayBuffer(bytes.length);
            expandable.putBytes(0, bytes);
            for (final int[] range : new int[][]{{0, 0}, {0, 1}, {3, 17}, {1, 65_536}, {12, 69_988}})
            {
                final int expected = reference(bytes, range[0], range[1]);
                assertEquals(expected, Crc32c.compute(offHeap, range[0], range[1]), "off-heap " + range[0]);
                assertEquals(expected, Crc32c.compute(heap, range[0], range[1]), "heap " + range[0]);
                assertEquals(expected, Crc32c.compute(expandable, range[0], range[1]), "expandable " + range[0]);
            }
            assertEquals(reference(bytes, 110, 300), Crc32c.compute(heapSlice, 10, 300));
            assertEquals(reference(bytes, 110, 300), Crc32c.compute(new UnsafeBuffer(offHeap, 100, 5_000), 10, 300));
        }
        finally
        {
            BufferUtil.free(direct);
        }
    }

    @Test
    void byteBuffersAndRawAddressesAgreeWithJdkWithoutMovingThePosition()
    {
        final byte[] bytes = new byte[10_000];
        new Random(7).nextBytes(bytes);
        final ByteBuffer direct = ByteBuffer.allocateDirect(bytes.length);
        try
        {
            direct.put(bytes).position(123).limit(456);
            final ByteBuffer heap = ByteBuffer.wrap(bytes).position(5);
            final ByteBuffer heapSlice = ByteBuffer.wrap(bytes, 100, 5_000).slice();
            for (final int[] range : new int[][]{{0, 0}, {0, 1}, {3, 17}, {1000, 9000}})
            {
                final int expected = reference(bytes, range[0], range[1]);
                assertEquals(expected, Crc32c.compute(direct, range[0], range[1]), "direct " + range[0]);
                assertEquals(expected, Crc32c.compute(heap, range[0], range[1]), "heap " + range[0]);
                assertEquals(expected, Crc32c.compute(heap.asReadOnlyBuffer(), range[0], range[1]),
                    "read-only " + range[0]);
                assertEquals(expected, Crc32c.compute(BufferUtil.address(direct) + range[0], range[1]),
                    "address " + range[0]);
            }
            assertEquals(reference(bytes, 110, 300), Crc32c.compute(heapSlice, 10, 300), "a slice's own indices");
            assertEquals(123, direct.position(), "position and limit untouched");
            assertEquals(456, direct.limit());
            assertThrows(IndexOutOfBoundsException.class, () -> Crc32c.compute(direct, 9_999, 2));
            assertThrows(IndexOutOfBoundsException.class, () -> Crc32c.compute(direct, 0, -1));
        }
        finally
        {
            BufferUtil.free(direct);
        }
    }

    @Test
    void aFlippedBitChangesTheChecksum()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(4096));
        try
        {
            final int before = Crc32c.compute(buffer, 0, 4096);
            buffer.putByte(2048, (byte) 1);
            assertNotEquals(before, Crc32c.compute(buffer, 0, 4096));
        }
        finally
        {
            BufferUtil.free(buffer);
        }
    }

    @Test
    void rangeOutsideTheBufferIsRejected()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[16]);
        assertThrows(IndexOutOfBoundsException.class, () -> Crc32c.compute(buffer, -1, 4));
        assertThrows(IndexOutOfBoundsException.class, () -> Crc32c.compute(buffer, 0, -1));
        assertThrows(IndexOutOfBoundsException.class, () -> Crc32c.compute(buffer, 10, 7));
        assertThrows(IndexOutOfBoundsException.class, () -> Crc32c.compute(buffer, Integer.MAX_VALUE, 2));
    }
}
