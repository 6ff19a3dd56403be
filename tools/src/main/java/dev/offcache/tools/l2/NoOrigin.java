package dev.offcache.tools.l2;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongConsumer;

import dev.offcache.range.origin.ObjectStore;
import dev.offcache.range.origin.OriginException;
import dev.offcache.range.store.FetchClass;

/**
 * The origin behind {@code offcache-l2}'s client: every call fails, so a read L2 did not serve ends as an
 * error instead of reading the real origin. Stateless; closing it does nothing.
 */
final class NoOrigin implements ObjectStore
{
    @Override
    public String namespace()
    {
        return "offcache-l2-cli";
    }

    @Override
    public CompletableFuture<Long> size(final String key)
    {
        return refuse(key);
    }

    @Override
    public CompletableFuture<Integer> read(
        final String key, final long offset, final ByteBuffer destination, final FetchClass fetchClass,
        final LongConsumer objectSize)
    {
        return refuse(key);
    }

    @Override
    public CompletableFuture<Integer> readIfMatch(
        final String key, final long offset, final ByteBuffer destination, final String ifMatch)
    {
        return refuse(key);
    }

    @Override
    public CompletableFuture<String> version(final String key)
    {
        return refuse(key);
    }

    @Override
    public CompletableFuture<Void> put(final String key, final ByteBuffer source)
    {
        return refuse(key);
    }

    @Override
    public CompletableFuture<Void> delete(final String key)
    {
        return refuse(key);
    }

    @Override
    public CompletableFuture<List<String>> list(final String prefix)
    {
        return refuse(prefix);
    }

    @Override
    public void close()
    {
    }

    private static <T> CompletableFuture<T> refuse(final String key)
    {
        return CompletableFuture.failedFuture(new OriginException(
            "offcache-l2 reads only from the L2 servers; L2 did not serve '" + key + "'"));
    }
}
