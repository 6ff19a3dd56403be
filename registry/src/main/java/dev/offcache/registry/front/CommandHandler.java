package dev.offcache.registry.front;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import com.lmax.disruptor.EventHandler;
import org.agrona.concurrent.EpochClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.offcache.registry.eviction.EvictionPolicy;
import dev.offcache.registry.journal.ChangeLog;
import dev.offcache.registry.metrics.RegistryCounters;
import dev.offcache.registry.state.BeginOutcome;
import dev.offcache.registry.state.CacheEntry;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.CacheStateMachine;
import dev.offcache.registry.state.LiveExecutors;
import dev.offcache.registry.state.Materialized;
import dev.offcache.registry.state.Pending;
import dev.offcache.registry.state.RemovedEntry;
import dev.offcache.registry.state.StateChangeListener;

/**
 * The single consumer of the ring: applies each command to the state machine in ring order, journals its changes,
 * and at the end of each batch forces the journal once, publishes the pin snapshot, hands removed entries to the
 * removal listener and only then completes the batch's futures. Everything here runs on the registry thread.
 */
final class CommandHandler implements EventHandler<RegistryCommand>, StateChangeListener
{
    private static final Logger LOG = LoggerFactory.getLogger(CommandHandler.class);

    private final CacheStateMachine state;
    private final ChangeLog changeLog;
    private final LiveExecutors liveExecutors;
    private final RemovalListener removalListener;
    private final EvictionPolicy evictionPolicy;
    private final EpochClock clock;
    private final CacheRegistry registry;
    private final RegistryCounters counters;
    private final Consumer<CompletableFuture<?>> applyObserver;

    private final Map<CacheKey, List<CompletableFuture<Resolution>>> waiters = new HashMap<>();
    private final ArrayList<CompletableFuture<?>> ackFutures = new ArrayList<>();
    private final ArrayList<Object> ackValues = new ArrayList<>();
    private final ArrayList<RemovedEntry> batchRemovals = new ArrayList<>();
    private Resolution.Reason releaseReason = Resolution.Reason.INVALIDATED;
    private long publishedPinVersion = -1;
    private long commandsTotal;
    private long batchesTotal;
    private long removedTotal;
    private int waiterCount;
    private boolean shutDown;
    private Throwable failure;

    CommandHandler(
        final CacheStateMachine state,
        final ChangeLog changeLog,
        final LiveExecutors liveExecutors,
        final RemovalListener removalListener,
        final EvictionPolicy evictionPolicy,
        final EpochClock clock,
        final RegistryCounters counters,
        final Consumer<CompletableFuture<?>> applyObserver,
        final CacheRegistry registry)
    {
        this.applyObserver = applyObserver;
        this.counters = counters;
        this.state = state;
        this.changeLog = changeLog;
        this.liveExecutors = liveExecutors;
        this.removalListener = removalListener;
        this.evictionPolicy = evictionPolicy;
        this.clock = clock;
        this.registry = registry;
    }

    void publishPins()
    {
        if (state.pinVersion() != publishedPinVersion)
        {
            publishedPinVersion = state.pinVersion();
            registry.publishPins(state.pinnedStages());
        }
    }

    public void onEvent(final RegistryCommand command, final long sequence, final boolean endOfBatch)
    {
        final CompletableFuture<Object> future = command.future;
        commandsTotal++;
        try
        {
            if (shutDown || failure != null)
            {
                future.completeExceptionally(registry.closedException(failure));
            }
            else
            {
                applyAndJournal(command, future);
            }
        }
        finally
        {
            command.clear();
        }
        if (endOfBatch)
        {
            endBatch();
        }
    }

