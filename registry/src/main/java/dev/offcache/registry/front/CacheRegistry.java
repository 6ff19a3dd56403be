package dev.offcache.registry.front;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import com.lmax.disruptor.BlockingWaitStrategy;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.TimeoutException;
import com.lmax.disruptor.WaitStrategy;
import com.lmax.disruptor.dsl.Disruptor;
import com.lmax.disruptor.dsl.ProducerType;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.status.CountersManager;

import dev.offcache.registry.eviction.EvictionPolicy;
import dev.offcache.registry.eviction.EvictionSweeper;
import dev.offcache.registry.journal.ChangeCodec;
import dev.offcache.registry.journal.ChangeLog;
import dev.offcache.registry.metrics.RegistryCounters;
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
import dev.offcache.registry.state.RemovedEntry;
import dev.offcache.registry.state.StageRef;

/**
 * The cached-dataset registry as a service: any number of threads call it; every call becomes a command in a
 * pre-allocated LMAX Disruptor ring; one registry thread applies the commands in ring order to a
 * {@link CacheStateMachine} and completes each call's {@link CompletableFuture} once the change is durable (group
 * commit at the end of each Disruptor batch).
 *
 * <p><b>Read consistency.</b> {@link #lookup} and {@link #acquire} go through the ring: they are linearized with
 * every other command (a lookup after an acknowledged completion sees it) and validate-on-read can invalidate a
 * dead hit atomically with the read. {@link #pinnedStages()} and {@link #isPinned} read an immutable snapshot the
 * registry thread publishes at the end of every batch that changed the pin set, before that batch's futures
 * complete: cleanup code calls them synchronously and often, and once a completion is acknowledged its stages are
 * visibly pinned.
 *
 * <p><b>Threads.</b> Futures complete on the registry thread: attach continuations with the {@code *Async}
 * variants (or join from your own thread) and never call {@link #close()} from a continuation.
 *
 * <p><b>Bad input</b> (null or empty ids, empty or inconsistent locations) throws {@link IllegalArgumentException}
 * from the call itself; nothing is published. After {@link #close()}, every call returns a future failed with
 * {@link RegistryClosedException}.
 */
public final class CacheRegistry implements AsyncCacheRegistry
{
    private final Context ctx;
    private final Disruptor<RegistryCommand> disruptor;
    private final RingBuffer<RegistryCommand> ring;
    private final AtomicInteger activePublishers = new AtomicInteger();
    private final AtomicBoolean closing = new AtomicBoolean();
    private final AgentRunner sweeperRunner;
    private final RegistryCounters counters;
    private volatile boolean closed;
    private volatile Throwable failure;
    private volatile Set<StageRef> pinned = Set.of();

    private CacheRegistry(final Context ctx)
    {
        this.ctx = ctx;
        final CacheStateMachine state = new CacheStateMachine(ctx.clock, ctx.liveExecutors, ctx.changeLog);
        ctx.changeLog.recover(state);
        counters = ctx.countersManager == null ? null : new RegistryCounters(ctx.countersManager);
        final CommandHandler handler = new CommandHandler(
            state, ctx.changeLog, ctx.liveExecutors, ctx.removalListener, ctx.evictionPolicy, ctx.clock, counters,
            ctx.applyObserver, this);
        state.listener(handler);
        handler.publishPins();
        disruptor = new Disruptor<>(
            RegistryCommand::new,
            ctx.ringSize,
            runnable ->
            {
                final Thread thread = new Thread(runnable, ctx.threadName);
                thread.setDaemon(true);
                return thread;
            },
            ProducerType.MULTI,
            ctx.waitStrategy);
        disruptor.handleEventsWith(handler);
        ring = disruptor.start();
        if (ctx.sweepIntervalMs > 0 && ctx.evictionPolicy.isEnabled())
        {
            final EvictionSweeper sweeper = new EvictionSweeper(this::requestSweep, ctx.clock, ctx.sweepIntervalMs);
            sweeperRunner = new AgentRunner(
                new SleepingMillisIdleStrategy(Math.min(ctx.sweepIntervalMs, 100)), Throwable::printStackTrace,
                null, sweeper);
            AgentRunner.startOnThread(sweeperRunner);
        }
        else
        {
            sweeperRunner = null;
        }
    }

