package dev.offcache.server.source;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import dev.offcache.core.slab.BlockRef;
import dev.offcache.range.engine.ByteRange;
import dev.offcache.range.engine.RangeCache;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The HTTP layer's {@link RangeSource} over the range-cache engine ({@link RangeCache}): single flight, coalescing
 * and the fetch budget come from the engine. A chunk is a zero-copy view of the engine's cached block
 * ({@link RangeCache#readView}); when the store did not keep the block, the chunk is read with one off-heap copy
 * into a pooled Netty buffer. {@code readView} waits for a missing block, so it runs on {@code executor}, never
 * on an event loop. The cache is owned by the caller.
 */
public final class EngineRangeSource implements RangeSource
{
    private final RangeCache cache;
    private final Executor executor;

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
        return CompletableFuture.supplyAsync(() -> readNow(key, offset, length), executor);
    }

    private ByteBuf readNow(final String key, final long offset, final int length)
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
