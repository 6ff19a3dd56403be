package dev.offcache.dataset;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import org.agrona.concurrent.status.CountersManager;

import dev.offcache.core.config.ConcludeOnce;
import dev.offcache.registry.api.Acquisition;
import dev.offcache.registry.api.AsyncCacheRegistry;
import dev.offcache.registry.api.RegistryClosedException;
import dev.offcache.registry.api.Resolution;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.CompletionOutcome;
import dev.offcache.registry.state.Ids;
import dev.offcache.registry.state.Materialized;
import dev.offcache.registry.state.RemovedEntry;

/**
 * The driver's half of the {@code df.cache()} flow, for engines whose tasks read each partition where it lives
 * (Spark): {@link #resolve} turns a cached node's key into the locations of its pinned output, running the
 * materialization job when this call claims the key, and the executors then open each partition with a
 * {@link PartitionOpener} inside the task that reads it.
 * <ul>
 *     <li>{@code Hit}: the registry validated the locations against the live executors; no job;</li>
 *     <li>{@code Claimed}: runs the input as its own job through the engine's {@link JobRunner} (its future is the
 *     job's finish event), completes the entry with the job's schema and locations and cleans the job's other
 *     stages; a failed job aborts the claim (its waiters are released) and fails the resolve with
 *     {@link MaterializationFailedException};</li>
 *     <li>{@code Wait}: waits on the registry's notification (nothing polls); a released claim is retried or, per
 *     the {@link AbortPolicy} and for a session being removed, answered {@link Resolved.Uncached}.</li>
 * </ul>
 * A task that cannot read a partition reports it through {@link #readFailed}: the registry's conditional
 * {@code invalidate(key, jobId)} drops that materialization only, never a newer one. Owns its continuation threads
 * only; the registry, the cleanup and the job runner belong to the engine.
 *
 * @param <P> the engine's plan type.
 */
public final class DatasetResolver<P> implements AutoCloseable
{
    private final Context<P> ctx;
    private final AsyncCacheRegistry registry;
    private final ReadBackCounters counters;
    private final boolean ownsCounters;
    private final ExecutorService workers;
    private final AtomicLong jobSequence = new AtomicLong();
    private final AtomicLong invalidations = new AtomicLong();
    private final String jobIdStem;

