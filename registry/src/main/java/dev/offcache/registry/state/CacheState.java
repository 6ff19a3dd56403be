package dev.offcache.registry.state;

import java.util.List;
import java.util.Set;

/**
 * The cached-dataset registry contract: which keys are claimed or materialized, and where their output lives.
 *
 * <p>Guarantees: one claim per key at a time; a completion promotes only a {@link Pending} entry owned by the
 * completing job; a duplicate completion is idempotent; every other completion is {@link CompletionOutcome#STALE}
 * and changes nothing; abort clears only that job's claim, a conditional invalidation only that job's entry; removals
 * are whole-entry and return what they removed.
 * Bad arguments (null or empty ids, empty or inconsistent locations) throw {@link IllegalArgumentException} before
 * anything changes.
 */
public interface CacheState
{
    /**
     * Reads the entry for a key. A materialized entry naming an executor that is not live is invalidated (reported
     * to the change listener as a removal) and read as a miss.
     *
     * @param key the key.
     * @return the entry, or null when there is none.
     */
    CacheEntry lookup(CacheKey key);

    /**
     * Claims a key for a job unless it is already claimed or materialized (validated like {@link #lookup}).
     *
     * @param key   the key.
     * @param jobId the job that will materialize it.
     * @return {@link BeginOutcome.Claimed}, {@link BeginOutcome.AlreadyPending} or
     * {@link BeginOutcome.AlreadyMaterialized}.
     */
    BeginOutcome beginMaterialization(CacheKey key, String jobId);

    /**
     * Promotes the job's claim to a materialized entry.
     *
     * @param key       the key.
     * @param jobId     the completing job.
     * @param schema    the dataset schema.
     * @param locations the output partitions, all written by {@code jobId}.
     * @return PROMOTED, DUPLICATE or STALE.
     */
    CompletionOutcome completeMaterialization(CacheKey key, String jobId, DatasetSchema schema,
        List<PartitionLocation> locations);

    /**
     * Clears the job's claim on a key, if it holds it.
     *
     * @param key   the key.
     * @param jobId the failed job.
     * @return ABORTED or STALE.
     */
    AbortOutcome abortMaterialization(CacheKey key, String jobId);

    /**
     * Removes one entry, pending or materialized.
     *
     * @param key the key.
     * @return the removed entry (zero or one).
     */
    List<RemovedEntry> invalidate(CacheKey key);

    /**
     * Removes a key's entry only if it is still the given job's (pending or materialized): for a reader that found
     * that materialization broken, so a newer one another action made meanwhile is left alone.
     *
     * @param key   the key.
     * @param jobId the job whose entry may go.
     * @return the removed entry (zero or one).
     */
    List<RemovedEntry> invalidate(CacheKey key, String jobId);

    /**
     * Removes every materialized entry with a partition on the executor.
     *
     * @param executorId the lost executor.
     * @return the removed entries.
     */
    List<RemovedEntry> invalidateExecutor(String executorId);

    /**
     * Removes every entry of a session, pending or materialized.
     *
     * @param sessionId the session.
     * @return the removed entries.
     */
    List<RemovedEntry> removeSession(String sessionId);

    /**
     * The stages that cleanup must keep: every stage of every materialized entry.
     *
     * @return an immutable set.
     */
    Set<StageRef> pinnedStages();
}
