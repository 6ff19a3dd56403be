package dev.offcache.server.source;

import java.util.concurrent.CompletableFuture;

import io.netty.buffer.ByteBuf;
import io.netty.util.ReferenceCounted;

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
     * @return the size; fails with {@link dev.offcache.range.origin.ObjectNotFoundException} when the origin has
     *     no such object.
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
     * Reads a chunk at once if that needs no waiting: a view of a block in memory, or a verified SSD block as a
     * {@link io.netty.channel.FileRegion} to be sent straight from its file. An event loop calls this first and
     * falls back to {@link #read} when it returns {@code null}. Never throws for a bad or missing range (the
     * waiting path reports those). The default has no fast path.
     *
     * @param key    a validated object key.
     * @param offset where the chunk starts.
     * @param length how many bytes, at least 1, not crossing a block boundary.
     * @return a {@link ByteBuf} or {@link io.netty.channel.FileRegion} of exactly {@code length} bytes, owned by the
     *     caller, or {@code null}.
     */
    default ReferenceCounted readNow(final String key, final long offset, final int length)
    {
        return null;
    }

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
