package dev.offcache.core.checksum;

import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.UnsafeApi;

/**
 * CRC32C (Castagnoli) of a range of a {@link DirectBuffer}, on or off the heap, without copying it.
 *
 * <p>It runs {@link CRC32C} (hardware-accelerated by the JVM) straight over the bytes: a heap buffer through its
 * array, off-heap memory through a per-thread {@link ByteBuffer} window that is re-pointed at the address for the
 * duration of the call. The window is never handed out and owns no memory; the caller's buffer owns the bytes.
 * Allocation-free after the first call on a thread.
 */
public final class Crc32c
{
    private static final long CAPACITY_FIELD_OFFSET = UnsafeApi.objectFieldOffset(Buffer.class, "capacity");
    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    private Crc32c()
    {
    }

    /**
     * Returns the CRC32C of {@code buffer[offset, offset + length)}.
     *
     * @param buffer bytes to checksum.
     * @param offset start in {@code buffer}.
     * @param length bytes, &ge; 0.
     * @return the CRC32C of {@code buffer[offset, offset + length)}.
     * @throws IndexOutOfBoundsException if the range is outside the buffer.
     */
    public static int compute(final DirectBuffer buffer, final int offset, final int length)
    {
        if (offset < 0 || length < 0 || offset > buffer.capacity() - length)
        {
            throw new IndexOutOfBoundsException(
                "range [offset=" + offset + ", length=" + length + "] is outside buffer of capacity " +
                buffer.capacity());
        }

        final byte[] array = buffer.byteArray();
        if (array != null)
        {
            final CRC32C crc = SCRATCH.get().crc;
            crc.reset();
            crc.update(array, (int) (buffer.addressOffset() - BufferUtil.ARRAY_BASE_OFFSET) + offset, length);
            return (int) crc.getValue();
        }
        return compute(buffer.addressOffset() + offset, length);
    }

    /**
     * Returns the CRC32C of {@code buffer[index, index + length)} (absolute indices: the buffer's position and limit
     * are neither used nor changed), heap or direct, with no duplicate or view made.
     *
     * @param buffer bytes to checksum.
     * @param index  the first byte.
     * @param length bytes, &ge; 0.
     * @return the CRC32C of those bytes.
     * @throws IndexOutOfBoundsException if the range is outside the buffer's capacity.
     */
    public static int compute(final ByteBuffer buffer, final int index, final int length)
    {
        if (index < 0 || length < 0 || index > buffer.capacity() - length)
        {
            throw new IndexOutOfBoundsException(
                "range [index=" + index + ", length=" + length + "] is outside buffer of capacity " +
                buffer.capacity());
        }
        if (buffer.isDirect())
        {
            return compute(BufferUtil.address(buffer) + index, length);
        }
        final CRC32C crc = SCRATCH.get().crc;
        crc.reset();
        if (buffer.hasArray())
        {
            crc.update(buffer.array(), buffer.arrayOffset() + index, length);
        }
        else
        {
            // a read-only heap buffer hides its array: a view is the only way in (no hot path passes one)
            crc.update(buffer.duplicate().limit(index + length).position(index));
        }
        return (int) crc.getValue();
    }

    /**
     * Returns the CRC32C of {@code length} bytes of off-heap memory at {@code address}: for memory that is not an
     * Agrona buffer (a Netty direct buffer's {@code memoryAddress()}), with no wrapper made.
     *
     * @param address the first byte; the caller keeps the memory valid for the call.
     * @param length  bytes, &ge; 0.
     * @return the CRC32C of those bytes.
     */
    public static int compute(final long address, final int length)
    {
        if (length < 0)
        {
            throw new IndexOutOfBoundsException("negative length " + length);
        }
        final Scratch scratch = SCRATCH.get();
        final CRC32C crc = scratch.crc;
        crc.reset();
        if (length > 0)
        {
            final ByteBuffer window = scratch.window;
            UnsafeApi.putLong(window, BufferUtil.BYTE_BUFFER_ADDRESS_FIELD_OFFSET, address);
            UnsafeApi.putInt(window, CAPACITY_FIELD_OFFSET, length);
            window.limit(length).position(0);
            crc.update(window);
            // Leave the window pointing nowhere, so a stale window can never read freed memory.
            window.limit(0);
            UnsafeApi.putInt(window, CAPACITY_FIELD_OFFSET, 0);
            UnsafeApi.putLong(window, BufferUtil.BYTE_BUFFER_ADDRESS_FIELD_OFFSET, scratch.ownAddress);
        }
        return (int) crc.getValue();
    }

    /** log2 of the chunk size at which blocks record a CRC32C per chunk (64 KiB), in RAM slots and SSD block files. */
    public static final int CHUNK_SHIFT = 16;
    /** The chunk size at which blocks record a CRC32C per chunk. */
    public static final int CHUNK_SIZE = 1 << CHUNK_SHIFT;

    /**
     * How many {@link #CHUNK_SIZE} chunks a block of {@code length} bytes has.
     *
     * @param length the block's length, &ge; 0.
     * @return the chunk count.
     */
    public static int chunkCount(final int length)
    {
        return (int) ((length + (long) CHUNK_SIZE - 1) >>> CHUNK_SHIFT);
    }

