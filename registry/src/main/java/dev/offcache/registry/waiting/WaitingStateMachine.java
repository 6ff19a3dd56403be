package dev.offcache.registry.waiting;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

import org.agrona.concurrent.EpochClock;

import dev.offcache.registry.api.Resolution;
import dev.offcache.registry.retention.RetentionPolicy;
import dev.offcache.registry.state.AbortOutcome;
import dev.offcache.registry.state.BeginOutcome;
import dev.offcache.registry.state.CacheEntry;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.CacheStateMachine;
import dev.offcache.registry.state.CompletionOutcome;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.Ids;
import dev.offcache.registry.state.LiveExecutors;
import dev.offcache.registry.state.Materialized;
import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.registry.state.Pending;
import dev.offcache.registry.state.RemovedEntry;
import dev.offcache.registry.state.StateChangeListener;

/**
 * The registry's commands as both fronts apply them on their single writer: the {@link CacheStateMachine}'s
 * operations, plus the action entry points ({@link #acquire}, {@link #await}) and the waiters they register on
 * Pending keys. The one place that decides how a waiter ends: when its key is promoted it gets
 * {@link Resolution#ofPromotion}, when the key leaves Pending it is released with the reason of the command that
 * removed it (abort, invalidation, executor loss, session removal or eviction), and {@link #releaseAll} ends every
 * waiter (shutdown).
 *
 * <p>Generic over how a waiter is answered ({@code W}): the in-process front's waiters are futures, the cluster's
 * are a client's {@code (clientId, sequence)}. The {@link Releaser} is told about every ended waiter in the command
 * that ended it; delivering the answer (after the batch is durable, to the client's session) is the front's.
 *
 * <p>Single-threaded, like the state machine: only the writer calls it. Every accepted change reaches the
 * {@code changes} listener (the journal, the front's read view) before any waiter is released.
 *
 * @param <W> how a waiter is identified and answered.
 */
public final class WaitingStateMachine<W> implements StateChangeListener
{
    /**
     * Receives the waiters a command ended.
     *
     * @param <W> how a waiter is identified and answered.
     */
    @FunctionalInterface
    public interface Releaser<W>
    {
        /**
         * Waiters of one key ended with one resolution.
         *
         * @param waiters    the waiters, in registration order; never empty.
         * @param resolution what they get.
         */
        void release(List<W> waiters, Resolution resolution);
    }

    private final CacheStateMachine state;
    private final LiveExecutors liveExecutors;
    private final StateChangeListener changes;
    private final Releaser<W> releaser;
    private final Map<CacheKey, List<W>> waiters = new HashMap<>();
    private Resolution.Reason releaseReason = Resolution.Reason.INVALIDATED;
    private int waiterCount;

    /**
     * A state machine with waiters.
     *
     * @param clock         materialization and activity times.
     * @param liveExecutors the live-executor view (validate-on-read, and what a promotion hands its waiters).
     * @param changes       receives every accepted change, before waiters are released.
     * @param releaser      receives every ended waiter.
     */
    public WaitingStateMachine(
        final EpochClock clock,
        final LiveExecutors liveExecutors,
        final StateChangeListener changes,
        final Releaser<W> releaser)
    {
        this.liveExecutors = Ids.requireNonNull(liveExecutors, "liveExecutors");
        this.changes = Ids.requireNonNull(changes, "changes");
        this.releaser = Ids.requireNonNull(releaser, "releaser");
        this.state = new CacheStateMachine(clock, liveExecutors, this);
    }

    /**
     * The state machine underneath (recovery, snapshots, counters and diagnostics; its commands bypass the
     * waiters, so fronts call the ones here).
     *
     * @return the state machine.
     */
    public CacheStateMachine state()
    {
        return state;
    }

    /**
     * See {@link CacheStateMachine#lookup}.
     *
     * @param key the key.
     * @return the validated entry, or null.
     */
    public CacheEntry lookup(final CacheKey key)
    {
        releaseReason(Resolution.Reason.INVALIDATED);
        return state.lookup(key);
    }

