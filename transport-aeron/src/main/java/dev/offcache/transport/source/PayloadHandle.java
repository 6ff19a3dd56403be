package dev.offcache.transport.source;

import org.agrona.concurrent.UnsafeBuffer;

import dev.offcache.core.ref.RefCounted;

/**
 * A referenced, readable, off-heap block or partition. The bytes stay valid and unchanged until the last
 * {@link #release()} ({@link RefCounted}: opening takes one reference); the owner of the memory is the
 * {@link PayloadSource} that opened the handle.
 */
public interface PayloadHandle extends RefCounted
{
    /**
     * Returns total length of the block in bytes.
     *
     * @return total length of the block in bytes.
     */
    long length();

    /**
     * Point {@code target} at {@code length} bytes starting at {@code offset}, without copying.
     *
     * @param target the view to re-point.
     * @param offset first byte, 0 &le; offset &le; {@link #length()}.
     * @param length bytes, no more than {@link #contiguousLength(long, int)} allows.
     */
    void wrap(UnsafeBuffer target, long offset, int length);

    /**
     * How many bytes from {@code offset} (up to {@code maxLength}) one {@link #wrap} view can cover. Sources
     * backed by several mappings (for example 1 GiB mappings of a larger file) cut at mapping boundaries.
     *
     * @param offset    first byte.
     * @param maxLength the most the caller wants.
     * @return bytes one view can cover, at least 1 when {@code maxLength > 0} and {@code offset < length()}.
     */
    default int contiguousLength(final long offset, final int maxLength)
    {
        return maxLength;
    }
}
