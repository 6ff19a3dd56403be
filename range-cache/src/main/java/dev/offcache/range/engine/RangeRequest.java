package dev.offcache.range.engine;

import java.nio.ByteBuffer;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * One range of a vectored read: {@code length} bytes from {@code position} of the object, copied to
 * {@code destination} at {@code destinationOffset}. The caller owns the destination.
 *
 * @param position          the first byte of the object.
 * @param length            bytes to read.
 * @param destination       where they go.
 * @param destinationOffset where in the destination.
 */
public record RangeRequest(long position, int length, MutableDirectBuffer destination, int destinationOffset)
{
    /**
     * A range read into a {@code byte[]}, for callers that use no Agrona type.
     *
     * @param position          the first byte of the object.
     * @param destination       where the bytes go.
     * @param destinationOffset where in the destination.
     * @param length            bytes to read.
     * @return the request.
     */
    public static RangeRequest of(
        final long position, final byte[] destination, final int destinationOffset, final int length)
    {
        if (destination == null)
        {
            throw new IllegalArgumentException("destination array is null");
        }
        return new RangeRequest(position, length, new UnsafeBuffer(destination), destinationOffset);
    }

    /**
     * A range read into a {@link ByteBuffer} (heap or direct): {@code destination.remaining()} bytes, written from
     * its position on; the buffer's position is not moved (several ranges may share one buffer).
     *
     * @param position    the first byte of the object.
     * @param destination where the bytes go.
     * @return the request.
     */
    public static RangeRequest of(final long position, final ByteBuffer destination)
    {
        if (destination == null)
        {
            throw new IllegalArgumentException("destination buffer is null");
        }
        if (destination.isReadOnly())
        {
            throw new IllegalArgumentException("destination buffer is read-only");
        }
        return new RangeRequest(position, destination.remaining(), new UnsafeBuffer(destination),
            destination.position());
    }
}
