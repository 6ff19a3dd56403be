package dev.offcache.dataset.cluster;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import dev.offcache.registry.api.Acquisition;
import dev.offcache.registry.api.AsyncCacheRegistry;
import dev.offcache.registry.api.Resolution;
import dev.offcache.registry.state.AbortOutcome;
import dev.offcache.registry.state.BeginOutcome;
import dev.offcache.registry.state.CacheEntry;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.CompletionOutcome;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.registry.state.RemovedEntry;

/**
 * The coordinator's view of a registry, with a hook that runs once just before the next removal of one key
 * ({@code invalidate}, conditional or not) reaches the registry: another action's commands landing between a
 * reader's decision to drop a broken materialization and that removal. Everything else is the registry's.
 */
final class InterleavingRegistry implements AsyncCacheRegistry
{
    private final AsyncCacheRegistry registry;
    private final AtomicReference<Runnable> beforeNextRemoval = new AtomicReference<>();

    InterleavingRegistry(final AsyncCacheRegistry registry)
    {
        this.registry = registry;
    }

    /**
     * Runs {@code interleaved}, once, before the next key removal is passed on: on a thread of its own (the caller
     * may be a registry continuation, which must not block), the removal waiting for it.
     */
    void beforeNextRemoval(final Runnable interleaved)
    {
        beforeNextRemoval.set(interleaved);
    }

    private CompletableFuture<Void> interleave()
    {
        final Runnable interleaved = beforeNextRemoval.getAndSet(null);
        if (interleaved == null)
        {
            return CompletableFuture.completedFuture(null);
        }
        return CompletableFuture.runAsync(interleaved, runnable ->
        {
            final Thread thread = new Thread(runnable, "interleaved-action");
            thread.setDaemon(true);
            thread.start();
        });
    }

    public CompletableFuture<List<RemovedEntry>> invalidate(final CacheKey key)
    {
        return interleave().thenCompose(ignored -> registry.invalidate(key));
    }

    public CompletableFuture<List<RemovedEntry>> invalidate(final CacheKey key, final String jobId)
    {
        return interleave().thenCompose(ignored -> registry.invalidate(key, jobId));
    }

    public CompletableFuture<CacheEntry> lookup(final CacheKey key)
    {
        return registry.lookup(key);
    }

    public CompletableFuture<BeginOutcome> beginMaterialization(final CacheKey key, final String jobId)
    {
        return registry.beginMaterialization(key, jobId);
    }

    public CompletableFuture<CompletionOutcome> completeMaterialization(
        final CacheKey key, final String jobId, final DatasetSchema schema, final List<PartitionLocation> locations)
    {
        return registry.completeMaterialization(key, jobId, schema, locations);
    }

    public CompletableFuture<AbortOutcome> abortMaterialization(final CacheKey key, final String jobId)
    {
        return registry.abortMaterialization(key, jobId);
    }

    public CompletableFuture<List<RemovedEntry>> invalidateExecutor(final String executorId)
    {
        return registry.invalidateExecutor(executorId);
    }

    public CompletableFuture<List<RemovedEntry>> removeSession(final String sessionId)
    {
        return registry.removeSession(sessionId);
    }

    public CompletableFuture<Acquisition> acquire(final CacheKey key, final String jobId)
    {
        return registry.acquire(key, jobId);
    }

    public CompletableFuture<Resolution> awaitMaterialization(final CacheKey key)
    {
        return registry.awaitMaterialization(key);
    }

    public CompletableFuture<List<RemovedEntry>> sweep()
    {
        return registry.sweep();
    }

    public CompletableFuture<Map<CacheKey, CacheEntry>> entries()
    {
        return registry.entries();
    }

    public void close()
    {
        // the registry belongs to the cluster
    }
}