    /**
     * See {@link CacheStateMachine#beginMaterialization}.
     *
     * @param key   the key.
     * @param jobId the job.
     * @return the outcome.
     */
    public BeginOutcome beginMaterialization(final CacheKey key, final String jobId)
    {
        releaseReason(Resolution.Reason.INVALIDATED);
        return state.beginMaterialization(key, jobId);
    }

    /**
     * See {@link CacheStateMachine#completeMaterialization}; a promotion hands the key's waiters the output.
     *
     * @param key       the key.
     * @param jobId     the completing job.
     * @param schema    the schema.
     * @param locations the output.
     * @return the outcome.
     */
    public CompletionOutcome completeMaterialization(
        final CacheKey key, final String jobId, final DatasetSchema schema, final List<PartitionLocation> locations)
    {
        releaseReason(Resolution.Reason.INVALIDATED);
        return state.completeMaterialization(key, jobId, schema, locations);
    }

    /**
     * See {@link CacheStateMachine#abortMaterialization}; releases the key's waiters with
     * {@link Resolution.Reason#ABORTED}.
     *
     * @param key   the key.
     * @param jobId the failed job.
     * @return the outcome.
     */
    public AbortOutcome abortMaterialization(final CacheKey key, final String jobId)
    {
        releaseReason(Resolution.Reason.ABORTED);
        return state.abortMaterialization(key, jobId);
    }

    /**
     * See {@link CacheStateMachine#invalidate(CacheKey)}; releases with {@link Resolution.Reason#INVALIDATED}.
     *
     * @param key the key.
     * @return the removed entry, if any.
     */
    public List<RemovedEntry> invalidate(final CacheKey key)
    {
        releaseReason(Resolution.Reason.INVALIDATED);
        return state.invalidate(key);
    }

    /**
     * See {@link CacheStateMachine#invalidate(CacheKey, String)}; releases with
     * {@link Resolution.Reason#INVALIDATED}.
     *
     * @param key   the key.
     * @param jobId the job whose entry may go.
     * @return the removed entry, if any.
     */
    public List<RemovedEntry> invalidate(final CacheKey key, final String jobId)
    {
        releaseReason(Resolution.Reason.INVALIDATED);
        return state.invalidate(key, jobId);
    }

    /**
     * See {@link CacheStateMachine#invalidateExecutor}; releases with {@link Resolution.Reason#EXECUTOR_LOST}.
     *
     * @param executorId the lost executor.
     * @return the removed entries.
     */
    public List<RemovedEntry> invalidateExecutor(final String executorId)
    {
        releaseReason(Resolution.Reason.EXECUTOR_LOST);
        return state.invalidateExecutor(executorId);
    }

    /**
     * See {@link CacheStateMachine#removeSession}; releases with {@link Resolution.Reason#SESSION_REMOVED}.
     *
     * @param sessionId the session.
     * @return the removed entries.
     */
    public List<RemovedEntry> removeSession(final String sessionId)
    {
        releaseReason(Resolution.Reason.SESSION_REMOVED);
        return state.removeSession(sessionId);
    }

    /**
     * One eviction sweep; releases with {@link Resolution.Reason#SESSION_REMOVED}.
     *
     * @param policy what to remove.
     * @param nowMs  the sweep's time.
     * @return the removed entries.
     */
    public List<RemovedEntry> sweep(final RetentionPolicy policy, final long nowMs)
    {
        releaseReason(Resolution.Reason.SESSION_REMOVED);
        return policy.sweep(state, nowMs);
    }

