package dev.offcache.server.source;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * INTERIM: the minimal origin the server's interim read-through source needs until the range-cache engine's origin
 * SPI (local, S3, HTTP) lands; then the engine owns origins and this goes away.
 */
public interface Origin
{
    /**
     * A durable name for this origin, stored with every SSD block (part of the block's identity).
     *
     * @return the namespace.
     */
    String namespace();

    /**
     * The size of an object.
     *
     * @param key a validated key.
     * @return bytes.
     * @throws IOException when the origin fails; {@link ObjectNotFoundException} when there is no such object.
     */
    long size(String key) throws IOException;

    /**
     * Reads exactly {@code target.remaining()} bytes at a position.
     *
     * @param key      a validated key.
     * @param position where to start.
     * @param target   where the bytes go.
     * @throws IOException when the origin fails or the object is shorter.
     */
    void read(String key, long position, ByteBuffer target) throws IOException;
}