    /**
     * The CRC32C of each {@link #CHUNK_SIZE} chunk of {@code buffer[offset, offset + length)} (the last one shorter):
     * one pass over the bytes; {@link #combine(int[], int, int)} gives the whole range's from them.
     *
     * @param buffer the bytes.
     * @param offset where they start.
     * @param length how many, &gt; 0.
     * @return one CRC per chunk.
     */
    public static int[] chunks(final DirectBuffer buffer, final int offset, final int length)
    {
        final int[] crcs = new int[chunkCount(length)];
        for (int i = 0; i < crcs.length; i++)
        {
            final int at = i << CHUNK_SHIFT;
            crcs[i] = compute(buffer, offset + at, Math.min(CHUNK_SIZE, length - at));
        }
        return crcs;
    }

    /**
     * The CRC32C of a whole block from its chunks', with no pass over the bytes.
     *
     * @param chunkCrcs the chunks' CRCs, at least one.
     * @param chunkSize the chunk size (the last chunk may be shorter).
     * @param length    the block's length.
     * @return the block's CRC32C.
     */
    public static int combine(final int[] chunkCrcs, final int chunkSize, final int length)
    {
        int crc = chunkCrcs[0];
        for (int i = 1; i < chunkCrcs.length; i++)
        {
            final long at = (long) i * chunkSize;
            crc = combine(crc, chunkCrcs[i], Math.min(chunkSize, length - at));
        }
        return crc;
    }

    /**
     * Checks the {@link #CHUNK_SIZE} chunks that {@code [offset, offset + length)} of a block in memory touches against
     * the CRCs recorded for them, and gives the part's own CRC32C from the same pass (each chunk's bytes around the
     * part are read too, the part's once).
     *
     * @param block       the block's bytes, from index 0.
     * @param blockLength the block's length.
     * @param chunkCrcs   the CRC of each chunk, as {@link #chunks} gave them when the block was filled.
     * @param offset      the part's first byte.
     * @param length      the part's length, &gt; 0.
     * @return the part's CRC32C as an unsigned value, or -1 when a chunk no longer matches.
     */
    public static long checkedPart(
        final DirectBuffer block, final int blockLength, final int[] chunkCrcs, final int offset, final int length)
    {
        final int end = offset + length;
        long part = -1;
        for (int c = offset >>> CHUNK_SHIFT, last = (end - 1) >>> CHUNK_SHIFT; c <= last; c++)
        {
            final int chunkStart = c << CHUNK_SHIFT;
            final int chunkEnd = Math.min(chunkStart + CHUNK_SIZE, blockLength);
            final int from = Math.max(chunkStart, offset);
            final int to = Math.min(chunkEnd, end);
            final int inside = compute(block, from, to - from);
            int crc = inside;
            if (from > chunkStart)
            {
                crc = combine(compute(block, chunkStart, from - chunkStart), crc, to - from);
            }
            if (to < chunkEnd)
            {
                crc = combine(crc, compute(block, to, chunkEnd - to), chunkEnd - to);
            }
            if (crc != chunkCrcs[c])
            {
                return -1;
            }
            part = part < 0 ? inside & 0xFFFF_FFFFL : combine((int) part, inside, to - from) & 0xFFFF_FFFFL;
        }
        return part;
    }

    /**
     * The CRC32C of two byte ranges one after the other, from the CRC32C of each and the second one's length, without
     * the bytes (zlib's {@code crc32_combine}, for the Castagnoli polynomial): per-chunk checksums of a block give the
     * whole block's, and a part's checksum and the checksums of the bytes around it give the chunk's.
     *
     * @param crc1    the CRC32C of the first range.
     * @param crc2    the CRC32C of the second range.
     * @param length2 the second range's length, &ge; 0.
     * @return the CRC32C of the first range followed by the second.
     */
    public static int combine(final int crc1, final int crc2, final long length2)
    {
        if (length2 < 0)
        {
            throw new IllegalArgumentException("negative length " + length2);
        }
        return multiplyModP(xPow8n(length2), crc1) ^ crc2;
    }

    /** The reflected CRC-32C polynomial. */
    private static final int POLY = 0x82F63B78;
    /** x^(2^k) mod p(x) for k = 0..31, reflected. */
    private static final int[] X2N = x2nTable();

    private static int[] x2nTable()
    {
        final int[] table = new int[32];
        int p = 1 << 30; // x^1
        table[0] = p;
        for (int k = 1; k < 32; k++)
        {
            p = multiplyModP(p, p);
            table[k] = p;
        }
        return table;
    }

    /** a(x) * b(x) mod p(x), both reflected. */
    private static int multiplyModP(final int a, final int b)
    {
        int m = 1 << 31;
        int p = 0;
        int bb = b;
        while (true)
        {
            if ((a & m) != 0)
            {
                p ^= bb;
                if ((a & (m - 1)) == 0)
                {
                    return p;
                }
            }
            m >>>= 1;
            bb = (bb & 1) != 0 ? (bb >>> 1) ^ POLY : bb >>> 1;
        }
    }

    /** x^(8n) mod p(x), reflected: the operator that appends n zero bytes. */
    private static int xPow8n(final long n)
    {
        int p = 1 << 31; // x^0
        long rest = n;
        int k = 3;
        while (rest != 0)
        {
            if ((rest & 1) != 0)
            {
                p = multiplyModP(X2N[k & 31], p);
            }
            rest >>>= 1;
            k++;
        }
        return p;
    }

    private static final class Scratch
    {
        final CRC32C crc = new CRC32C();
        final ByteBuffer window = ByteBuffer.allocateDirect(0);
        final long ownAddress = BufferUtil.address(window);
    }
}
