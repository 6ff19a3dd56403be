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

        final Scratch scratch = SCRATCH.get();
        final CRC32C crc = scratch.crc;
        crc.reset();
        final byte[] array = buffer.byteArray();
        if (array != null)
        {
            crc.update(array, (int) (buffer.addressOffset() - BufferUtil.ARRAY_BASE_OFFSET) + offset, length);
        }
        else if (length > 0)
        {
            final ByteBuffer window = scratch.window;
            UnsafeApi.putLong(window, BufferUtil.BYTE_BUFFER_ADDRESS_FIELD_OFFSET, buffer.addressOffset() + offset);
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

    private static final class Scratch
    {
        final CRC32C crc = new CRC32C();
        final ByteBuffer window = ByteBuffer.allocateDirect(0);
        final long ownAddress = BufferUtil.address(window);
    }
}
