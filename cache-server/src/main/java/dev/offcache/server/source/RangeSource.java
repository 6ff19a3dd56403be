package dev.offcache.server.source;

import java.util.concurrent.CompletableFuture;

import io.netty.buffer.ByteBuf;

/**
 * What the HTTP layer reads from: object sizes and block-aligned chunks of object bytes, asynchronously. The
 * range-cache engine sits behind it (through an adapter); the HTTP layer never talks to tiers or origins itself.
 *
 * <p>Memory: a chunk is a Netty buffer the caller owns (one reference); for a cached block it is a zero-copy view of
 * the block's off-heap slot, and releasing it releases the block reference.
 */
public interface RangeSource
{
    /**
     * The block size: {@link #read(String, long, int)} never spans two blocks.
     *
     * @return bytes.
     */
    int blockSize();

    /**
     * The size of an object.
     *
     * @param key a validated object key.
     * @return the size; fails with {@link ObjectNotFoundException} when the origin has no such object.
     */
    CompletableFuture<Long> size(String key);

    /**
     * Reads a chunk that lies inside one block.
     *
     * @param key    a validated object key.
     * @param offset where the chunk starts.
     * @param length how many bytes, at least 1, not crossing a block boundary or the object's end.
     * @return the chunk (exactly {@code length} readable bytes), owned by the caller.
     */
    CompletableFuture<ByteBuf> read(String key, long offset, int length);

    /**
     * Warms the blocks of a range at prefetch priority (they land on the SSD tier).
     *
     * @param key    a validated object key.
     * @param offset where the range starts.
     * @param length how many bytes.
     * @return completes when the blocks are stored or failed.
     */
    CompletableFuture<Void> prefetch(String key, long offset, long length);
}
