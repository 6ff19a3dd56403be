package dev.offcache.range.engine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import dev.offcache.core.async.Futures;
import dev.offcache.range.metrics.RangeMetrics;
import dev.offcache.range.origin.ObjectInfo;
import dev.offcache.range.origin.ObjectKeys;
import dev.offcache.range.origin.ObjectStore;
import dev.offcache.range.origin.OriginException;
import dev.offcache.range.origin.OriginTimeoutException;
import dev.offcache.range.store.BlockKeys;

/**
 * Interns the object keys of one origin to object ids and remembers their sizes, bounded to {@code maxObjects}.
 *
 * <p>Ids come from one process-wide sequence and are never reused, so two origins (namespaces), or an entry that
 * was forgotten and interned again, can never address each other's blocks in a shared store; blocks of a forgotten
 * id simply age out of the store. Sizes above 2^48 are refused as implausible and never remembered, nor are
 * failures: the next read asks the origin again.
 *
 * <p>A reverse index (id → entry) lets a store that persists blocks name them durably by key: it holds exactly the
 * ids whose entries are in the directory, kept in step with the bounded map's eviction (a synchronous eviction
 * listener) and with explicit removals, so a forgotten id resolves to nothing, never to another key.
 */
final class ObjectDirectory
{
    /** Largest plausible object size. */
    static final long MAX_OBJECT_SIZE = 1L << 48;
    private static final AtomicLong NEXT_ID = new AtomicLong();

    private final ObjectStore origin;
    private final RangeMetrics metrics;
    private final long timeoutMs;
    private final Cache<String, ObjectEntry> entries;
    private final ConcurrentHashMap<Long, ObjectEntry> byId = new ConcurrentHashMap<>();
    private final Function<String, ObjectEntry> newEntry = (key) ->
    {
        final ObjectEntry entry = new ObjectEntry(key, nextId());
        byId.put(entry.id, entry);
        return entry;
    };

    ObjectDirectory(final ObjectStore origin, final RangeMetrics metrics, final int maxObjects, final long timeoutMs)
    {
        this.origin = origin;
        this.metrics = metrics;
        this.timeoutMs = timeoutMs;
        this.entries = Caffeine.newBuilder()
            .maximumSize(maxObjects)
            .<String, ObjectEntry>evictionListener((key, entry, cause) ->
            {
                if (null != entry)
                {
                    byId.remove(entry.id, entry);
                }
            })
            .build();
    }

    /**
     * The entry of a key, interning it (after validation) the first time.
     */
    ObjectEntry entry(final String key)
    {
        if (key == null)
        {
            throw new IllegalArgumentException("object key is null");
        }
        final ObjectEntry entry = entries.getIfPresent(key);
        if (entry != null)
        {
            return entry;
        }
        ObjectKeys.validate(key);
        return entries.get(key, newEntry);
    }

    /**
     * The object's size: known, or one HEAD shared by every concurrent caller. Each caller gets a future of its own,
     * so a caller that cancels it (or is interrupted while waiting on it) only stops listening: the shared HEAD
     * carries on for the others, and for readers that arrive while it is pending.
     */
    CompletableFuture<Long> size(final ObjectEntry entry)
    {
        final long known = entry.size;
        if (known >= 0)
        {
            return CompletableFuture.completedFuture(known);
        }
        return forCaller(sharedSize(entry));
    }

    private CompletableFuture<Long> sharedSize(final ObjectEntry entry)
    {
        final CompletableFuture<Long> inFlight = entry.sizeRequest.get();
        if (inFlight != null)
        {
            return inFlight;
        }
        final CompletableFuture<Long> request = new CompletableFuture<>();
        if (!entry.sizeRequest.compareAndSet(null, request))
        {
            final CompletableFuture<Long> other = entry.sizeRequest.get();
            if (other != null)
            {
                return other;
            }
            final long known = entry.size;
            return known >= 0 ? CompletableFuture.completedFuture(known) : sharedSize(entry);
        }
        metrics.originHead();
        final CompletableFuture<Long> head = Futures.call(() -> origin.size(entry.key));
        head.orTimeout(timeoutMs, TimeUnit.MILLISECONDS).whenComplete((size, error) ->
        {
            if (error == null && (size == null || size < 0 || size > MAX_OBJECT_SIZE))
            {
                sizeFailed(entry, request, new OriginException(
                    "implausible size " + size + " of '" + entry.key + "' (limit 2^48 bytes)"));
            }
            else if (error != null)
            {
                sizeFailed(entry, request, unwrap(error, entry.key));
            }
            else
            {
                publish(entry, size);
                entry.sizeRequest.set(null);
                request.complete(size);
            }
        });
        return request;
    }

    private static CompletableFuture<Long> forCaller(final CompletableFuture<Long> shared)
    {
        final CompletableFuture<Long> mine = new CompletableFuture<>();
        // The shared future is completed with the origin's own exception; pass that instance on, unwrapped.
        shared.whenComplete((size, error) ->
        {
            if (error != null)
            {
                mine.completeExceptionally(error);
            }
            else
            {
                mine.complete(size);
            }
        });
        return mine;
    }

