package dev.offcache.dataset;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import org.agrona.concurrent.status.CountersManager;

import dev.offcache.core.config.ConcludeOnce;
import dev.offcache.core.shuffle.ShufflePartitionStore;
import dev.offcache.registry.api.Acquisition;
import dev.offcache.registry.api.AsyncCacheRegistry;
import dev.offcache.registry.api.RegistryClosedException;
import dev.offcache.registry.api.Resolution;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.CompletionOutcome;
import dev.offcache.registry.state.Ids;
import dev.offcache.registry.state.Materialized;

/**
 * The {@code df.cache()} flow, embedded in an engine's scheduler: {@link #execute} takes an action's cached node
 * and the query above it, and returns the query's result computed from the pinned output of the node's input.
 * <ul>
 *     <li><b>miss</b>: claims the key, runs the input as its own job through the engine's {@link JobRunner},
 *     completes the entry on the job's finish event (its future; nothing polls) with the schema and locations,
 *     then reads the output back while the job is cleaned (every stage but the pinned output);</li>
 *     <li><b>hit</b>: the registry validated the locations against the live executors; reads back, no job;</li>
 *     <li><b>pending</b>: waits on the registry's notification, then reads back; when the claim is aborted, follows
 *     the {@link AbortPolicy}; when it went away otherwise (invalidated, executor lost) tries again;</li>
 *     <li><b>failures</b>: a failed job aborts its claim (waiters are released) and fails the action; a fetch
 *     failure on read-back invalidates the entry if it is still that materialization (its stages are unpinned and
 *     deleted) and re-materializes once; a second one invalidates that one too and fails the action. The engine's
 *     {@link FetchFailureListener} hears of each. The query only ever sees every partition of one
 *     materialization, so a result is never wrong or partial.</li>
 * </ul>
 * Where the read-back runs is per action ({@link ReadPlacement}); it runs on the coordinator's worker threads (it
 * blocks on remote fetches). The coordinator owns those threads only; the registry, the cleanup, the job runner,
 * the stores and the transport clients belong to the engine.
 *
 * @param <P> the engine's plan type.
 */
public final class CachedDatasetCoordinator<P> implements AutoCloseable
{
    private final Context<P> ctx;
    private final AsyncCacheRegistry registry;
    private final PartitionReadBack readBack;
    private final ReadPlacement defaultPlacement;
    private final ReadBackCounters counters;
    private final ExecutorService workers;
    private final AtomicLong jobSequence = new AtomicLong();
    private final String jobIdStem;

