package dev.offcache.range.engine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import dev.offcache.range.origin.ObjectInfo;

/**
 * What the engine remembers about one object: its interned id (the high bits of its block keys) and, once known,
 * its size, and, once someone asked ({@code RangeCache.statAsync}), the origin's time and tag of the version the
 * cache holds. Size and metadata requests are single-flight: concurrent readers share one HEAD.
 */
final class ObjectEntry
{
    final String key;
    final long id;
    volatile long size = -1;
    final AtomicReference<CompletableFuture<Long>> sizeRequest = new AtomicReference<>();
    /** Completed with the size once it is known by any means; made only for callers that wait without a HEAD. */
    final AtomicReference<CompletableFuture<Long>> sizeKnown = new AtomicReference<>();
    /** A cold start for streams of this object once its size is known ({@link SizeProbe#known}), made once. */
    volatile SizeProbe knownProbe;
    volatile ObjectInfo info;
    final AtomicReference<CompletableFuture<ObjectInfo>> statRequest = new AtomicReference<>();

    ObjectEntry(final String key, final long id)
    {
        this.key = key;
        this.id = id;
    }
}