    /**
     * The object's size, time and tag: remembered, or one origin {@link ObjectStore#stat} shared by every concurrent
     * caller, whose size is then the entry's size too. When the entry already knew a different size (from an earlier
     * HEAD, or from the SSD tier's records), the object was rewritten behind the cache: the entry is forgotten, so
     * the key gets a new id and the new version is what is described and read from then on.
     *
     * @return the metadata; fails as a HEAD does.
     */
    CompletableFuture<ObjectInfo> stat(final ObjectEntry entry)
    {
        final ObjectInfo known = entry.info;
        if (null != known)
        {
            return CompletableFuture.completedFuture(known);
        }
        final CompletableFuture<ObjectInfo> inFlight = entry.statRequest.get();
        if (null != inFlight)
        {
            return inFlight.thenApply((info) -> info);
        }
        final CompletableFuture<ObjectInfo> request = new CompletableFuture<>();
        if (!entry.statRequest.compareAndSet(null, request))
        {
            return stat(entry);
        }
        metrics.originHead();
        final CompletableFuture<ObjectInfo> head = Futures.call(() -> origin.stat(entry.key));
        head.orTimeout(timeoutMs, TimeUnit.MILLISECONDS).whenComplete((info, error) ->
        {
            entry.statRequest.set(null);
            if (null != error || null == info || info.size() > MAX_OBJECT_SIZE || !entry.key.equals(info.key()))
            {
                metrics.originError();
                if (entry.size < 0 && entries.asMap().remove(entry.key, entry))
                {
                    // as a failed size HEAD does: nothing known, so the id is not kept
                    byId.remove(entry.id, entry);
                }
                request.completeExceptionally(null != error ? unwrap(error, entry.key) : new OriginException(
                    "implausible answer " + info + " to a HEAD of '" + entry.key + "'"));
                return;
            }
            final long size = entry.size;
            if (size >= 0 && size != info.size())
            {
                invalidate(entry.key);
                final ObjectEntry fresh = entry(entry.key);
                remember(fresh, info.size());
                fresh.info = info;
            }
            else
            {
                if (size < 0)
                {
                    publish(entry, info.size());
                }
                entry.info = info;
            }
            request.complete(info);
        });
        return request.thenApply((info) -> info);
    }

    /**
     * Records a size known from elsewhere, unless one is known already.
     */
    void remember(final ObjectEntry entry, final long size)
    {
        if (size < 0 || size > MAX_OBJECT_SIZE)
        {
            throw new IllegalArgumentException("implausible size " + size + " of '" + entry.key + "'");
        }
        if (entry.size < 0)
        {
            publish(entry, size);
        }
    }

    /**
     * Completes once the object's size is known, by whatever means (a HEAD, a stat, a GET's answer, a record): for a
     * caller that started the fetch that will tell it ({@link SizeProbe}) rather than a HEAD. Never fails; the caller
     * watches its own fetch for failures. Shared by every such caller of the entry.
     */
    CompletableFuture<Long> sizeKnown(final ObjectEntry entry)
    {
        CompletableFuture<Long> known = entry.sizeKnown.get();
        if (known == null)
        {
            final CompletableFuture<Long> fresh = new CompletableFuture<>();
            known = entry.sizeKnown.compareAndSet(null, fresh) ? fresh : entry.sizeKnown.get();
        }
        // after publishing the future: a size written before it was visible is seen here, one written after
        // completes it in publish
        final long size = entry.size;
        if (size >= 0)
        {
            known.complete(size);
        }
        return known;
    }

    /** Sets the entry's size (once: callers check it is unknown) and wakes those waiting for it. */
    private static void publish(final ObjectEntry entry, final long size)
    {
        entry.size = size;
        final CompletableFuture<Long> known = entry.sizeKnown.get();
        if (known != null)
        {
            known.complete(size);
        }
    }

    /**
     * Forgets a key (after a put or delete through the cache), so the next read gets a new id and a new size.
     */
    void invalidate(final String key)
    {
        final ObjectEntry removed = entries.asMap().remove(key);
        if (null != removed)
        {
            byId.remove(removed.id, removed);
        }
    }

    /**
     * The key of an id this directory holds.
     *
     * @param objectId an interned id.
     * @return the key, or {@code null} when the id is not (or no longer) interned here.
     */
    String keyOf(final long objectId)
    {
        final ObjectEntry entry = byId.get(objectId);
        return null != entry ? entry.key : null;
    }

    /**
     * Ids in the reverse index, for tests: equals the directory's size once its maintenance has run.
     *
     * @return the count.
     */
    int reverseIndexSize()
    {
        return byId.size();
    }

    void cleanUp()
    {
        entries.cleanUp();
    }

    long estimatedSize()
    {
        return entries.estimatedSize();
    }

    private void sizeFailed(final ObjectEntry entry, final CompletableFuture<Long> request, final Throwable cause)
    {
        metrics.originError();
        entry.sizeRequest.set(null);
        if (entries.asMap().remove(entry.key, entry))
        {
            byId.remove(entry.id, entry);
        }
        request.completeExceptionally(cause);
    }

    private Throwable unwrap(final Throwable error, final String key)
    {
        Throwable cause = error;
        while (cause instanceof CompletionException && cause.getCause() != null)
        {
            cause = cause.getCause();
        }
        if (cause instanceof TimeoutException)
        {
            return new OriginTimeoutException("HEAD of '" + key + "'", timeoutMs);
        }
        if (cause instanceof RuntimeException)
        {
            return cause;
        }
        return new OriginException("HEAD of '" + key + "' failed", cause);
    }

    private static long nextId()
    {
        final long id = NEXT_ID.getAndIncrement();
        if (id >= BlockKeys.MAX_OBJECT_ID)
        {
            throw new IllegalStateException("object ids exhausted (" + BlockKeys.MAX_OBJECT_ID + " objects interned)");
        }
        return id;
    }
}
