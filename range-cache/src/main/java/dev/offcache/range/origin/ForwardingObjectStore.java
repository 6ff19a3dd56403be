package dev.offcache.range.origin;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongConsumer;

import dev.offcache.range.store.FetchClass;

/**
 * An origin that passes every call to another origin; a wrapper (the L2 client, a counting or fault-injecting test
 * origin) overrides only the calls it changes, so the pass-through calls are written once. The one read
 * ({@link ObjectStore#read(String, long, ByteBuffer, FetchClass, LongConsumer)}) is forwarded with its fetch class and
 * size consumer; the plain read and the vectored read stay the interface defaults over it, so a wrapper that
 * overrides that one read sees every read. Reads into block buffers are not forwarded (see
 * {@link BlockForwardingObjectStore}).
 * {@link #stat}, {@link #listPage} and {@link #probe} are forwarded (so the real origin's times and tags survive the
 * wrapper): a wrapper that changes what {@link #size} answers overrides {@code stat} too if the two must agree.
 *
 * <p>Memory and ownership: the wrapper owns the origin it forwards to and closes it in {@link #close()}.
 */
public abstract class ForwardingObjectStore implements ObjectStore
{
    private final ObjectStore delegate;

    /**
     * Wraps an origin.
     *
     * @param delegate the origin every call goes to unless overridden; owned by this wrapper.
     */
    protected ForwardingObjectStore(final ObjectStore delegate)
    {
        if (delegate == null)
        {
            throw new IllegalArgumentException("the origin to forward to must not be null");
        }
        this.delegate = delegate;
    }

    /**
     * The origin calls go to.
     *
     * @return the wrapped origin.
     */
    protected final ObjectStore delegate()
    {
        return delegate;
    }

    @Override
    public String namespace()
    {
        return delegate.namespace();
    }

    @Override
    public CompletableFuture<Long> size(final String key)
    {
        return delegate.size(key);
    }

    @Override
    public CompletableFuture<ObjectInfo> stat(final String key)
    {
        return delegate.stat(key);
    }

    @Override
    public CompletableFuture<Integer> read(
        final String key, final long offset, final ByteBuffer destination, final FetchClass fetchClass,
        final LongConsumer objectSize)
    {
        return delegate.read(key, offset, destination, fetchClass, objectSize);
    }

    @Override
    public CompletableFuture<Integer> readIfMatch(
        final String key, final long offset, final ByteBuffer destination, final String ifMatch)
    {
        return delegate.readIfMatch(key, offset, destination, ifMatch);
    }

    @Override
    public CompletableFuture<String> version(final String key)
    {
        return delegate.version(key);
    }

    @Override
    public CompletableFuture<Void> put(final String key, final ByteBuffer source)
    {
        return delegate.put(key, source);
    }

    @Override
    public CompletableFuture<Void> delete(final String key)
    {
        return delegate.delete(key);
    }

    @Override
    public CompletableFuture<List<String>> list(final String prefix)
    {
        return delegate.list(prefix);
    }

    @Override
    public CompletableFuture<ListPage> listPage(final ListPage.Request request)
    {
        return delegate.listPage(request);
    }

    @Override
    public long l2Bytes()
    {
        return delegate.l2Bytes();
    }

    @Override
    public CompletableFuture<Void> probe()
    {
        return delegate.probe();
    }

    @Override
    public void close()
    {
        delegate.close();
    }
}
