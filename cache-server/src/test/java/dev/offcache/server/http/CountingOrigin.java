package dev.offcache.server.http;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import dev.offcache.range.origin.FileSystemOrigin;
import dev.offcache.range.origin.ForwardingObjectStore;
import dev.offcache.range.origin.OriginException;

/**
 * The engine's real local-directory origin ({@link FileSystemOrigin}), counting GETs and the bytes they asked for,
 * and failing on demand: every GET of a key starting with "fail", or, for keys starting with "failmid", every GET
 * that reaches past the first block; the size of a key starting with "failsize".
 */
final class CountingOrigin extends ForwardingObjectStore
{
    final AtomicLong reads = new AtomicLong();
    final AtomicLong bytes = new AtomicLong();

    CountingOrigin(final Path root)
    {
        super(new FileSystemOrigin(root, 4));
    }

    @Override
    public CompletableFuture<Long> size(final String key)
    {
        if (key.startsWith("failsize"))
        {
            return CompletableFuture.failedFuture(new OriginException("injected HEAD failure of '" + key + "'"));
        }
        return delegate().size(key);
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
        return delegate().read(key, offset, destination);
    }
}