    private CachedDatasetCoordinator(final Context<P> ctx)
    {
        this.ctx = ctx;
        this.registry = ctx.registry;
        this.counters =
            ctx.countersManager == null ? new ReadBackCounters() : new ReadBackCounters(ctx.countersManager);
        this.defaultPlacement = PartitionReadBack.placement(ctx.localExecutorId, ctx.localStore);
        this.readBack = new PartitionReadBack(defaultPlacement, ctx.remoteExecutors, ctx.fetchTimeoutNs,
            ctx.verifyLocal, counters, PartitionReadBack.DEFAULT_POOL_BYTES, ctx.fetchFailureListener);
        final AtomicInteger threadCount = new AtomicInteger();
        this.workers = Executors.newFixedThreadPool(ctx.workerThreads, runnable ->
        {
            final Thread thread = new Thread(runnable, "offcache-dataset-" + threadCount.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        this.jobIdStem = ctx.jobIdPrefix + "-" + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 16);
    }

    /**
     * Starts a coordinator.
     *
     * @param ctx the configuration; concluded here.
     * @param <P> the engine's plan type.
     * @return the coordinator.
     */
    public static <P> CachedDatasetCoordinator<P> launch(final Context<P> ctx)
    {
        return new CachedDatasetCoordinator<>(ctx.conclude());
    }

    /**
     * Runs an action over a cached node, reading back where {@link Context#readingOn} says.
     *
     * @param node   the cached node of the action's plan.
     * @param reader the query above the node.
     * @param <R>    the result type.
     * @return completes with the query's result, or exceptionally with {@link MaterializationFailedException}
     * (the job failed), {@link FetchFailedException} (read-back failed again after one re-materialization; that
     * materialization is invalidated too) or the reader's own exception.
     */
    public <R> CompletableFuture<R> execute(final CachedNode<P> node, final OutputReader<R> reader)
    {
        return execute(node, reader, defaultPlacement);
    }

    /**
     * Runs an action over a cached node, reading back where the engine places this action's query: partitions of
     * the executors {@code placement} names are read locally (from the files their locations name), the others
     * fetched.
     *
     * @param node      the cached node of the action's plan.
     * @param reader    the query above the node.
     * @param placement where the query runs.
     * @param <R>       the result type.
     * @return as {@link #execute(CachedNode, OutputReader)}.
     */
    public <R> CompletableFuture<R> execute(
        final CachedNode<P> node, final OutputReader<R> reader, final ReadPlacement placement)
    {
        Ids.requireNonNull(node, "node");
        Ids.requireNonNull(reader, "reader");
        Ids.requireNonNull(placement, "placement");
        counters.actions.increment();
        return attempt(node, reader, new ReadRetries(placement));
    }

    /**
     * Tells the registry an executor is gone: every entry with a partition on it is removed (and its stages on the
     * other executors deleted by the cleanup).
     *
     * @param executorId the lost executor.
     * @return completes when the registry applied it.
     */
    public CompletableFuture<Void> executorLost(final String executorId)
    {
        return registry.invalidateExecutor(executorId).thenApply(removed -> null);
    }

    /**
     * What the coordinator did so far.
     *
     * @return the live counters.
     */
    public ReadBackCounters counters()
    {
        return counters;
    }

    /**
     * Stops the worker threads (actions in flight may fail). Closes nothing it does not own.
     */
    public void close()
    {
        workers.shutdownNow();
        try
        {
            workers.awaitTermination(10, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        readBack.close();
        counters.close();
    }

    private <R> CompletableFuture<R> attempt(final CachedNode<P> node, final OutputReader<R> reader,
        final ReadRetries retries)
    {
        if (retries.rounds++ >= ctx.maxRounds)
        {
            // The key keeps changing hands (claims invalidated or lost one after another): answer without it.
            return computeInline(node, reader, retries.placement);
        }
        final String jobId = nextJobId();
        return registry.acquire(node.key(), jobId).thenComposeAsync(acquisition ->
        {
            if (acquisition instanceof Acquisition.Hit hit)
            {
                counters.hits.increment();
                return readBack(node, hit.entry(), reader, retries);
            }
            if (acquisition instanceof Acquisition.Claimed)
            {
                return materialize(node, jobId, reader, retries);
            }
            final Acquisition.Wait wait = (Acquisition.Wait) acquisition;
            counters.waits.increment();
            return wait.resolution().thenComposeAsync(resolution -> afterWait(node, reader, retries, resolution),
                workers);
        }, workers);
    }

    private <R> CompletableFuture<R> afterWait(final CachedNode<P> node, final OutputReader<R> reader,
        final ReadRetries retries, final Resolution resolution)
    {
        if (resolution instanceof Resolution.Ready ready)
        {
            return readBack(node, ready.entry(), reader, retries);
        }
        final Resolution.Reason reason = ((Resolution.Released) resolution).reason();
        switch (reason)
        {
            case ABORTED:
                return ctx.abortPolicy == AbortPolicy.COMPUTE_INLINE ?
                    computeInline(node, reader, retries.placement) : attempt(node, reader, retries);
            case SESSION_REMOVED:
                // Caching into a session being torn down would leave output nobody removes.
                return computeInline(node, reader, retries.placement);
            case SHUTDOWN:
                return CompletableFuture.failedFuture(
                    new RegistryClosedException("registry shut down while waiting for " + node.key(), null));
            default:
                return attempt(node, reader, retries);
        }
    }

    private <R> CompletableFuture<R> materialize(final CachedNode<P> node, final String jobId,
        final OutputReader<R> reader, final ReadRetries retries)
    {
        counters.materializationJobs.increment();
        final CacheKey key = node.key();
        return submit(jobId, node.input()).handleAsync((output, error) ->
        {
            final Materialized entry;
            try
            {
                if (error != null)
                {
                    throw error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
                }
                entry = new Materialized(jobId, output.schema(), output.locations(), 0);
            }
            catch (final Throwable ex)
            {
                counters.failedJobs.increment();
                return registry.abortMaterialization(key, jobId)
                    .handle((outcome, abortError) -> null)
                    .thenCompose(ignored -> ctx.cleanup.cleanJob(jobId))
                    .<R>thenCompose(ignored ->
                        CompletableFuture.failedFuture(new MaterializationFailedException(key, jobId, ex)));
            }
            return registry.completeMaterialization(key, jobId, entry.schema(), entry.locations())
                .thenComposeAsync(outcome ->
                {
                    if (outcome == CompletionOutcome.STALE)
                    {
                        // The claim went away while the job ran (session removed, invalidated): its output is not
                        // pinned, so read it now and then let job cleanup delete all of it.
                        return readOnce(entry, reader, retries.placement)
                            .whenComplete((r, e) -> ctx.cleanup.cleanJob(jobId));
                    }
                    // The output stage is pinned now: clean the job's other stages while reading it back, and answer
                    // once both are done (an action's end means its job is cleaned).
                    final CompletableFuture<Void> cleaned = ctx.cleanup.cleanJob(jobId);
                    return readBack(node, entry, reader, retries).thenCombine(cleaned, (result, ignored) -> result);
                }, workers);
        }, workers).thenCompose(Function.identity());
    }

    private <R> CompletableFuture<R> computeInline(
        final CachedNode<P> node, final OutputReader<R> reader, final ReadPlacement placement)
    {
        counters.inlineComputations.increment();
        final String jobId = nextJobId() + "-inline";
        return submit(jobId, node.input()).handleAsync((output, error) ->
        {
            if (error != null)
            {
                counters.failedJobs.increment();
                final Throwable cause =
                    error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
                return ctx.cleanup.cleanJob(jobId).<R>thenCompose(ignored ->
                    CompletableFuture.failedFuture(new MaterializationFailedException(node.key(), jobId, cause)));
            }
            final Materialized entry = new Materialized(jobId, output.schema(), output.locations(), 0);
            return readOnce(entry, reader, placement).whenComplete((r, e) -> ctx.cleanup.cleanJob(jobId));
        }, workers).thenCompose(Function.identity());
    }

    private <R> CompletableFuture<R> readBack(final CachedNode<P> node, final Materialized entry,
        final OutputReader<R> reader, final ReadRetries retries)
    {
        try (PartitionViews views = readBack.readAll(entry.locations(), retries.placement))
        {
            return CompletableFuture.completedFuture(reader.read(entry.schema(), views));
        }
        catch (final FetchFailedException ex)
        {
            counters.fetchFailures.increment();
            if (retries.rematerialized)
            {
                // This materialization is broken too: drop it as well (only if it still is the key's entry), so
                // the next action does not pay the same failure; then fail.
                return invalidateIfStill(node.key(), entry.jobId())
                    .<R>thenCompose(ignored -> CompletableFuture.failedFuture(ex));
            }
            retries.rematerialized = true;
            counters.rematerializations.increment();
            return invalidateIfStill(node.key(), entry.jobId())
                .thenComposeAsync(ignored -> attempt(node, reader, retries), workers);
        }
        catch (final RuntimeException ex)
        {
            return CompletableFuture.failedFuture(ex);
        }
    }

    private <R> CompletableFuture<R> readOnce(
        final Materialized entry, final OutputReader<R> reader, final ReadPlacement placement)
    {
        try (PartitionViews views = readBack.readAll(entry.locations(), placement))
        {
            return CompletableFuture.completedFuture(reader.read(entry.schema(), views));
        }
        catch (final FetchFailedException ex)
        {
            counters.fetchFailures.increment();
            return CompletableFuture.failedFuture(ex);
        }
        catch (final RuntimeException ex)
        {
            return CompletableFuture.failedFuture(ex);
        }
    }

    private CompletableFuture<Void> invalidateIfStill(final CacheKey key, final String jobId)
    {
        // Only the materialization that failed to read is dropped, not a newer one another action already made: one
        // conditional command, so nothing can land between looking and removing. A registry failure here is not the
        // action's: the entry is dropped later by whoever reads it next.
        return registry.invalidate(key, jobId).handle((removed, error) -> null);
    }

    private CompletableFuture<JobOutput> submit(final String jobId, final P input)
    {
        try
        {
            final CompletableFuture<JobOutput> job = ctx.jobRunner.run(jobId, input);
            return job != null ? job :
                CompletableFuture.failedFuture(new IllegalStateException("job runner returned no future"));
        }
        catch (final RuntimeException ex)
        {
            return CompletableFuture.failedFuture(ex);
        }
    }

    private String nextJobId()
    {
        return jobIdStem + "-" + jobSequence.incrementAndGet();
    }

    private static final class ReadRetries
    {
        final ReadPlacement placement;
        int rounds;
        boolean rematerialized;

        ReadRetries(final ReadPlacement placement)
        {
            this.placement = placement;
        }
    }

    /**
     * Configuration of a {@link CachedDatasetCoordinator}, read like a sentence:
     * {@code new Context<P>().registry(r).jobRunner(j).cleanup(c).readingOn(id, store).remoteExecutors(clients)}.
     *
     * @param <P> the engine's plan type.
     */
    public static final class Context<P>
    {
        private final ConcludeOnce concluded = new ConcludeOnce();
        private AsyncCacheRegistry registry;
        private JobRunner<P> jobRunner;
        private StageCleanup cleanup;
        private String localExecutorId;
        private ShufflePartitionStore localStore;
        private RemoteExecutors remoteExecutors;
        private AbortPolicy abortPolicy = AbortPolicy.CLAIM_AND_MATERIALIZE;
        private long fetchTimeoutNs = TimeUnit.SECONDS.toNanos(10);
        private FetchFailureListener fetchFailureListener = FetchFailureListener.NONE;
        private boolean verifyLocal = true;
        private int workerThreads = 4;
        private int maxRounds = 8;
        private String jobIdPrefix = "cache";
        private CountersManager countersManager;

        /**
         * The registry (not owned): the in-process {@link dev.offcache.registry.front.CacheRegistry} or the
         * replicated {@code RegistryClusterClient}.
         *
         * @param registry the registry.
         * @return this.
         */
        public Context<P> registry(final AsyncCacheRegistry registry)
        {
            this.registry = registry;
            return this;
        }

        /**
         * The engine's job runner.
         *
         * @param jobRunner the runner.
         * @return this.
         */
        public Context<P> jobRunner(final JobRunner<P> jobRunner)
        {
            this.jobRunner = jobRunner;
            return this;
        }

        /**
         * The cleanup that is also the registry's removal listener (not owned).
         *
         * @param cleanup the cleanup.
         * @return this.
         */
        public Context<P> cleanup(final StageCleanup cleanup)
        {
            this.cleanup = cleanup;
            return this;
        }

        /**
         * Where read-back runs for actions that do not say ({@link #execute(CachedNode, OutputReader)}): the
         * executor and a store over its shuffle directory; its partitions are read through local mappings. Default:
         * none (every partition is fetched). Actions placed by the engine pass a {@link ReadPlacement} instead.
         *
         * @param executorId the executor id.
         * @param store      its shuffle store (not owned).
         * @return this.
         */
        public Context<P> readingOn(final String executorId, final ShufflePartitionStore store)
        {
            this.localExecutorId = executorId;
            this.localStore = store;
            return this;
        }

        /**
         * Clients of the executors' payload servers.
         *
         * @param remoteExecutors the clients (not owned).
         * @return this.
         */
        public Context<P> remoteExecutors(final RemoteExecutors remoteExecutors)
        {
            this.remoteExecutors = remoteExecutors;
            return this;
        }

        /**
         * What a waiter does when the claim it waited on is aborted. Default
         * {@link AbortPolicy#CLAIM_AND_MATERIALIZE}.
         *
         * @param abortPolicy the policy.
         * @return this.
         */
        public Context<P> abortPolicy(final AbortPolicy abortPolicy)
        {
            this.abortPolicy = abortPolicy;
            return this;
        }

        /**
         * Deadline of one remote partition fetch (an unreachable executor fails the read-back after it). Default
         * 10 s.
         *
         * @param fetchTimeoutNs the deadline.
         * @return this.
         */
        public Context<P> fetchTimeoutNs(final long fetchTimeoutNs)
        {
            this.fetchTimeoutNs = fetchTimeoutNs;
            return this;
        }

        /**
         * Told of every partition a read-back could not read (for example, to mark its executor suspect). Default:
         * nothing.
         *
         * @param listener the listener.
         * @return this.
         */
        public Context<P> fetchFailureListener(final FetchFailureListener listener)
        {
            this.fetchFailureListener = listener;
            return this;
        }

        /**
         * Whether a local partition's CRC32C is checked before it is read. Default true.
         *
         * @param verifyLocal the switch.
         * @return this.
         */
        public Context<P> verifyLocal(final boolean verifyLocal)
        {
            this.verifyLocal = verifyLocal;
            return this;
        }

        /**
         * Threads that run read-backs and continuations. Default 4.
         *
         * @param workerThreads the count.
         * @return this.
         */
        public Context<P> workerThreads(final int workerThreads)
        {
            this.workerThreads = workerThreads;
            return this;
        }

        /**
         * How many times one action may go back to the registry (a claim lost, invalidated, aborted) before it
         * computes inline instead. Default 8.
         *
         * @param maxRounds the bound.
         * @return this.
         */
        public Context<P> maxRounds(final int maxRounds)
        {
            this.maxRounds = maxRounds;
            return this;
        }

        /**
         * Prefix of the job ids the coordinator mints. Default {@code cache}.
         *
         * @param jobIdPrefix the prefix (no path separators).
         * @return this.
         */
        public Context<P> jobIdPrefix(final String jobIdPrefix)
        {
            this.jobIdPrefix = jobIdPrefix;
            return this;
        }

        /**
         * Where to allocate the {@code offcache_dataset_*} counters; a manager over a file-backed buffer makes them
         * readable from other processes. Default: a private manager.
         *
         * @param countersManager the manager (not owned).
         * @return this.
         */
        public Context<P> countersManager(final CountersManager countersManager)
        {
            this.countersManager = countersManager;
            return this;
        }

        /**
         * Validates the configuration.
         *
         * @return this.
         * @throws IllegalArgumentException naming the first missing or bad setting.
         */
        public Context<P> conclude()
        {
            concluded.conclude(this);
            Ids.requireNonNull(registry, "registry");
            Ids.requireNonNull(jobRunner, "jobRunner");
            Ids.requireNonNull(cleanup, "cleanup");
            Ids.requireNonNull(remoteExecutors, "remoteExecutors");
            Ids.requireNonNull(abortPolicy, "abortPolicy");
            Ids.requireNonNull(fetchFailureListener, "fetchFailureListener");
            Ids.requireId(jobIdPrefix, "jobIdPrefix");
            if (jobIdPrefix.indexOf('/') >= 0 || jobIdPrefix.indexOf('\\') >= 0)
            {
                throw new IllegalArgumentException("jobIdPrefix must not contain path separators: " + jobIdPrefix);
            }
            if (workerThreads <= 0)
            {
                throw new IllegalArgumentException("workerThreads must be positive: " + workerThreads);
            }
            if (maxRounds <= 0)
            {
                throw new IllegalArgumentException("maxRounds must be positive: " + maxRounds);
            }
            if (fetchTimeoutNs <= 0)
            {
                throw new IllegalArgumentException("fetchTimeoutNs must be positive: " + fetchTimeoutNs);
            }
            return this;
        }
    }
}