    /**
     * Starts a registry: recovers its change log, then starts the registry thread (and the sweeper, if configured).
     *
     * @param ctx the configuration; concluded here.
     * @return the running registry.
     */
    public static CacheRegistry launch(final Context ctx)
    {
        return new CacheRegistry(ctx.conclude());
    }

    /**
     * Reads a key's entry, validating a materialized one against the live executors (a dead one is invalidated and
     * read as a miss).
     *
     * @param key the key.
     * @return the entry, or a future of null when absent.
     */
    public CompletableFuture<CacheEntry> lookup(final CacheKey key)
    {
        Ids.requireNonNull(key, "key");
        return publish(CommandType.LOOKUP, key, null, null, null, null);
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
        Ids.requireNonNull(key, "key");
        Ids.requireId(jobId, "jobId");
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
        Ids.requireNonNull(key, "key");
        Ids.requireId(jobId, "jobId");
        Ids.requireNonNull(schema, "schema");
        Materialized.validateLocations(jobId, locations);
        final long maxBytes = ChangeCodec.maxCompletionBytes(key, schema, jobId, locations);
        if (maxBytes > ctx.changeLog.maxCommandBytes())
        {
            throw new IllegalArgumentException("completion of " + key + " with " + locations.size() +
                " locations may need up to " + maxBytes + " bytes in one journal record, more than the " +
                ctx.changeLog.maxCommandBytes() + " a journal segment holds; raise JournalChangeLog segmentSize");
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
        Ids.requireNonNull(key, "key");
        Ids.requireId(jobId, "jobId");
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
        Ids.requireNonNull(key, "key");
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
        Ids.requireNonNull(key, "key");
        Ids.requireId(jobId, "jobId");
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
        Ids.requireId(executorId, "executorId");
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
        Ids.requireId(sessionId, "sessionId");
        return publish(CommandType.REMOVE_SESSION, null, null, sessionId, null, null);
    }

    /**
     * The action entry point: a validated hit, or a claim for {@code jobId}, or — when another job holds the
     * claim — a wait that completes when that claim is promoted or goes away.
     *
     * @param key   the key.
     * @param jobId the job that will materialize the key if the caller gets the claim.
     * @return the acquisition.
     */
    public CompletableFuture<Acquisition> acquire(final CacheKey key, final String jobId)
    {
        Ids.requireNonNull(key, "key");
        Ids.requireId(jobId, "jobId");
        return publish(CommandType.ACQUIRE, key, jobId, null, null, null);
    }

    /**
     * Waits for a key to leave Pending: ready at once when it is materialized, released with
     * {@link Resolution.Reason#NOT_PENDING} when it is absent.
     *
     * @param key the key.
     * @return completes with the resolution; never polled.
     */
    public CompletableFuture<Resolution> awaitMaterialization(final CacheKey key)
    {
        Ids.requireNonNull(key, "key");
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

    /**
     * The stages cleanup must keep, from the snapshot published at the end of the last batch that changed them.
     *
     * @return an immutable set.
     */
    public Set<StageRef> pinnedStages()
    {
        return pinned;
    }

    /**
     * Whether a stage is pinned, from the same snapshot as {@link #pinnedStages()}.
     *
     * @param jobId   the job.
     * @param stageId the stage.
     * @return true when a materialized entry uses the stage.
     */
    public boolean isPinned(final String jobId, final int stageId)
    {
        return pinned.contains(new StageRef(jobId, stageId));
    }

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
     * Stops accepting calls, applies every command already published, releases every waiter with
     * {@link Resolution.Reason#SHUTDOWN}, stops the registry thread and closes the change log. Idempotent.
     */
    public void close()
    {
        if (!closing.compareAndSet(false, true))
        {
            return;
        }
        if (sweeperRunner != null)
        {
            sweeperRunner.close();
        }
        closed = true;
        // Callers that passed the closed check before it flipped are counted: let them finish publishing so the
        // shutdown command is the last one in the ring and no future is left unanswered.
        while (activePublishers.get() != 0)
        {
            Thread.onSpinWait();
        }
        publishNow(CommandType.SHUTDOWN, null, null, null, null, null, new CompletableFuture<>());
        try
        {
            disruptor.shutdown(ctx.shutdownTimeoutMs, TimeUnit.MILLISECONDS);
        }
        catch (final TimeoutException ex)
        {
            disruptor.halt();
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

    void publishPins(final Set<StageRef> stages)
    {
        pinned = stages;
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

    private void requestSweep()
    {
        sweep();
    }

    @SuppressWarnings("unchecked")
    private <T> CompletableFuture<T> publish(
        final CommandType type,
        final CacheKey key,
        final String jobId,
        final String id,
        final DatasetSchema schema,
        final List<PartitionLocation> locations)
    {
        final CompletableFuture<Object> future = new CompletableFuture<>();
        activePublishers.incrementAndGet();
        try
        {
            if (closed)
            {
                future.completeExceptionally(closedException(failure));
            }
            else
            {
                publishNow(type, key, jobId, id, schema, locations, future);
            }
        }
        finally
        {
            activePublishers.decrementAndGet();
        }
        return (CompletableFuture<T>) (CompletableFuture<?>) future;
    }

    private void publishNow(
        final CommandType type,
        final CacheKey key,
        final String jobId,
        final String id,
        final DatasetSchema schema,
        final List<PartitionLocation> locations,
        final CompletableFuture<Object> future)
    {
        final long sequence = ring.next();
        try
        {
            ring.get(sequence).set(type, key, jobId, id, schema, locations, future);
        }
        finally
        {
            ring.publish(sequence);
        }
    }

    /**
     * Configuration of a {@link CacheRegistry}; {@link #conclude()} validates it and fills defaults.
     */
    public static final class Context
    {
        private int ringSize = 1024;
        private WaitStrategy waitStrategy;
        private EpochClock clock;
        private LiveExecutors liveExecutors = LiveExecutors.ALL;
        private RemovalListener removalListener = RemovalListener.NONE;
        private ChangeLog changeLog = ChangeLog.IN_MEMORY;
        private EvictionPolicy evictionPolicy = EvictionPolicy.none();
        private long sweepIntervalMs;
        private long shutdownTimeoutMs = 10_000;
        private String threadName = "offcache-registry";
        private CountersManager countersManager;
        private Consumer<CompletableFuture<?>> applyObserver = future ->
        {
        };
        private Consumer<Set<StageRef>> pinListener = stages ->
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
         * How the registry thread waits for commands. Default {@link BlockingWaitStrategy} (no CPU when idle).
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
         * @param evictionPolicy the policy.
         * @return this.
         */
        public Context evictionPolicy(final EvictionPolicy evictionPolicy)
        {
            this.evictionPolicy = evictionPolicy;
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
         * Receives every new pin snapshot (an immutable set), on the registry thread, once after recovery and then
         * at the end of each batch that changed it, before that batch is acknowledged. A shuffle store's pin set
         * subscribes here ({@code dev.offcache.registry.pinning.RegistryPinSet}).
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
         * Test hook: sees each command's future, on the registry thread, just before the command is applied, so a
         * test can learn the order in which concurrent callers' commands were linearized.
         *
         * @param applyObserver the observer.
         * @return this.
         */
        Context applyObserver(final Consumer<CompletableFuture<?>> applyObserver)
        {
            this.applyObserver = applyObserver;
            return this;
        }

        /**
         * Validates the configuration and fills defaults.
         *
         * @return this.
         * @throws IllegalArgumentException naming the first bad setting.
         */
        public Context conclude()
        {
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
            Ids.requireNonNull(evictionPolicy, "evictionPolicy");
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
            return this;
        }
    }
}
