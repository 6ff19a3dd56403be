package dev.offcache.server.source;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import dev.offcache.core.slab.BlockRef;
import dev.offcache.range.engine.ByteRange;
import dev.offcache.range.engine.RangeCache;
import dev.offcache.range.store.BlockKeys;
import dev.offcache.server.tier.SsdTier;
import dev.offcache.server.tier.TieredBlockStore;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.DefaultFileRegion;
import io.netty.util.ReferenceCounted;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The HTTP layer's {@link RangeSource} over the range-cache engine ({@link RangeCache}): single flight, coalescing
 * and the fetch budget come from the engine. A chunk is a zero-copy view of the engine's cached block
 * ({@link RangeCache#readView}); when the store did not keep the block, the chunk is read with one off-heap copy
 * into a pooled Netty buffer. {@code readView} waits for a missing block, so it runs on {@code executor}, never
 * on an event loop; {@link #readNow} answers on the event loop itself when the block is in RAM, or, with a
 * {@link TieredBlockStore}, when it is a verified SSD block (sent from its file). The cache is owned by the
 * caller.
 */
public final class EngineRangeSource implements RangeSource
{
    private final RangeCache cache;
    private final Executor executor;
    private final TieredBlockStore tiers;

    /**
     * Adapts an engine.
     *
     * @param cache    the engine (with the tiered store as its store).
     * @param executor runs reads that may wait for the origin.
     */
    public EngineRangeSource(final RangeCache cache, final Executor executor)
    {
        this.cache = cache;
        this.executor = executor;
        this.tiers = cache.store() instanceof TieredBlockStore tiered ? tiered : null;
    }

    @Override
    public int blockSize()
    {
        return cache.blockSize();
    }

    @Override
    public CompletableFuture<Long> size(final String key)
    {
        return cache.sizeAsync(key);
    }

    @Override
    public CompletableFuture<ByteBuf> read(final String key, final long offset, final int length)
    {
        return CompletableFuture.supplyAsync(() -> readWaiting(key, offset, length), executor);
    }

    @Override
    public ReferenceCounted readNow(final String key, final long offset, final int length)
    {
        final int inBlock = (int) (offset & (cache.blockSize() - 1));
        final BlockRef ref = cache.tryReadView(key, offset, length);
        if (null != ref)
        {
            return BlockByteBuf.wrap(ref, inBlock, length);
        }
        if (null == tiers)
        {
            return null;
        }
        final long blockKey = cache.blockKeyNow(key, offset, length);
        if (blockKey < 0)
        {
            return null;
        }
        final int blockLength = cache.blockLengthOf(BlockKeys.blockIndex(blockKey), cache.sizeNow(key));
        final SsdTier.OpenBlock file = tiers.openOnSsd(blockKey, blockLength);
        if (null == file)
        {
            return null;
        }
        // DefaultFileRegion closes the channel when released; sendfile where the transport has it
        return new DefaultFileRegion(file.channel(), file.dataPosition() + inBlock, length);
    }

    private ByteBuf readWaiting(final String key, final long offset, final int length)
    {
        final BlockRef ref = cache.readView(key, offset, length);
        if (null != ref)
        {
            return BlockByteBuf.wrap(ref, (int) (offset & (cache.blockSize() - 1)), length);
        }
        final ByteBuf copy = PooledByteBufAllocator.DEFAULT.directBuffer(length, length);
        try
        {
            cache.read(key, offset, new UnsafeBuffer(copy.memoryAddress(), length), 0, length);
            copy.writerIndex(length);
            return copy;
        }
        catch (final RuntimeException ex)
        {
            copy.release();
            throw ex;
        }
    }

    @Override
    public CompletableFuture<Void> prefetch(final String key, final long offset, final long length)
    {
        return cache.prefetch(key, List.of(new ByteRange(offset, length)));
    }
}
