package dev.offcache.range.origin;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongConsumer;

import dev.offcache.range.store.FetchClass;

/**
 * A {@link ForwardingObjectStore} that also passes on reads into block buffers: {@link #readsBlocks()},
 * {@link #readBlocks} and {@link #readAnswersCarrySize()} are the wrapped origin's, so a wrapper that delays, counts or
 * holds GETs (and overrides {@code readBlocks} to do so around the delegate's) writes that forwarding once. Not for a
 * wrapper that changes what a read returns without overriding {@code readBlocks}: its block reads would bypass it.
 *
 * <p>Memory and ownership: as {@link ForwardingObjectStore}, it owns the wrapped origin.
 */
public abstract class BlockForwardingObjectStore extends ForwardingObjectStore
{
    /**
     * Wraps an origin.
     *
     * @param delegate the origin every call goes to unless overridden; owned by this wrapper.
     */
    protected BlockForwardingObjectStore(final ObjectStore delegate)
    {
        super(delegate);
    }

    @Override
    public boolean readAnswersCarrySize()
    {
        return delegate().readAnswersCarrySize();
    }

    @Override
    public boolean readsBlocks()
    {
        return delegate().readsBlocks();
    }

    @Override
    public CompletableFuture<Integer> readBlocks(
        final String key, final long offset, final ByteBuffer[] destinations, final FetchClass fetchClass,
        final LongConsumer objectSize, final BlockProgress progress)
    {
        return delegate().readBlocks(key, offset, destinations, fetchClass, objectSize, progress);
    }
}
