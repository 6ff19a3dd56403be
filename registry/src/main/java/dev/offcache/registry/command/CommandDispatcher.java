package dev.offcache.registry.command;

import java.util.List;

import org.agrona.concurrent.EpochClock;

import dev.offcache.registry.api.Resolution;
import dev.offcache.registry.retention.RetentionPolicy;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.CacheStateMachine;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.Ids;
import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.registry.waiting.WaitingStateMachine;

/**
 * Applies one decoded command to the {@link WaitingStateMachine}: the one place that says what each
 * {@link CommandType} does to the state, for both fronts. The in-process writer
 * ({@code front.CommandHandler}) feeds it from ring slots and completes futures with the outcome; the clustered
 * service ({@code clustered.RegistryClusteredService}) feeds it from the committed log and encodes the outcome
 * ({@code clustered.WireCodec#answer}). Decoding and encoding are the fronts'; the arguments were checked by
 * {@link CommandChecks} before the command was published, and the state machine checks them again before it
 * changes anything (a refused command throws {@link IllegalArgumentException} or {@link IllegalStateException}
 * with the state unchanged).
 *
 * <p>Outcomes, by command: LOOKUP the validated {@code CacheEntry} or null; BEGIN and ACQUIRE a {@code BeginOutcome}
 * (ACQUIRE registers {@code waiter} when it is {@code AlreadyPending}); COMPLETE a {@code CompletionOutcome}; ABORT
 * an {@code AbortOutcome}; INVALIDATE, INVALIDATE_JOB, INVALIDATE_EXECUTOR, REMOVE_SESSION and SWEEP the
 * {@code List<RemovedEntry>}; AWAIT the {@code Resolution} now, or null when {@code waiter} was registered; ENTRIES
 * the entries' map; PINNED the pinned stages; SHUTDOWN null (every waiter released with
 * {@link Resolution.Reason#SHUTDOWN}). EXECUTOR_LIVE changes the front's live-executor view, not the state: the
 * clustered service applies it itself.
 *
 * <p>Single-threaded, like the state machine it drives; allocates nothing beyond what the state machine does.
 *
 * @param <W> the front's waiter (a future in-process, {@code (clientId, sequence)} in the cluster).
 */
public final class CommandDispatcher<W>
{
    private final WaitingStateMachine<W> machine;
    private final CacheStateMachine state;
    private final RetentionPolicy retentionPolicy;
    private final EpochClock clock;

    /**
     * A dispatcher over a machine.
     *
     * @param machine         the state machine with its waiters.
     * @param retentionPolicy what a SWEEP removes.
     * @param clock           the time a SWEEP is run at (the machine's clock).
     */
    public CommandDispatcher(
        final WaitingStateMachine<W> machine, final RetentionPolicy retentionPolicy, final EpochClock clock)
    {
        this.machine = Ids.requireNonNull(machine, "machine");
        this.state = machine.state();
        this.retentionPolicy = Ids.requireNonNull(retentionPolicy, "retentionPolicy");
        this.clock = Ids.requireNonNull(clock, "clock");
    }

    /**
     * The machine commands are applied to.
     *
     * @return the machine.
     */
    public WaitingStateMachine<W> machine()
    {
        return machine;
    }

    /**
     * Applies one command.
     *
     * @param type      the command.
     * @param key       its key, or null.
     * @param jobId     its job, or null.
     * @param id        its executor or session id, or null.
     * @param schema    its schema (COMPLETE), or null.
     * @param locations its locations (COMPLETE), or null.
     * @param waiter    the waiter an ACQUIRE or AWAIT registers if it has to wait; null for other commands.
     * @return the outcome (see the class comment).
     * @throws IllegalArgumentException when the state machine refuses the arguments (nothing changed).
     * @throws IllegalStateException    when the state machine refuses the command in its state (nothing changed).
     */
    public Object apply(
        final CommandType type, final CacheKey key, final String jobId, final String id,
        final DatasetSchema schema, final List<PartitionLocation> locations,
        final W waiter)
    {
        return switch (type)
        {
            case LOOKUP -> machine.lookup(key);
            case BEGIN -> machine.beginMaterialization(key, jobId);
            case COMPLETE -> machine.completeMaterialization(key, jobId, schema, locations);
            case ABORT -> machine.abortMaterialization(key, jobId);
            case INVALIDATE -> machine.invalidate(key);
            case INVALIDATE_JOB -> machine.invalidate(key, jobId);
            case INVALIDATE_EXECUTOR -> machine.invalidateExecutor(id);
            case REMOVE_SESSION -> machine.removeSession(id);
            case ACQUIRE -> machine.acquire(key, jobId, waiter);
            case AWAIT -> machine.await(key, waiter);
            case SWEEP -> machine.sweep(retentionPolicy, clock.time());
            case ENTRIES -> state.entries();
            case PINNED -> state.pinnedStages();
            case SHUTDOWN ->
            {
                machine.releaseAll(Resolution.Reason.SHUTDOWN);
                yield null;
            }
            case EXECUTOR_LIVE -> throw new IllegalStateException(
                "EXECUTOR_LIVE changes the front's live-executor view; the front applies it");
        };
    }
}
