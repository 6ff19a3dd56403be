package dev.offcache.range.engine;

import org.agrona.MutableDirectBuffer;

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
}
