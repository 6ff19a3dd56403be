package dev.offcache.registry.front;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.function.ObjLongConsumer;

import com.lmax.disruptor.BlockingWaitStrategy;
import com.lmax.disruptor.WaitStrategy;
import org.agrona.collections.MutableLong;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.status.CountersManager;

import dev.offcache.core.agent.AgentErrors;
import dev.offcache.core.config.ConcludeOnce;
import dev.offcache.registry.api.Acquisition;
import dev.offcache.registry.api.AsyncCacheRegistry;
import dev.offcache.registry.api.RegistryClosedException;
import dev.offcache.registry.api.RemovalListener;
import dev.offcache.registry.api.Resolution;
import dev.offcache.registry.command.CommandChecks;
import dev.offcache.registry.command.CommandType;
import dev.offcache.registry.retention.RetentionPolicy;
import dev.offcache.registry.retention.RetentionSweeper;
import dev.offcache.registry.journal.ChangeCodec;
import dev.offcache.registry.journal.ChangeLog;
import dev.offcache.registry.metrics.RegistryCounters;
import dev.offcache.registry.state.AbortOutcome;
import dev.offcache.registry.state.BeginOutcome;
import dev.offcache.registry.state.CacheEntry;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.CompletionOutcome;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.Ids;
import dev.offcache.registry.state.LiveExecutors;
import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.registry.state.RemovedEntry;
import dev.offcache.registry.state.StageRef;

/**
 * The cached-dataset registry as a service: any number of threads call it; every change becomes a command in a
 * pre-allocated LMAX Disruptor ring, and a single writer applies the commands in ring order to one
 * {@link dev.offcache.registry.state.CacheStateMachine} (through the
 * {@link dev.offcache.registry.waiting.WaitingStateMachine}) and completes each call's {@link CompletableFuture} once
 * the change is durable (group commit at the end of each batch).
 *
 * <p><b>Who runs the writer.</b> One thread at a time holds the writer role (a CAS). With a durable change log a
 * registry thread does (callers hand their commands over and wait; a batch forces the journal once for every
 * command that arrived meanwhile). With the in-memory log the caller that published a command runs the writer's
 * step itself when nobody else is running it: it drains the ring (its own command and whatever others published)
 * and returns with its future complete, so a call costs no thread hand-off; a caller that finds another one
 * running the step spins briefly for its answer. {@link Context#writerThread} chooses explicitly.
 *
 * <p><b>Reads never wait behind the ring.</b> At the end of every batch the writer publishes an immutable
 * {@link ReadView} (every entry and the pinned stages; a volatile write) before it completes the batch's futures.
 * {@link #lookup}, {@link #acquire} on a materialized key, {@link #awaitMaterialization} on a settled key,
 * {@link #pinnedStages()} and {@link #isPinned} read it in the caller's thread, without locks or allocation.
 * Consistency: the registry is linearizable. A batch's changes become visible all at once, when its view is
 * published, which happens after they are durable and before any of them is acknowledged; so a read sees every
 * change acknowledged to anyone before the read began (read-your-writes, monotonic reads) and never a change that
 * could still be lost. A read also sees every command its own thread published earlier, acknowledged or not: while
 * the calling thread has a command the newest view does not hold yet, its reads go through the ring behind it. A
 * materialized entry naming an executor the {@link LiveExecutors} view does not list is never handed out: the read
 * goes through the ring, which invalidates it in the same step and reads a miss.
 *
 * <p><b>Threads.</b> Futures complete on the thread running the writer (the registry thread, or a caller inside a
 * registry call): attach slow continuations with the {@code *Async} variants, never block in one (join a registry
 * future, for example), and never call {@link #close()} from one. {@link LiveExecutors} is consulted from callers'
 * threads and must be thread-safe.
 *
 * <p><b>Bad input</b> (null or empty ids, empty or inconsistent locations) throws {@link IllegalArgumentException}
 * from the call itself; nothing is published. After {@link #close()}, every call returns a future failed with
 * {@link RegistryClosedException}.
 */
