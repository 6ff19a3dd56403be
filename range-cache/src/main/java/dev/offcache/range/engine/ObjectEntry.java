package dev.offcache.range.engine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What the engine remembers about one object: its interned id (the high bits of its block keys) and, once known,
 * its size. The size request is single-flight: concurrent readers of an unknown size share one HEAD.
 */
final class ObjectEntry
{
    final String key;
    final long id;
    volatile long size = -1;
    final AtomicReference<CompletableFuture<Long>> sizeRequest = new AtomicReference<>();

    ObjectEntry(final String key, final long id)
    {
        this.key = key;
        this.id = id;
    }
}