    /**
     * The action entry point: claims the key for {@code jobId} when it is absent, hits when it is materialized (on
     * live executors: a dead one is invalidated first and the key claimed), and registers {@code waiter} when
     * another job holds the claim, in the same step as reading the key, so no promotion can slip in between.
     *
     * @param key    the key.
     * @param jobId  the job that materializes the key if the caller gets the claim.
     * @param waiter how to answer the caller if it has to wait.
     * @return Claimed, AlreadyMaterialized (a hit), or AlreadyPending (the waiter is registered).
     */
    public BeginOutcome acquire(final CacheKey key, final String jobId, final W waiter)
    {
        final BeginOutcome outcome = beginMaterialization(key, jobId);
        if (outcome instanceof BeginOutcome.AlreadyPending)
        {
            addWaiter(key, waiter);
        }
        return outcome;
    }

    /**
     * Waits for a key to leave Pending: registers {@code waiter} when it is Pending, or resolves at once.
     *
     * @param key    the key.
     * @param waiter how to answer the caller when the key leaves Pending.
     * @return the resolution now (Ready, or Released with {@link Resolution.Reason#NOT_PENDING}), or null when the
     * waiter is registered.
     */
    public Resolution await(final CacheKey key, final W waiter)
    {
        final CacheEntry entry = lookup(key);
        if (entry instanceof Pending)
        {
            addWaiter(key, waiter);
            return null;
        }
        return Resolution.ofSettled(entry);
    }

    /**
     * Ends every waiter with one reason (shutdown).
     *
     * @param reason why.
     */
    public void releaseAll(final Resolution.Reason reason)
    {
        final Resolution resolution = new Resolution.Released(reason);
        for (final List<W> pending : waiters.values())
        {
            releaser.release(pending, resolution);
        }
        waiters.clear();
        waiterCount = 0;
    }

    /**
     * Forgets every waiter without releasing it, handing each to {@code failed} (the front fails them itself).
     *
     * @param failed receives each waiter.
     */
    public void abandonAll(final java.util.function.Consumer<W> failed)
    {
        for (final List<W> pending : waiters.values())
        {
            pending.forEach(failed);
        }
        waiters.clear();
        waiterCount = 0;
    }

    /**
     * Waiters registered and not yet ended.
     *
     * @return the count.
     */
    public int waiterCount()
    {
        return waiterCount;
    }

    /**
     * Visits the waiters of every Pending key (snapshots).
     *
     * @param visitor receives each key and its waiters, in registration order; must not change them.
     */
    public void forEachWaiter(final BiConsumer<CacheKey, List<W>> visitor)
    {
        waiters.forEach(visitor);
    }

    /**
     * Re-registers a waiter from a snapshot.
     *
     * @param key    the Pending key.
     * @param waiter the waiter.
     */
    public void restoreWaiter(final CacheKey key, final W waiter)
    {
        addWaiter(key, waiter);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void onClaimed(final CacheKey key, final Pending entry)
    {
        changes.onClaimed(key, entry);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void onPromoted(final CacheKey key, final Materialized entry)
    {
        changes.onPromoted(key, entry);
        if (!waiters.isEmpty())
        {
            // The entry itself stays even when it names a dead executor: the next read invalidates it, so the state
            // never depends on whether anyone was waiting.
            release(waiters.remove(key), Resolution.ofPromotion(entry, liveExecutors));
        }
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void onRemoved(final CacheKey key, final CacheEntry removed)
    {
        changes.onRemoved(key, removed);
        if (!waiters.isEmpty())
        {
            release(waiters.remove(key), new Resolution.Released(releaseReason));
        }
    }

    /**
     * Sets the reason the next removals release their waiters with. Stored only when it changes: a reference
     * store into this long-lived object pays the GC's card-marking barrier, and nearly every command sets it.
     */
    private void releaseReason(final Resolution.Reason reason)
    {
        if (releaseReason != reason)
        {
            releaseReason = reason;
        }
    }

    private void addWaiter(final CacheKey key, final W waiter)
    {
        waiters.computeIfAbsent(key, k -> new ArrayList<>()).add(waiter);
        waiterCount++;
    }

    private void release(final List<W> pending, final Resolution resolution)
    {
        if (pending != null)
        {
            waiterCount -= pending.size();
            releaser.release(pending, resolution);
        }
    }
}