    private void applyAndJournal(final RegistryCommand command, final CompletableFuture<Object> future)
    {
        releaseReason = Resolution.Reason.INVALIDATED;
        applyObserver.accept(future);
        Object result;
        try
        {
            changeLog.beginCommand();
            result = apply(command);
        }
        catch (final IllegalArgumentException | IllegalStateException ex)
        {
            // Bad input is refused by the state machine before anything changes; the registry keeps running.
            result = new Failure(ex);
        }
        catch (final RuntimeException | Error ex)
        {
            fail(ex);
            future.completeExceptionally(registry.closedException(ex));
            return;
        }
        try
        {
            changeLog.endCommand();
        }
        catch (final RuntimeException | Error ex)
        {
            // The change is applied in memory but not journaled: stop before anyone can observe the difference.
            fail(ex);
            future.completeExceptionally(registry.closedException(ex));
            return;
        }
        ackFutures.add(future);
        ackValues.add(result);
    }

    private Object apply(final RegistryCommand command)
    {
        switch (command.type)
        {
            case LOOKUP:
                return state.lookup(command.key);
            case BEGIN:
                return state.beginMaterialization(command.key, command.jobId);
            case COMPLETE:
                return state.completeMaterialization(command.key, command.jobId, command.schema, command.locations);
            case ABORT:
                releaseReason = Resolution.Reason.ABORTED;
                return state.abortMaterialization(command.key, command.jobId);
            case INVALIDATE:
                releaseReason = Resolution.Reason.INVALIDATED;
                return state.invalidate(command.key);
            case INVALIDATE_JOB:
                releaseReason = Resolution.Reason.INVALIDATED;
                return state.invalidate(command.key, command.jobId);
            case INVALIDATE_EXECUTOR:
                releaseReason = Resolution.Reason.EXECUTOR_LOST;
                return state.invalidateExecutor(command.id);
            case REMOVE_SESSION:
                releaseReason = Resolution.Reason.SESSION_REMOVED;
                return state.removeSession(command.id);
            case ACQUIRE:
                return acquire(command);
            case AWAIT:
                return await(command.key);
            case SWEEP:
                releaseReason = Resolution.Reason.SESSION_REMOVED;
                return evictionPolicy.sweep(state, clock.time());
            case ENTRIES:
                return state.entries();
            case SHUTDOWN:
                shutDown = true;
                releaseAll(Resolution.Reason.SHUTDOWN);
                return null;
            default:
                throw new IllegalStateException("unknown command " + command.type);
        }
    }

    private Acquisition acquire(final RegistryCommand command)
    {
        final CacheEntry entry = state.lookup(command.key);
        if (entry instanceof Materialized materialized)
        {
            return new Acquisition.Hit(materialized);
        }
        if (entry instanceof Pending pending)
        {
            return new Acquisition.Wait(pending.jobId(), addWaiter(command.key));
        }
        final BeginOutcome outcome = state.beginMaterialization(command.key, command.jobId);
        if (!(outcome instanceof BeginOutcome.Claimed))
        {
            throw new IllegalStateException("claim of an absent key failed: " + outcome);
        }
        return new Acquisition.Claimed();
    }

    private CompletableFuture<Resolution> await(final CacheKey key)
    {
        final CacheEntry entry = state.lookup(key);
        if (entry instanceof Pending)
        {
            return addWaiter(key);
        }
        final Resolution resolution = Resolution.ofSettled(entry);
        final CompletableFuture<Resolution> future = new CompletableFuture<>();
        ackFutures.add(future);
        ackValues.add(resolution);
        return future;
    }

    private CompletableFuture<Resolution> addWaiter(final CacheKey key)
    {
        final CompletableFuture<Resolution> future = new CompletableFuture<>();
        waiters.computeIfAbsent(key, k -> new ArrayList<>()).add(future);
        waiterCount++;
        return future;
    }

    public void onClaimed(final CacheKey key, final Pending entry)
    {
        changeLog.onClaimed(key, entry);
    }

    public void onPromoted(final CacheKey key, final Materialized entry)
    {
        changeLog.onPromoted(key, entry);
        final List<CompletableFuture<Resolution>> pending = waiters.remove(key);
        if (pending != null)
        {
            // The entry itself stays even when it names a dead executor: the next read invalidates it, so the
            // state never depends on whether anyone was waiting.
            releaseTo(pending, Resolution.ofPromotion(entry, liveExecutors));
        }
    }

