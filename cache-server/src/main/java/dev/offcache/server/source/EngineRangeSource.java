package dev.offcache.server.source;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import dev.offcache.range.engine.BlockStream;
import dev.offcache.range.engine.ByteRange;
import dev.offcache.range.engine.RangeCache;
import dev.offcache.range.engine.SizeProbe;
import dev.offcache.range.engine.StreamCredit;
import dev.offcache.range.engine.StreamSink;

/**
 * The HTTP layer's {@link RangeSource} over the range-cache engine ({@link RangeCache}): sizes, response streams and
 * prefetches go straight to the engine, which brings single flight, coalescing and the fetch permits, and, with the
 * tiered store, RAM blocks as views and verified SSD blocks as open files. Holds nothing; the engine is owned by the
 * caller.
 */
public final class EngineRangeSource implements RangeSource
{
    private final RangeCache cache;

    /**
     * Adapts an engine.
     *
     * @param cache the engine (with the tiered store as its store).
     */
    public EngineRangeSource(final RangeCache cache)
    {
        this.cache = cache;
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
    public long sizeNow(final String key)
    {
        return cache.sizeNow(key);
    }

    @Override
    public SizeProbe sizeForStream(final String key, final long position, final long length)
    {
        return cache.sizeForStream(key, position, length);
    }

    @Override
    public BlockStream openStream(
        final String key,
        final long[] starts,
        final long[] lengths,
        final SizeProbe probe,
        final StreamCredit credit,
        final Executor executor,
        final StreamSink sink)
    {
        return cache.openStream(key, starts, lengths, credit, executor, sink, probe);
    }

    @Override
    public CompletableFuture<Void> prefetch(final String key, final long offset, final long length)
    {
        return cache.prefetch(key, List.of(new ByteRange(offset, length)));
    }
}
