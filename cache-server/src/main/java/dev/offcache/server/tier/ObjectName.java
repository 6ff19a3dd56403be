package dev.offcache.server.tier;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The durable identity of a cached object: {@code (namespace, objectKey)}. The engine's packed block keys carry a
 * process-local interned object id; the SSD tier persists this name instead, so its blocks survive a restart.
 *
 * @param namespace the origin's namespace (bucket, root), may be empty.
 * @param objectKey the object's key inside the namespace, not empty.
 */
public record ObjectName(String namespace, String objectKey)
{
    /** Largest UTF-8 size of namespace plus object key that a block file header can hold beside its chunk CRCs. */
    public static final int MAX_ENCODED_BYTES = BlockFileFormat.HEADER_LENGTH - BlockFileFormat.NAMES_OFFSET -
        BlockFileFormat.MAX_CHUNK_TABLE_BYTES;

    /**
     * Validates the name.
     *
     * @param namespace the namespace.
     * @param objectKey the object key.
     */
    public ObjectName
    {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(objectKey, "objectKey");
        if (objectKey.isEmpty())
        {
            throw new IllegalArgumentException("object key is empty");
        }
        final int encoded = namespace.getBytes(StandardCharsets.UTF_8).length +
            objectKey.getBytes(StandardCharsets.UTF_8).length;
        if (encoded > MAX_ENCODED_BYTES)
        {
            throw new IllegalArgumentException(
                "object name too long: " + encoded + " UTF-8 bytes > " + MAX_ENCODED_BYTES);
        }
    }
}
