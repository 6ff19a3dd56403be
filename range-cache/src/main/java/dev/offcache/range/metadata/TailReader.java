package dev.offcache.range.metadata;

import java.io.IOException;

import org.agrona.DirectBuffer;

/**
 * Reads the last bytes of an object: how the metadata cache gets footer bytes. The range-cache engine plugs in its
 * {@code readTail(key, length)}, so footer bytes come through the block cache (L1, then L2, then the origin).
 *
 * @param <K> the object key type.
 */
@FunctionalInterface
public interface TailReader<K>
{
    /**
     * Reads the last {@code length} bytes of an object.
     *
     * @param key    the object.
     * @param length how many bytes from the end.
     * @return a buffer holding exactly those bytes from index 0; the caller may keep it (it is not reused).
     * @throws IOException if the object cannot be read or is shorter than {@code length}.
     */
    DirectBuffer readTail(K key, int length) throws IOException;
}
