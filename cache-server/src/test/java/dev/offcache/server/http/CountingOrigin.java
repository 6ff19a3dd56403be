package dev.offcache.server.http;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

import dev.offcache.range.origin.FileSystemOrigin;
import dev.offcache.range.origin.ForwardingObjectStore;
import dev.offcache.range.origin.OriginException;
import dev.offcache.range.store.FetchClass;

/**
 * The engine's real local-directory origin ({@link FileSystemOrigin}), counting GETs, the bytes they asked for and
 * HEADs, and failing on demand: every GET of a key starting with "fail", or, for keys starting with "failmid", every
 * GET that reaches past the first block; the size of a key starting with "failsize". With {@link #tellsSize} its GET
 * answers carry the object's size, as an S3 or HTTP origin's do (the local origin's own behaviour); without it they
 * say nothing, so the engine asks with a HEAD first.
 */
final class CountingOrigin extends ForwardingObjectStore
{
    final AtomicLong reads = new AtomicLong();
    final AtomicLong bytes = new AtomicLong();
    final AtomicLong heads = new AtomicLong();
    volatile boolean tellsSize;

    CountingOrigin(final Path root)
    {
        super(new FileSystemOrigin(root, 4));
    }

    @Override
    public CompletableFuture<Long> size(final String key)
    {
        heads.incrementAndGet();
        if (key.startsWith("failsize"))
        {
            return CompletableFuture.failedFuture(new OriginException("injected HEAD failure of '" + key + "'"));
        }
        return delegate().size(key);
    }

    @Override
    public CompletableFuture<Integer> read(final String key, final long offset, final ByteBuffer destination)
    {
        return counted(key, offset, destination, null);
    }

    @Override
    public CompletableFuture<Integer> read(
        final String key, final long offset, final ByteBuffer destination, final FetchClass fetchClass,
        final LongConsumer objectSize)
    {
        return counted(key, offset, destination, tellsSize ? objectSize : null);
    }

    @Override
    public boolean readAnswersCarrySize()
    {
        return tellsSize;
    }

    private CompletableFuture<Integer> counted(
        final String key, final long offset, final ByteBuffer destination, final LongConsumer objectSize)
    {
        reads.incrementAndGet();
        bytes.addAndGet(destination.remaining());
        if (key.startsWith("fail") &&
            (!key.startsWith("failmid") || offset + destination.remaining() > ServerHarness.BLOCK))
        {
            return CompletableFuture.failedFuture(new OriginException("injected origin failure of '" + key + "'"));
        }
        return null == objectSize ? delegate().read(key, offset, destination) :
            delegate().read(key, offset, destination, FetchClass.DEMAND, objectSize);
    }
}