    public void onRemoved(final CacheKey key, final CacheEntry removed)
    {
        changeLog.onRemoved(key, removed);
        batchRemovals.add(new RemovedEntry(key, removed));
        removedTotal++;
        final List<CompletableFuture<Resolution>> pending = waiters.remove(key);
        if (pending != null)
        {
            releaseTo(pending, new Resolution.Released(releaseReason));
        }
    }

    private void releaseTo(final List<CompletableFuture<Resolution>> pending, final Resolution resolution)
    {
        if (pending == null)
        {
            return;
        }
        for (final CompletableFuture<Resolution> waiter : pending)
        {
            ackFutures.add(waiter);
            ackValues.add(resolution);
        }
        waiterCount -= pending.size();
    }

    private void releaseAll(final Resolution.Reason reason)
    {
        final Resolution resolution = new Resolution.Released(reason);
        for (final List<CompletableFuture<Resolution>> pending : waiters.values())
        {
            releaseTo(pending, resolution);
        }
        waiters.clear();
    }

    private void endBatch()
    {
        if (failure == null)
        {
            try
            {
                changeLog.force();
            }
            catch (final RuntimeException | Error ex)
            {
                fail(ex);
            }
        }
        if (failure != null)
        {
            final RegistryClosedException closed = registry.closedException(failure);
            for (final CompletableFuture<?> future : ackFutures)
            {
                future.completeExceptionally(closed);
            }
            releaseWaitersExceptionally(closed);
            clearBatch();
            return;
        }
        publishPins();
        if (!batchRemovals.isEmpty())
        {
            try
            {
                removalListener.onRemoved(List.copyOf(batchRemovals));
            }
            catch (final RuntimeException ex)
            {
                LOG.warn("removal listener failed for {} entries; their stages stay on disk", batchRemovals.size(), ex);
            }
        }
        batchesTotal++;
        if (counters != null)
        {
            counters.update(commandsTotal, batchesTotal, state.size(), state.totalBytes(),
                registry.pinnedStages().size(), waiterCount, removedTotal);
        }
        for (int i = 0, size = ackFutures.size(); i < size; i++)
        {
            complete(ackFutures.get(i), ackValues.get(i));
        }
        clearBatch();
        try
        {
            changeLog.afterBatch(state);
        }
        catch (final RuntimeException | Error ex)
        {
            fail(ex);
        }
    }

    @SuppressWarnings("unchecked")
    private static void complete(final CompletableFuture<?> future, final Object value)
    {
        if (value instanceof Failure failed)
        {
            future.completeExceptionally(failed.cause);
        }
        else
        {
            ((CompletableFuture<Object>) future).complete(value);
        }
    }

    private void clearBatch()
    {
        ackFutures.clear();
        ackValues.clear();
        batchRemovals.clear();
    }

    private void fail(final Throwable ex)
    {
        if (failure == null)
        {
            failure = ex;
            LOG.error("registry stopped: its journal failed; restart recovers the acknowledged state", ex);
            registry.markFailed(ex);
        }
    }

    private void releaseWaitersExceptionally(final RegistryClosedException closed)
    {
        for (final List<CompletableFuture<Resolution>> pending : waiters.values())
        {
            for (final CompletableFuture<Resolution> waiter : pending)
            {
                waiter.completeExceptionally(closed);
            }
        }
        waiters.clear();
        waiterCount = 0;
    }

    public void onShutdown()
    {
        // Normally every batch ended (and was acknowledged) before the processor stops; after a halt on a drain
        // timeout, whatever is left was never forced, so it is failed rather than acknowledged.
        final RegistryClosedException closed = registry.closedException(failure);
        for (final CompletableFuture<?> future : ackFutures)
        {
            future.completeExceptionally(closed);
        }
        releaseWaitersExceptionally(closed);
        clearBatch();
    }

    private record Failure(Throwable cause)
    {
    }
}
