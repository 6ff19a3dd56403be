package dev.offcache.registry.front;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.ObjLongConsumer;

import com.lmax.disruptor.EventPoller;
import org.agrona.concurrent.EpochClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.offcache.registry.api.Acquisition;
import dev.offcache.registry.api.RegistryClosedException;
import dev.offcache.registry.api.RemovalListener;
import dev.offcache.registry.api.Resolution;
import dev.offcache.registry.command.CommandDispatcher;
import dev.offcache.registry.command.CommandType;
import dev.offcache.registry.journal.ChangeLog;
import dev.offcache.registry.metrics.RegistryCounters;
import dev.offcache.registry.state.BeginOutcome;
import dev.offcache.registry.state.CacheEntry;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.CacheStateMachine;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.Materialized;
import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.registry.state.Pending;
import dev.offcache.registry.state.RemovedEntry;
import dev.offcache.registry.state.StateChangeListener;
import dev.offcache.registry.waiting.WaitingStateMachine;

/**
 * The single writer's step: applies each command polled from the ring to the {@link WaitingStateMachine} in ring
 * order, journals its changes and mirrors them into the next {@link ReadView}; at the end of each batch it forces
 * the journal once, publishes the read view (and the pin snapshot), hands removed entries to the removal listener and
 * only then completes the batch's futures. Whichever thread holds the writer role runs it (the registry thread, or a
 * caller: see {@link CacheRegistry}); one at a time, so everything here is single-threaded.
 */
final class CommandHandler implements EventPoller.Handler<RegistryCommand>, StateChangeListener
{
    private static final Logger LOG = LoggerFactory.getLogger(CommandHandler.class);

    private final WaitingStateMachine<CompletableFuture<Resolution>> machine;
    private final CommandDispatcher<CompletableFuture<Resolution>> dispatcher;
    private final CacheStateMachine state;
    private final ChangeLog changeLog;
    private final RemovalListener removalListener;
    private final CacheRegistry registry;
    private final RegistryCounters counters;
    private final ObjLongConsumer<CompletableFuture<?>> applyObserver;

    private final ArrayList<CompletableFuture<?>> ackFutures = new ArrayList<>();
    private final ArrayList<Object> ackValues = new ArrayList<>();
    private final ArrayList<RemovedEntry> batchRemovals = new ArrayList<>();
    private ReadView.Builder view;
    private long publishedPinVersion = -1;
    private long commandsTotal;
    private long appliedCount;
    private long batchesTotal;
    private long removedTotal;
    private boolean shutDown;
    /** The batch with the shutdown command ended: later batches only answer their commands (closed). */
    private boolean finished;
    private Throwable failure;

    CommandHandler(
        final CacheRegistry.Context ctx,
        final RegistryCounters counters,
        final CacheRegistry registry)
    {
        this.changeLog = ctx.changeLog();
        this.removalListener = ctx.removalListener();
        final EpochClock clock = ctx.clock();
        this.applyObserver = ctx.applyObserver();
        this.counters = counters;
        this.registry = registry;
        this.machine = new WaitingStateMachine<>(clock, ctx.liveExecutors(), this, this::release);
        this.state = machine.state();
        this.dispatcher = new CommandDispatcher<>(machine, ctx.retentionPolicy(), clock);
    }

    /**
     * Rebuilds the state from the change log and publishes the first read view (before any command).
     */
    void recover()
    {
        changeLog.recover(state);
        view = ReadView.builder(state);
        publishView(-1);
    }

    boolean isShutDown()
    {
        return shutDown;
    }

    /**
     * Applies one command that never went through the ring, as a batch of its own (a caller holding the writer role
     * with the ring empty). {@code through} is the ring sequence everything before it was applied up to. The
     * arguments go straight to the state machine and the answer comes back as a future made complete, not through a
     * long-lived ring slot, the batch's lists and a completion: on this path (the uncontended round trip) every
     * reference stored into an old object costs a GC card-marking barrier with a fence, and a completion a CAS.
     *
     * @return the command's future, complete: the result once the batch is acknowledged, else failed.
     */
    CompletableFuture<Object> applyNow(
        final CommandType type, final CacheKey key, final String jobId, final String id,
        final DatasetSchema schema, final List<PartitionLocation> locations,
        final long through)
    {
        commandsTotal++;
        final boolean open = !shutDown && failure == null;
        final long position = appliedCount;
        final Object result = open ? applyAndJournal(type, key, jobId, id, schema, locations) : null;
        final boolean acknowledged = endBatch(through);
        final CompletableFuture<Object> future;
        if (!open || !acknowledged)
        {
            future = CompletableFuture.failedFuture(registry.closedException(failure));
        }
        else if (result instanceof Failure failed)
        {
            future = CompletableFuture.failedFuture(failed.cause);
        }
        else
        {
            future = CompletableFuture.completedFuture(result);
        }
        if (open)
        {
            applyObserver.accept(future, position);
        }
        return future;
    }

    @Override
    public boolean onEvent(final RegistryCommand command, final long sequence, final boolean endOfBatch)
    {
        final CompletableFuture<Object> future = command.future;
        commandsTotal++;
        try
        {
            if (shutDown || failure != null)
            {
                // After a journal failure the shutdown command still ends the writer's work (the registry thread
                // leaves on it instead of waiting out close()'s drain timeout).
                shutDown |= command.type() == CommandType.SHUTDOWN;
                future.completeExceptionally(registry.closedException(failure));
            }
            else
            {
                applyObserver.accept(future, appliedCount);
                // Added after the command ran: it may add the waiters it ended first. A journal failure in it fails
                // the batch: endBatch then fails every future collected here.
                final Object result = applyAndJournal(command.type(), command.key(), command.jobId(), command.id(),
                    command.schema(), command.locations());
                ackFutures.add(future);
                ackValues.add(result);
            }
        }
        finally
        {
            command.clear();
        }
        if (endOfBatch)
        {
            endBatch(sequence);
        }
        return true;
    }

