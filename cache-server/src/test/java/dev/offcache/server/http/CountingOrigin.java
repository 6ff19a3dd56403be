package dev.offcache.server.http;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import dev.offcache.range.origin.FileSystemOrigin;
import dev.offcache.range.origin.ObjectStore;
import dev.offcache.range.origin.OriginException;

/**
 * The engine's real local-directory origin ({@link FileSystemOrigin}), counting GETs and the bytes they asked for,
 * and failing on demand: every GET of a key starting with "fail", or, for keys starting with "failmid", every GET
 * that reaches past the first block.
 */
final class CountingOrigin implements ObjectStore
{
    private final FileSystemOrigin delegate;
    final AtomicLong reads = new AtomicLong();
    final AtomicLong bytes = new AtomicLong();

    CountingOrigin(final Path root)
    {
        this.delegate = new FileSystemOrigin(root, 4);
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
    public CompletableFuture<Integer> read(final String key, final long offset, final ByteBuffer destination)
    {
        reads.incrementAndGet();
        bytes.addAndGet(destination.remaining());
        if (key.startsWith("fail") &&
            (!key.startsWith("failmid") || offset + destination.remaining() > ServerHarness.BLOCK))
        {
            return CompletableFuture.failedFuture(new OriginException("injected origin failure of '" + key + "'"));
        }
        return delegate.read(key, offset, destination);
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
    public void close()
    {
        delegate.close();
    }
}
