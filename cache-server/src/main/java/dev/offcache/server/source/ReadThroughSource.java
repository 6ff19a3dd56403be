package dev.offcache.server.source;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

import dev.offcache.core.slab.BlockRef;
import dev.offcache.range.store.BlockKeys;
import dev.offcache.range.store.FetchClass;
import dev.offcache.server.tier.ObjectName;
import dev.offcache.server.tier.TieredBlockStore;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * INTERIM adapter: block-at-a-time read-through from the {@link TieredBlockStore} to an {@link Origin}, so the
 * server runs end to end before the range-cache engine lands. It deliberately has none of the engine's machinery
 * (no single-flight, no coalescing, no fetch budget): concurrent misses of one block each read the origin. It will
 * be replaced by an adapter over the engine's {@code RangeCache}, configured with the same tiered store.
 */
public final class ReadThroughSource implements RangeSource
{
    private final TieredBlockStore store;
    private final Origin origin;
    private final ObjectIdTable ids;
    private final Executor executor;
    private final int blockSize;
    private final ConcurrentHashMap<String, Long> sizes = new ConcurrentHashMap<>();
    private final ThreadLocal<ByteBuffer> staging;

    /**
     * Wires the adapter.
     *
     * @param store    the tiered store (its block size is used).
     * @param origin   the origin.
     * @param ids      the id table the store was given as its {@code ObjectNames}.
     * @param executor runs blocking origin and disk I/O.
     */
    public ReadThroughSource(
        final TieredBlockStore store, final Origin origin, final ObjectIdTable ids, final Executor executor)
    {
        this.store = store;
        this.origin = origin;
        this.ids = ids;
        this.executor = executor;
        this.blockSize = store.blockSize();
        this.staging = ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(blockSize));
    }

    @Override
    public int blockSize()
    {
        return blockSize;
    }

    @Override
    public CompletableFuture<Long> size(final String key)
    {
        final Long known = sizes.get(key);
        if (null != known)
        {
            return CompletableFuture.completedFuture(known);
        }
        return CompletableFuture.supplyAsync(() -> sizeNow(key), executor);
    }

    private long sizeNow(final String key)
    {
        final Long known = sizes.get(key);
        if (null != known)
        {
            return known;
        }
        try
        {
            final long size = origin.size(key);
            sizes.put(key, size);
            return size;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    @Override
    public CompletableFuture<ByteBuf> read(final String key, final long offset, final int length)
    {
        return CompletableFuture.supplyAsync(() -> readNow(key, offset, length), executor);
    }

    private ByteBuf readNow(final String key, final long offset, final int length)
    {
        final long blockIndex = offset / blockSize;
        final int inBlock = (int) (offset - blockIndex * blockSize);
        if (length <= 0 || inBlock + length > blockSize)
        {
            throw new IllegalArgumentException("chunk [" + offset + ", +" + length + ") crosses a block");
        }
        final long blockKey = BlockKeys.pack(ids.idOf(new ObjectName(origin.namespace(), key)), blockIndex);
        BlockRef ref = store.acquire(blockKey);
        if (null == ref)
        {
            final ByteBuffer block = fetch(key, blockIndex);
            store.put(blockKey, new UnsafeBuffer(block), 0, block.limit(), FetchClass.DEMAND);
            ref = store.acquire(blockKey);
            if (null == ref)
            {
                // the store declined it (no free slot): serve this once from a pooled off-heap copy
                final ByteBuf copy = PooledByteBufAllocator.DEFAULT.directBuffer(length, length);
                copy.writeBytes(block.duplicate().position(inBlock).limit(inBlock + length));
                return copy;
            }
        }
        if (inBlock + length > ref.length())
        {
            ref.release();
            throw new CompletionException(new IOException("block " + blockIndex + " of " + key + " is shorter (" +
                ref.length() + ") than the read [" + inBlock + ", +" + length + ")"));
        }
        return BlockByteBuf.wrap(ref, inBlock, length);
    }

    private ByteBuffer fetch(final String key, final long blockIndex)
    {
        final long size = sizeNow(key);
        final long start = blockIndex * blockSize;
        if (start >= size)
        {
            throw new IllegalArgumentException("block " + blockIndex + " is past the end of " + key);
        }
        final int blockLength = (int) Math.min(blockSize, size - start);
        final ByteBuffer block = staging.get();
        block.clear().limit(blockLength);
        try
        {
            origin.read(key, start, block);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        block.flip();
        return block;
    }

    @Override
    public CompletableFuture<Void> prefetch(final String key, final long offset, final long length)
    {
        return CompletableFuture.runAsync(() ->
        {
            final long size = sizeNow(key);
            final long end = Math.min(size, offset + length);
            final long id = ids.idOf(new ObjectName(origin.namespace(), key));
            for (long index = offset / blockSize; index * blockSize < end; index++)
            {
                final long blockKey = BlockKeys.pack(id, index);
                if (!store.holds(blockKey))
                {
                    final ByteBuffer block = fetch(key, index);
                    store.put(blockKey, new UnsafeBuffer(block), 0, block.limit(), FetchClass.PREFETCH);
                }
            }
        }, executor);
    }
}