    /**
     * Applies one command to the state machine and journals its changes.
     *
     * @return what its future is to be completed with once the batch is durable: the result, or a {@link Failure}
     *     for bad input. A failure of the journal (or a defect) stops the registry: the batch then fails.
     */
    private Object applyAndJournal(
        final CommandType type, final CacheKey key, final String jobId, final String id,
        final DatasetSchema schema, final List<PartitionLocation> locations)
    {
        appliedCount++;
        Object result;
        try
        {
            changeLog.beginCommand();
            if (type == CommandType.SWEEP)
            {
                view.foldReadActivity(state);
            }
            else if (type == CommandType.SHUTDOWN)
            {
                shutDown = true;
            }
            final CompletableFuture<Resolution> waiter =
                type == CommandType.ACQUIRE || type == CommandType.AWAIT ? new CompletableFuture<>() : null;
            final Object outcome = dispatcher.apply(type, key, jobId, id, schema, locations, waiter);
            if (type == CommandType.ACQUIRE)
            {
                result = acquisition((BeginOutcome) outcome, waiter);
            }
            else if (type == CommandType.AWAIT)
            {
                result = awaiting((Resolution) outcome, waiter);
            }
            else
            {
                result = outcome;
            }
        }
        catch (final IllegalArgumentException | IllegalStateException ex)
        {
            // Bad input is refused by the state machine before anything changes; the registry keeps running.
            result = new Failure(ex);
        }
        catch (final RuntimeException | Error ex)
        {
            fail(ex);
            return null;
        }
        try
        {
            changeLog.endCommand();
        }
        catch (final RuntimeException | Error ex)
        {
            // The change is applied in memory but not journaled: stop before anyone can observe the difference.
            fail(ex);
        }
        return result;
    }

    private static Acquisition acquisition(final BeginOutcome outcome, final CompletableFuture<Resolution> waiter)
    {
        if (outcome instanceof BeginOutcome.AlreadyMaterialized materialized)
        {
            return new Acquisition.Hit(materialized.entry());
        }
        if (outcome instanceof BeginOutcome.AlreadyPending pending)
        {
            return new Acquisition.Wait(pending.jobId(), waiter);
        }
        return new Acquisition.Claimed();
    }

    private CompletableFuture<Resolution> awaiting(final Resolution now, final CompletableFuture<Resolution> waiter)
    {
        if (now != null)
        {
            ackFutures.add(waiter);
            ackValues.add(now);
        }
        return waiter;
    }

    private void release(final List<CompletableFuture<Resolution>> waiters, final Resolution resolution)
    {
        for (final CompletableFuture<Resolution> waiter : waiters)
        {
            ackFutures.add(waiter);
            ackValues.add(resolution);
        }
    }

    @Override
    public void onClaimed(final CacheKey key, final Pending entry)
    {
        changeLog.onClaimed(key, entry);
        view.put(key, entry);
    }

    @Override
    public void onPromoted(final CacheKey key, final Materialized entry)
    {
        changeLog.onPromoted(key, entry);
        view.put(key, entry);
    }

    @Override
    public void onRemoved(final CacheKey key, final CacheEntry removed)
    {
        changeLog.onRemoved(key, removed);
        view.remove(key);
        if (removalListener != RemovalListener.NONE)
        {
            batchRemovals.add(new RemovedEntry(key, removed));
        }
        removedTotal++;
    }

    /**
     * Ends a batch: forces, publishes, hands removals over and completes the futures collected in it.
     *
     * @return whether the batch was acknowledged (false: it failed, or the registry had already finished).
     */
    private boolean endBatch(final long sequence)
    {
        if (finished)
        {
            // After close(): the change log and counters are closed; every command here was answered as closed.
            clearBatch();
            return false;
        }
        finished = shutDown;
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
            machine.abandonAll(waiter -> waiter.completeExceptionally(closed));
            clearBatch();
            return false;
        }
        publishView(sequence);
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
                state.pinnedStages().size(), machine.waiterCount(), removedTotal);
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
        return true;
    }

    /**
     * Publishes the state after the batch ending at {@code sequence}: the read view first, then (when it changed)
     * the pin snapshot to the pin listener, both before any of the batch's futures completes.
     */
    private void publishView(final long sequence)
    {
        registry.publishView(view.build(state.pinnedStages(), sequence, appliedCount - 1));
        if (state.pinVersion() != publishedPinVersion)
        {
            publishedPinVersion = state.pinVersion();
            registry.publishPins(state.pinnedStages());
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

    /**
     * After the writer stopped without ending its batch (a drain that timed out): whatever is left was never
     * forced, so it is failed rather than acknowledged.
     */
    void failLeftovers()
    {
        final RegistryClosedException closed = registry.closedException(failure);
        for (final CompletableFuture<?> future : ackFutures)
        {
            future.completeExceptionally(closed);
        }
        machine.abandonAll(waiter -> waiter.completeExceptionally(closed));
        clearBatch();
    }

    private record Failure(Throwable cause)
    {
    }
}