public final class CacheRegistry implements AsyncCacheRegistry
{
    private static final VarHandle VIEW;

    static
    {
        try
        {
            VIEW = MethodHandles.lookup().findVarHandle(CacheRegistry.class, "view", ReadView.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final Context ctx;
    private final WriterRole writer;
    private final boolean callerRuns;
    private final ThreadLocal<MutableLong> lastPublished = ThreadLocal.withInitial(() -> new MutableLong(-1));
    private final boolean recordReads;
    private final LiveExecutors liveExecutors;
    private final EpochClock clock;
    private final LongConsumer readObserver;
    private final AtomicBoolean closing = new AtomicBoolean();
    private final AgentRunner sweeperRunner;
    private final RegistryCounters counters;
    private volatile boolean closed;
    private volatile Throwable failure;
    private volatile ReadView view;

    private CacheRegistry(final Context ctx)
    {
        this.ctx = ctx;
        this.callerRuns = !ctx.writerThread;
        this.liveExecutors = ctx.liveExecutors;
        this.clock = ctx.clock;
        this.readObserver = ctx.readObserver;
        this.recordReads = ctx.retentionPolicy.idleSessionTimeoutMs() > 0;
        counters = ctx.countersManager == null ? null : new RegistryCounters(ctx.countersManager);
        final CommandHandler handler = new CommandHandler(ctx, counters, this);
        handler.recover();
        writer = new WriterRole(ctx, handler);
        if (ctx.sweepIntervalMs > 0 && ctx.retentionPolicy.isEnabled())
        {
            final RetentionSweeper sweeper = new RetentionSweeper(this::requestSweep, ctx.clock, ctx.sweepIntervalMs);
            sweeperRunner = AgentErrors.runner(new SleepingMillisIdleStrategy(Math.min(ctx.sweepIntervalMs, 100)),
                counters == null ? null : counters.sweeperErrors(), sweeper);
            AgentRunner.startOnThread(sweeperRunner);
        }
        else
        {
            sweeperRunner = null;
        }
    }

    /**
     * Starts a registry: recovers its change log, then starts the writer (and the sweeper, if configured).
     *
     * @param ctx the configuration; concluded here.
     * @return the running registry.
     */
    public static CacheRegistry launch(final Context ctx)
    {
        return new CacheRegistry(ctx.conclude());
    }

    // ---- calls (AsyncCacheRegistry) ---------------------------------------------------------------------------------

    /**
     * Reads a key's entry from the newest view (see the class comment for what it sees). A materialized entry
     * naming an executor that is not live goes through the ring instead, which invalidates it and reads a miss.
     *
     * @param key the key.
     * @return the entry, or a future of null when absent.
     */
    public CompletableFuture<CacheEntry> lookup(final CacheKey key)
    {
        CommandChecks.key(key);
        final CompletableFuture<CacheEntry> read = fromView(key, ReadView.MISS, false, ReadView.Entry::lookup);
        return read != null ? read : publish(CommandType.LOOKUP, key, null, null, null, null);
    }

    /**
     * Claims a key for a job (see {@link dev.offcache.registry.state.CacheState#beginMaterialization}).
     *
     * @param key   the key.
     * @param jobId the job.
     * @return the outcome.
     */
    public CompletableFuture<BeginOutcome> beginMaterialization(final CacheKey key, final String jobId)
    {
        CommandChecks.keyAndJob(key, jobId);
        return publish(CommandType.BEGIN, key, jobId, null, null, null);
    }

    /**
     * Promotes a job's claim; wakes every waiter on the key with the locations.
     *
     * @param key       the key.
     * @param jobId     the completing job.
     * @param schema    the dataset schema.
     * @param locations the output, all written by {@code jobId}; copied.
     * @return PROMOTED, DUPLICATE or STALE.
     */
    public CompletableFuture<CompletionOutcome> completeMaterialization(
        final CacheKey key, final String jobId, final DatasetSchema schema, final List<PartitionLocation> locations)
    {
        CommandChecks.completion(key, jobId, schema, locations);
        final int limit = ctx.changeLog.maxCommandBytes();
        if (limit != Integer.MAX_VALUE)
        {
            final long maxBytes = ChangeCodec.maxCompletionBytes(key, schema, jobId, locations);
            if (maxBytes > limit)
            {
                throw new IllegalArgumentException("completion of " + key + " with " + locations.size() +
                    " locations may need up to " + maxBytes + " bytes in one journal record, more than the " +
                    limit + " a journal segment holds; raise JournalChangeLog segmentSize");
            }
        }
        return publish(CommandType.COMPLETE, key, jobId, null, schema, List.copyOf(locations));
    }

    /**
     * Clears a job's claim; releases the key's waiters with {@link Resolution.Reason#ABORTED}.
     *
     * @param key   the key.
     * @param jobId the failed job.
     * @return ABORTED or STALE.
     */
    public CompletableFuture<AbortOutcome> abortMaterialization(final CacheKey key, final String jobId)
    {
        CommandChecks.keyAndJob(key, jobId);
        return publish(CommandType.ABORT, key, jobId, null, null, null);
    }

    /**
     * Removes one entry.
     *
     * @param key the key.
     * @return the removed entry, if any.
     */
    public CompletableFuture<List<RemovedEntry>> invalidate(final CacheKey key)
    {
        CommandChecks.key(key);
        return publish(CommandType.INVALIDATE, key, null, null, null, null);
    }

    /**
     * Removes a key's entry only if it is still the given job's (see
     * {@link dev.offcache.registry.state.CacheState#invalidate(CacheKey, String)}).
     *
     * @param key   the key.
     * @param jobId the job whose entry may go.
     * @return the removed entry, if any.
     */
    public CompletableFuture<List<RemovedEntry>> invalidate(final CacheKey key, final String jobId)
    {
        CommandChecks.keyAndJob(key, jobId);
        return publish(CommandType.INVALIDATE_JOB, key, jobId, null, null, null);
    }

    /**
     * Removes every materialized entry with a partition on the executor.
     *
     * @param executorId the lost executor.
     * @return the removed entries.
     */
    public CompletableFuture<List<RemovedEntry>> invalidateExecutor(final String executorId)
    {
        CommandChecks.executorId(executorId);
        return publish(CommandType.INVALIDATE_EXECUTOR, null, null, executorId, null, null);
    }

    /**
     * Removes every entry of a session; releases its waiters with {@link Resolution.Reason#SESSION_REMOVED}.
     *
     * @param sessionId the session.
     * @return the removed entries.
     */
    public CompletableFuture<List<RemovedEntry>> removeSession(final String sessionId)
    {
        CommandChecks.sessionId(sessionId);
        return publish(CommandType.REMOVE_SESSION, null, null, sessionId, null, null);
    }

    /**
     * The action entry point: a validated hit (from the newest view, without waiting), or a claim for
     * {@code jobId}, or, when another job holds the claim, a wait that completes when that claim is promoted or goes
     * away (both through the ring, in one step with the read).
     *
     * @param key   the key.
     * @param jobId the job that will materialize the key if the caller gets the claim.
     * @return the acquisition.
     */
    public CompletableFuture<Acquisition> acquire(final CacheKey key, final String jobId)
    {
        CommandChecks.keyAndJob(key, jobId);
        final CompletableFuture<Acquisition> read = fromView(key, null, true, ReadView.Entry::hit);
        return read != null ? read : publish(CommandType.ACQUIRE, key, jobId, null, null, null);
    }

    /**
     * Waits for a key to leave Pending: ready at once when it is materialized, released with
     * {@link Resolution.Reason#NOT_PENDING} when it is absent (both read from the newest view).
     *
     * @param key the key.
     * @return completes with the resolution; never polled.
     */
    public CompletableFuture<Resolution> awaitMaterialization(final CacheKey key)
    {
        CommandChecks.key(key);
        final CompletableFuture<Resolution> read = fromView(key, ReadView.NOT_PENDING, true, ReadView.Entry::ready);
        if (read != null)
        {
            return read;
        }
        final CompletableFuture<CompletableFuture<Resolution>> registered =
            publish(CommandType.AWAIT, key, null, null, null, null);
        return registered.thenCompose(resolution -> resolution);
    }

    /**
     * Runs one eviction sweep with the configured policy.
     *
     * @return the entries it removed.
     */
    public CompletableFuture<List<RemovedEntry>> sweep()
    {
        return publish(CommandType.SWEEP, null, null, null, null, null);
    }

    /**
     * A consistent copy of every entry, through the ring (diagnostics and tests; O(entries)).
     *
     * @return the key → entry map.
     */
    public CompletableFuture<Map<CacheKey, CacheEntry>> entries()
    {
        return publish(CommandType.ENTRIES, null, null, null, null, null);
    }

    // ---- reads of the pins, from the view ---------------------------------------------------------------------------

    /**
     * The stages cleanup must keep, from the newest view.
     *
     * @return an immutable set.
     */
    public Set<StageRef> pinnedStages()
    {
        return view.pins;
    }

    /**
     * Whether a stage is pinned, from the newest view.
     *
     * @param jobId   the job.
     * @param stageId the stage.
     * @return true when a materialized entry uses the stage.
     */
    public boolean isPinned(final String jobId, final int stageId)
    {
        return view.pins.contains(new StageRef(jobId, stageId));
    }

    // ---- lifecycle --------------------------------------------------------------------------------------------------

    /**
     * Whether the registry is closed or stopped by a journal failure.
     *
     * @return true when calls fail with {@link RegistryClosedException}.
     */
    public boolean isClosed()
    {
        return closed;
    }

    /**
     * Whether callers run the writer's step (no registry thread), as {@link Context#writerThread} resolved.
     *
     * @return true when callers run it.
     */
    public boolean callersRunWriter()
    {
        return callerRuns;
    }

    /**
     * Stops accepting calls, applies every command already published, releases every waiter with
     * {@link Resolution.Reason#SHUTDOWN}, stops the registry thread (if any) and closes the change log. Idempotent.
     *
     * @throws IllegalStateException when called from the writer itself (a continuation of a registry future).
     */
    public void close()
    {
        if (writer.heldByCurrentThread())
        {
            throw new IllegalStateException("CacheRegistry.close() called while this thread runs the registry's " +
                "writer (from a continuation of one of its futures): close it from another thread");
        }
        if (!closing.compareAndSet(false, true))
        {
            return;
        }
        if (sweeperRunner != null)
        {
            sweeperRunner.close();
        }
        // A caller that passed the closed check before it flipped publishes behind the shutdown command: the writer
        // answers it with RegistryClosedException (and the caller runs the writer for it if no thread is left).
        closed = true;
        final CompletableFuture<Object> shutdown = new CompletableFuture<>();
        writer.publish(CommandType.SHUTDOWN, null, null, null, null, null, shutdown);
        try
        {
            if (callerRuns)
            {
                writer.drainUntil(shutdown);
            }
            else
            {
                writer.stopRegistryThread();
            }
        }
        finally
        {
            ctx.changeLog.close();
            if (counters != null)
            {
                counters.close();
            }
        }
    }

    /**
     * The registry's counters, when {@link Context#countersManager} was set.
     *
     * @return the counters, or null.
     */
    public RegistryCounters counters()
    {
        return counters;
    }

    // ---- the writer's callbacks -------------------------------------------------------------------------------------

    void publishView(final ReadView next)
    {
        // A release store, not a volatile one: readers load it volatile; what makes a batch's change visible to a
        // read that starts after its acknowledgement is the happens-before edge of that acknowledgement (a
        // future's completion, or the caller's own program order) and the fence each writer step ends with.
        VIEW.setRelease(this, next);
    }

    void publishPins(final Set<StageRef> stages)
    {
        ctx.pinListener.accept(stages);
    }

    void markFailed(final Throwable cause)
    {
        failure = cause;
        closed = true;
    }

    RegistryClosedException closedException(final Throwable cause)
    {
        return cause == null ?
            new RegistryClosedException("registry is closed", null) :
            new RegistryClosedException("registry stopped after a journal failure: " + cause, cause);
    }

    // ---- reading the view, publishing a command ---------------------------------------------------------------------

    /**
     * Whether a read may be served from {@code current}: the registry is open and the view holds every command
     * this thread published.
     */
    private boolean readable(final ReadView current)
    {
        return !closed && lastPublished.get().get() <= current.through;
    }

    /**
     * The one read path of {@link #lookup}, {@link #acquire} and {@link #awaitMaterialization} through the newest
     * view: what the view answers for {@code key}, or null when the call must go through the ring (the view does not
     * hold this thread's commands yet, or the entry may not be handed out as it is). An entry is handed out when it
     * is live and, if {@code materializedOnly}, materialized; a key the view does not hold answers {@code absent},
     * null sending it through the ring too. Every answer from the view is told to the read observer.
     *
     * @param key              the key.
     * @param absent           what a key the view does not hold answers, or null to go through the ring.
     * @param materializedOnly whether a Pending entry goes through the ring.
     * @param answer           what a handed-out entry answers.
     * @param <T>              the call's answer type.
     * @return the view's answer, or null for the ring.
     */
    private <T> CompletableFuture<T> fromView(
        final CacheKey key, final CompletableFuture<T> absent, final boolean materializedOnly,
        final Function<ReadView.Entry, CompletableFuture<T>> answer)
    {
        final ReadView current = view;
        if (!readable(current))
        {
            return null;
        }
        final ReadView.Entry found = current.entries.get(key);
        if (found == null)
        {
            if (absent != null)
            {
                readObserver.accept(current.lastApplied);
            }
            return absent;
        }
        if ((materializedOnly && found.materialized == null) || !found.isLive(liveExecutors))
        {
            return null;
        }
        readObserver.accept(current.lastApplied);
        if (recordReads)
        {
            found.recordRead(clock.time());
        }
        return answer.apply(found);
    }

    private void requestSweep()
    {
        sweep();
    }

    @SuppressWarnings("unchecked")
    private <T> CompletableFuture<T> publish(
        final CommandType type, final CacheKey key, final String jobId, final String id,
        final DatasetSchema schema, final List<PartitionLocation> locations)
    {
        if (closed)
        {
            return CompletableFuture.failedFuture(closedException(failure));
        }
        if (callerRuns)
        {
            final CompletableFuture<Object> applied = writer.applyNow(type, key, jobId, id, schema, locations);
            if (applied != null)
            {
                return (CompletableFuture<T>) (CompletableFuture<?>) applied;
            }
        }
        final CompletableFuture<Object> future = new CompletableFuture<>();
        lastPublished.get().set(writer.publish(type, key, jobId, id, schema, locations, future));
        if (callerRuns)
        {
            writer.help(future);
        }
        else if (closed)
        {
            // Published behind the shutdown command, perhaps after the registry thread left: answer it here.
            writer.helpUntilDone(future);
        }
        return (CompletableFuture<T>) (CompletableFuture<?>) future;
    }

    // ---- configuration ----------------------------------------------------------------------------------------------

    /**
     * Configuration of a {@link CacheRegistry}; {@link #conclude()} validates it and fills defaults.
     */
    public static final class Context
    {
        private final ConcludeOnce concluded = new ConcludeOnce();
        private int ringSize = 1024;
        private WaitStrategy waitStrategy;
        private EpochClock clock;
        private LiveExecutors liveExecutors = LiveExecutors.ALL;
        private RemovalListener removalListener = RemovalListener.NONE;
        private ChangeLog changeLog = ChangeLog.IN_MEMORY;
        private RetentionPolicy retentionPolicy = RetentionPolicy.none();
        private long sweepIntervalMs;
        private long shutdownTimeoutMs = 10_000;
        private String threadName = "offcache-registry";
        private CountersManager countersManager;
        private Boolean writerThreadChoice;
        private boolean writerThread;
        private ObjLongConsumer<CompletableFuture<?>> applyObserver = (future, sequence) ->
        {
        };
        private Consumer<Set<StageRef>> pinListener = stages ->
        {
        };
        private LongConsumer readObserver = through ->
        {
        };

        /**
         * Ring slots (a power of two); callers block while it is full. Default 1024.
         *
         * @param ringSize the ring size.
         * @return this.
         */
        public Context ringSize(final int ringSize)
        {
            this.ringSize = ringSize;
            return this;
        }

        /**
         * Who runs the single writer: {@code true} a registry thread (callers hand their commands over; a batch
         * forces a durable journal once for every command that arrived meanwhile, also for one caller with many
         * commands in flight), {@code false} the callers themselves (the caller that publishes a command runs the
         * writer's step when nobody else is: no thread hand-off, no idle thread; concurrent callers still share a
         * batch). Default: a thread when the change log is durable ({@link ChangeLog#isDurable()}), the callers
         * otherwise.
         *
         * @param writerThread whether a registry thread runs the writer.
         * @return this.
         */
        public Context writerThread(final boolean writerThread)
        {
            this.writerThreadChoice = writerThread;
            return this;
        }

        /**
         * How the registry thread waits for commands (with {@link #writerThread} true). Default
         * {@link BlockingWaitStrategy} (no CPU when idle).
         *
         * @param waitStrategy the strategy.
         * @return this.
         */
        public Context waitStrategy(final WaitStrategy waitStrategy)
        {
            this.waitStrategy = waitStrategy;
            return this;
        }

        /**
         * The clock for materialization times, session activity and sweeps. Default the system clock.
         *
         * @param clock the clock.
         * @return this.
         */
        public Context clock(final EpochClock clock)
        {
            this.clock = clock;
            return this;
        }

        /**
         * The live-executor view for validate-on-read. Default: every executor live.
         *
         * @param liveExecutors the view.
         * @return this.
         */
        public Context liveExecutors(final LiveExecutors liveExecutors)
        {
            this.liveExecutors = liveExecutors;
            return this;
        }

        /**
         * Receives every removed entry once durable (unpinning). Default: none.
         *
         * @param removalListener the listener.
         * @return this.
         */
        public Context removalListener(final RemovalListener removalListener)
        {
            this.removalListener = removalListener;
            return this;
        }

        /**
         * The backend: {@link ChangeLog#IN_MEMORY} (default) or a durable journal. The registry closes it.
         *
         * @param changeLog the change log.
         * @return this.
         */
        public Context changeLog(final ChangeLog changeLog)
        {
            this.changeLog = changeLog;
            return this;
        }

        /**
         * What sweeps remove. Default: nothing.
         *
         * @param retentionPolicy the policy.
         * @return this.
         */
        public Context retentionPolicy(final RetentionPolicy retentionPolicy)
        {
            this.retentionPolicy = retentionPolicy;
            return this;
        }

        /**
         * Interval of the automatic sweeper thread; 0 (default) runs sweeps only when {@link #sweep()} is called.
         *
         * @param sweepIntervalMs the interval, ms.
         * @return this.
         */
        public Context sweepIntervalMs(final long sweepIntervalMs)
        {
            this.sweepIntervalMs = sweepIntervalMs;
            return this;
        }

        /**
         * How long {@link #close()} waits for the ring to drain. Default 10 s.
         *
         * @param shutdownTimeoutMs the timeout, ms.
         * @return this.
         */
        public Context shutdownTimeoutMs(final long shutdownTimeoutMs)
        {
            this.shutdownTimeoutMs = shutdownTimeoutMs;
            return this;
        }

        /**
         * Receives every new pin snapshot (an immutable set), on the writer, once after recovery and then
         * at the end of each batch that changed it, before that batch is acknowledged. Stage deletion does not need it
         * ({@code StageCleanup} reads {@link CacheRegistry#pinnedStages()} per call); it is for observers of the pins.
         *
         * @param pinListener the listener.
         * @return this.
         */
        public Context pinListener(final Consumer<Set<StageRef>> pinListener)
        {
            this.pinListener = pinListener;
            return this;
        }

        /**
         * Where to allocate the registry's {@code offcache_registry_*} counters (updated once per batch); a manager
         * over a file-backed buffer makes them readable from other processes. Default: no counters.
         *
         * @param countersManager the manager; owned by the caller.
         * @return this.
         */
        public Context countersManager(final CountersManager countersManager)
        {
            this.countersManager = countersManager;
            return this;
        }

        /**
         * Name of the registry thread. Default {@code offcache-registry}.
         *
         * @param threadName the name.
         * @return this.
         */
        public Context threadName(final String threadName)
        {
            this.threadName = threadName;
            return this;
        }

        /**
         * Test hook: sees each command's future and ring sequence, on the writer, just before the command is
         * applied, so a test can learn the order in which concurrent callers' commands were linearized.
         *
         * @param applyObserver the observer.
         * @return this.
         */
        Context applyObserver(final ObjLongConsumer<CompletableFuture<?>> applyObserver)
        {
            this.applyObserver = applyObserver;
            return this;
        }

        /**
         * Test hook: told, in the caller's thread, the ring sequence a read served from a view holds everything up
         * to (the view's last applied command), just before the read returns.
         *
         * @param readObserver the observer.
         * @return this.
         */
        Context readObserver(final LongConsumer readObserver)
        {
            this.readObserver = readObserver;
            return this;
        }

        ChangeLog changeLog()
        {
            return changeLog;
        }

        RemovalListener removalListener()
        {
            return removalListener;
        }

        RetentionPolicy retentionPolicy()
        {
            return retentionPolicy;
        }

        EpochClock clock()
        {
            return clock;
        }

        LiveExecutors liveExecutors()
        {
            return liveExecutors;
        }

        ObjLongConsumer<CompletableFuture<?>> applyObserver()
        {
            return applyObserver;
        }

        int ringSize()
        {
            return ringSize;
        }

        WaitStrategy waitStrategy()
        {
            return waitStrategy;
        }

        boolean writerThread()
        {
            return writerThread;
        }

        long shutdownTimeoutMs()
        {
            return shutdownTimeoutMs;
        }

        String threadName()
        {
            return threadName;
        }

        /**
         * Validates the configuration and fills defaults.
         *
         * @return this.
         * @throws IllegalArgumentException naming the first bad setting.
         */
        public Context conclude()
        {
            concluded.conclude(this);
            if (ringSize < 2 || Integer.bitCount(ringSize) != 1)
            {
                throw new IllegalArgumentException("ringSize must be a power of two >= 2: " + ringSize);
            }
            if (sweepIntervalMs < 0)
            {
                throw new IllegalArgumentException("sweepIntervalMs must not be negative: " + sweepIntervalMs);
            }
            if (shutdownTimeoutMs <= 0)
            {
                throw new IllegalArgumentException("shutdownTimeoutMs must be positive: " + shutdownTimeoutMs);
            }
            Ids.requireNonNull(liveExecutors, "liveExecutors");
            Ids.requireNonNull(removalListener, "removalListener");
            Ids.requireNonNull(changeLog, "changeLog");
            Ids.requireNonNull(retentionPolicy, "retentionPolicy");
            Ids.requireNonNull(pinListener, "pinListener");
            Ids.requireId(threadName, "threadName");
            if (waitStrategy == null)
            {
                waitStrategy = new BlockingWaitStrategy();
            }
            if (clock == null)
            {
                clock = SystemEpochClock.INSTANCE;
            }
            writerThread = writerThreadChoice != null ? writerThreadChoice : changeLog.isDurable();
            return this;
        }
    }
}