    private DatasetResolver(final Context<P> ctx)
    {
        this.ctx = ctx;
        this.registry = ctx.registry;
        this.ownsCounters = ctx.counters == null;
        this.counters = ctx.counters != null ? ctx.counters :
            ctx.countersManager == null ? new ReadBackCounters() : new ReadBackCounters(ctx.countersManager);
        this.workers = WorkerThreads.start(ctx.workerThreads, "offcache-resolve-");
        this.jobIdStem = ctx.jobIdPrefix + "-" + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 16);
    }

    /**
     * Starts a resolver.
     *
     * @param ctx the configuration; concluded here.
     * @param <P> the engine's plan type.
     * @return the resolver.
     */
    public static <P> DatasetResolver<P> launch(final Context<P> ctx)
    {
        return new DatasetResolver<>(ctx.conclude());
    }

    /**
     * Resolves a cached node for one action.
     *
     * @param key   the node's key.
     * @param input the node's input, run as a job when this call claims the key.
     * @return completes with the pinned output's locations or {@link Resolved.Uncached}; exceptionally with
     * {@link MaterializationFailedException} (the job failed; its claim is aborted) or
     * {@link RegistryClosedException}.
     */
    public CompletableFuture<Resolved> resolve(final CacheKey key, final P input)
    {
        Ids.requireNonNull(key, "key");
        Ids.requireNonNull(input, "input");
        counters.actions.increment();
        return attempt(key, input, 0, false);
    }

    /**
     * Resolves for a caller that reads a stale job's output itself ({@link Resolved.Source#STALE}: not cleaned here,
     * the caller reads it once and then cleans the job), as a single-process engine does instead of running the
     * input a second time.
     *
     * @param again true when the same action resolves again (after its read failed): not counted as an action.
     */
    CompletableFuture<Resolved> resolveKeepingStale(final CacheKey key, final P input, final boolean again)
    {
        if (!again)
        {
            counters.actions.increment();
        }
        return attempt(key, input, 0, true);
    }

    /**
     * Runs the input as a job the registry does not know of (an inline computation of a single-process engine); a
     * failed job is counted and cleaned, and fails the future with {@link MaterializationFailedException}.
     */
    CompletableFuture<JobOutput> runUnregistered(final CacheKey key, final String jobId, final P input)
    {
        return submit(jobId, input).handle((output, error) -> error == null ?
            CompletableFuture.completedFuture(output) :
            this.<JobOutput>jobFailed(key, jobId, error, CompletableFuture.completedFuture(null)))
            .thenCompose(Function.identity());
    }

    /**
     * Deletes every stage of a job the registry does not pin.
     */
    CompletableFuture<Void> cleanJob(final String jobId)
    {
        return ctx.cleanup.cleanJob(jobId);
    }

    /**
     * A job id no other job of this resolver has.
     */
    String nextJobId()
    {
        return jobIdStem + "-" + jobSequence.incrementAndGet();
    }

    /**
     * A task could not read a partition of {@code jobId}'s materialization of {@code key} (file gone or damaged,
     * executor unreachable): drops that materialization if it still is the key's entry (one conditional command),
     * so the next action re-materializes; its stages are deleted by the cleanup.
     *
     * @param key   the key.
     * @param jobId the materialization that failed to read.
     * @return completes with whether an entry was removed (a registry failure completes with false).
     */
    public CompletableFuture<Boolean> readFailed(final CacheKey key, final String jobId)
    {
        counters.fetchFailures.increment();
        return registry.invalidate(key, jobId).handle((removed, error) -> countRemoved(removed));
    }

    /**
     * Drops a key (the user's uncache): its files are deleted by the cleanup.
     *
     * @param key the key.
     * @return completes with whether an entry was removed.
     */
    public CompletableFuture<Boolean> invalidate(final CacheKey key)
    {
        return registry.invalidate(key).thenApply(this::countRemoved);
    }

    /**
     * Drops every key of a session (its pending claims too; their waiters compute inline).
     *
     * @param sessionId the session.
     * @return completes with the number of entries removed.
     */
    public CompletableFuture<Integer> removeSession(final String sessionId)
    {
        return registry.removeSession(sessionId).thenApply(removed ->
        {
            countRemoved(removed);
            return removed.size();
        });
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
        return registry.invalidateExecutor(executorId).thenApply(removed ->
        {
            countRemoved(removed);
            return null;
        });
    }

    /**
     * What the resolver did: actions (resolves), hits, waits, materialization jobs, failed jobs, inline answers
     * ({@link Resolved.Uncached}), read failures reported. The read counts stay zero here: the executors'
     * {@link PartitionOpener}s count reads.
     *
     * @return the live counters.
     */
    public ReadBackCounters counters()
    {
        return counters;
    }

    /**
     * Entries removed by read failures, uncache, session removal and executor loss through this resolver.
     *
     * @return the count.
     */
    public long invalidations()
    {
        return invalidations.get();
    }

    /**
     * Stops the continuation threads (resolves in flight may not complete). Closes nothing it does not own.
     */
    public void close()
    {
        WorkerThreads.stop(workers);
        if (ownsCounters)
        {
            counters.close();
        }
    }

    private boolean countRemoved(final List<RemovedEntry> removed)
    {
        if (removed == null || removed.isEmpty())
        {
            return false;
        }
        invalidations.addAndGet(removed.size());
        return true;
    }

    private CompletableFuture<Resolved> attempt(
        final CacheKey key, final P input, final int round, final boolean keepStale)
    {
        if (round >= ctx.maxRounds)
        {
            // The key keeps changing hands (claims invalidated or lost one after another): answer without it.
            return uncached(key, "the key changed hands " + round + " times");
        }
        final String jobId = nextJobId();
        return registry.acquire(key, jobId).thenComposeAsync(acquisition ->
        {
            if (acquisition instanceof Acquisition.Hit hit)
            {
                counters.hits.increment();
                return CompletableFuture.completedFuture(
                    (Resolved) new Resolved.Cached(key, hit.entry(), Resolved.Source.HIT));
            }
            if (acquisition instanceof Acquisition.Claimed)
            {
                return materialize(key, input, jobId, keepStale);
            }
            counters.waits.increment();
            return ((Acquisition.Wait) acquisition).resolution()
                .thenComposeAsync(resolution -> afterWait(key, input, round, keepStale, resolution), workers);
        }, workers);
    }

    private CompletableFuture<Resolved> afterWait(final CacheKey key, final P input, final int round,
        final boolean keepStale, final Resolution resolution)
    {
        if (resolution instanceof Resolution.Ready ready)
        {
            return CompletableFuture.completedFuture(new Resolved.Cached(key, ready.entry(), Resolved.Source.WAITED));
        }
        final Resolution.Reason reason = ((Resolution.Released) resolution).reason();
        switch (reason)
        {
            case ABORTED:
                return ctx.abortPolicy == AbortPolicy.COMPUTE_INLINE ?
                    uncached(key, "the claim waited on was aborted") : attempt(key, input, round + 1, keepStale);
            case SESSION_REMOVED:
                // Caching into a session being torn down would leave output nobody removes.
                return uncached(key, "the session is being removed");
            case SHUTDOWN:
                return CompletableFuture.failedFuture(
                    new RegistryClosedException("registry shut down while waiting for " + key, null));
            default:
                return attempt(key, input, round + 1, keepStale);
        }
    }

    private CompletableFuture<Resolved> materialize(
        final CacheKey key, final P input, final String jobId, final boolean keepStale)
    {
        counters.materializationJobs.increment();
        return submit(jobId, input).handleAsync((output, error) ->
        {
            if (error != null)
            {
                // The claim is aborted first, so its waiters are released before the job's files go.
                return this.<Resolved>jobFailed(key, jobId, error,
                    registry.abortMaterialization(key, jobId).handle((outcome, abortError) -> null));
            }
            return registry.completeMaterialization(key, jobId, output.schema(), output.locations())
                .thenCompose(outcome ->
                {
                    final Materialized entry = new Materialized(jobId, output.schema(), output.locations(), 0);
                    if (outcome == CompletionOutcome.STALE && keepStale)
                    {
                        // Nothing pins it: the caller reads it once, then cleans the whole job.
                        return CompletableFuture.completedFuture(
                            (Resolved) new Resolved.Cached(key, entry, Resolved.Source.STALE));
                    }
                    // The output stage is pinned now (unless stale): the job's other stages, and all of a stale
                    // job's output, go.
                    final CompletableFuture<Void> cleaned = ctx.cleanup.cleanJob(jobId);
                    if (outcome == CompletionOutcome.STALE)
                    {
                        return cleaned.thenCompose(ignored ->
                            uncached(key, "the claim was removed while the job ran"));
                    }
                    return cleaned.thenApply(ignored ->
                        (Resolved) new Resolved.Cached(key, entry, Resolved.Source.MATERIALIZED));
                });
        }, workers).thenCompose(Function.identity());
    }

    private <T> CompletableFuture<T> jobFailed(
        final CacheKey key, final String jobId, final Throwable error, final CompletableFuture<?> first)
    {
        counters.failedJobs.increment();
        final Throwable cause =
            error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        return first.thenCompose(ignored -> ctx.cleanup.cleanJob(jobId)).<T>thenCompose(ignored ->
            CompletableFuture.failedFuture(new MaterializationFailedException(key, jobId, cause)));
    }

    private CompletableFuture<Resolved> uncached(final CacheKey key, final String reason)
    {
        counters.inlineComputations.increment();
        return CompletableFuture.completedFuture(new Resolved.Uncached(key, reason));
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

    /**
     * Configuration of a {@link DatasetResolver}, read like a sentence:
     * {@code new Context<P>().registry(r).jobRunner(j).cleanup(c)}.
     *
     * @param <P> the engine's plan type.
     */
    public static final class Context<P>
    {
        private final ConcludeOnce concluded = new ConcludeOnce();
        private AsyncCacheRegistry registry;
        private JobRunner<P> jobRunner;
        private StageCleanup cleanup;
        private AbortPolicy abortPolicy = AbortPolicy.CLAIM_AND_MATERIALIZE;
        private int workerThreads = 2;
        private int maxRounds = 8;
        private String jobIdPrefix = "cache";
        private CountersManager countersManager;
        private ReadBackCounters counters;

        /**
         * The registry (not owned).
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
         * Threads that run continuations (never a job: the job runner's future completes them). Default 2.
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
         * How many times one resolve may go back to the registry before it answers {@link Resolved.Uncached}.
         * Default 8.
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
         * Prefix of the job ids the resolver mints. Default {@code cache}.
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
         * Where to allocate the {@code offcache_dataset_*} counters (also a coordinator's, which shares one set with
         * its resolver); a manager over a file-backed buffer makes them readable from other processes. Default: a
         * private manager.
         *
         * @param countersManager the manager (not owned).
         * @return this.
         */
        public Context<P> countersManager(final CountersManager countersManager)
        {
            this.countersManager = countersManager;
            return this;
        }

        CountersManager countersManager()
        {
            return countersManager;
        }

        /**
         * Counts into counters another component shares (not owned): the coordinator's one set.
         */
        Context<P> counters(final ReadBackCounters counters)
        {
            this.counters = counters;
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
            Ids.requireNonNull(abortPolicy, "abortPolicy");
            Ids.requireId(jobIdPrefix, "jobIdPrefix");
            if (jobIdPrefix.indexOf('/') >= 0 || jobIdPrefix.indexOf('\\') >= 0)
            {
                throw new IllegalArgumentException("jobIdPrefix must not contain path separators: " + jobIdPrefix);
            }
            WorkerThreads.requireCount(workerThreads);
            if (maxRounds <= 0)
            {
                throw new IllegalArgumentException("maxRounds must be positive: " + maxRounds);
            }
            return this;
        }
    }
}
