package dev.offcache.range.metadata;

import java.io.IOException;

import org.agrona.MutableDirectBuffer;

/**
 * Reads the last bytes of an object into a caller's buffer: how the metadata cache gets footer bytes. Its shape is
 * the range-cache engine's {@code readTail(key, destination, offset, length)}, so {@code rangeCache::readTail} plugs
 * in and footer bytes come through the block cache (L1, then L2, then the origin).
 *
 * @param <K> the object key type.
 */
@FunctionalInterface
public interface TailReader<K>
{
    /**
     * Reads the last {@code length} bytes of an object, or the whole object when it is shorter.
     *
     * @param key               the object.
     * @param destination       where the bytes go.
     * @param destinationOffset where in the destination.
     * @param length            bytes wanted from the end.
     * @return the bytes read: {@code length}, or fewer when the object is smaller.
     * @throws IOException if the object cannot be read.
     */
    int readTail(K key, MutableDirectBuffer destination, int destinationOffset, int length) throws IOException;
}
