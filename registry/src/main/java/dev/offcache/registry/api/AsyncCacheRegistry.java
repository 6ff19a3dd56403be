package dev.offcache.registry.api;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import dev.offcache.registry.state.AbortOutcome;
import dev.offcache.registry.state.BeginOutcome;
import dev.offcache.registry.state.CacheEntry;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.CompletionOutcome;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.registry.state.RemovedEntry;

/**
 * The cached-dataset registry as a scheduler sees it: the {@link dev.offcache.registry.state.CacheState}
 * operations, asynchronous, plus the action entry points ({@link #acquire}, {@link #awaitMaterialization}). Two
 * fronts implement it over the same state machine: {@code dev.offcache.registry.front.CacheRegistry} in process and
 * {@code dev.offcache.registry.clustered.RegistryClusterClient} (a replicated Aeron Cluster service), so code such
 * as the coordinator runs on either. Futures complete off the caller's thread; arguments that can never be valid
 * throw {@link IllegalArgumentException} at once. The registry owns its memory; {@link #close()} fails what is
 * still in flight with {@link RegistryClosedException}.
 */
public interface AsyncCacheRegistry extends AutoCloseable
{
    /**
     * Reads a key's entry; a materialized entry on a dead executor is invalidated and read as a miss.
     *
     * @param key the key.
     * @return the entry, or a future of null when absent.
     */
    CompletableFuture<CacheEntry> lookup(CacheKey key);

    /**
     * Claims a key for a job unless it is already claimed or materialized.
     *
     * @param key   the key.
     * @param jobId the job.
     * @return the outcome.
     */
    CompletableFuture<BeginOutcome> beginMaterialization(CacheKey key, String jobId);

    /**
     * Promotes a job's claim; releases the key's waiters with the locations.
     *
     * @param key       the key.
     * @param jobId     the completing job.
     * @param schema    the dataset schema.
     * @param locations the output, all written by {@code jobId}.
     * @return PROMOTED, DUPLICATE or STALE.
     */
    CompletableFuture<CompletionOutcome> completeMaterialization(
        CacheKey key, String jobId, DatasetSchema schema, List<PartitionLocation> locations);

    /**
     * Clears a job's claim; releases the key's waiters.
     *
     * @param key   the key.
     * @param jobId the failed job.
     * @return ABORTED or STALE.
     */
    CompletableFuture<AbortOutcome> abortMaterialization(CacheKey key, String jobId);

    /**
     * Removes one entry.
     *
     * @param key the key.
     * @return the removed entry, if any.
     */
    CompletableFuture<List<RemovedEntry>> invalidate(CacheKey key);

    /**
     * Removes a key's entry only if it is still the given job's, in one command (a newer materialization another
     * action made is never dropped); releases the key's waiters when the entry was that job's claim.
     *
     * @param key   the key.
     * @param jobId the job whose entry may go.
     * @return the removed entry, if any.
     */
    CompletableFuture<List<RemovedEntry>> invalidate(CacheKey key, String jobId);

    /**
     * Removes every materialized entry with a partition on the executor.
     *
     * @param executorId the lost executor.
     * @return the removed entries.
     */
    CompletableFuture<List<RemovedEntry>> invalidateExecutor(String executorId);

    /**
     * Removes every entry of a session; releases its waiters.
     *
     * @param sessionId the session.
     * @return the removed entries.
     */
    CompletableFuture<List<RemovedEntry>> removeSession(String sessionId);

    /**
     * A validated hit, a claim for {@code jobId}, or a wait on another job's claim.
     *
     * @param key   the key.
     * @param jobId the job that materializes the key if the caller gets the claim.
     * @return the acquisition.
     */
    CompletableFuture<Acquisition> acquire(CacheKey key, String jobId);

    /**
     * Waits for a key to leave Pending.
     *
     * @param key the key.
     * @return the resolution.
     */
    CompletableFuture<Resolution> awaitMaterialization(CacheKey key);

    /**
     * Runs one eviction sweep.
     *
     * @return the entries it removed.
     */
    CompletableFuture<List<RemovedEntry>> sweep();

    /**
     * A consistent copy of every entry (diagnostics and tests; O(entries)).
     *
     * @return key to entry.
     */
    CompletableFuture<Map<CacheKey, CacheEntry>> entries();

    /**
     * Stops the front; commands still in flight fail with {@link RegistryClosedException}.
     */
    @Override
    void close();
}
