package dev.offcache.dataset;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;

import org.agrona.CloseHelper;
import org.agrona.concurrent.status.CountersManager;

import dev.offcache.core.config.ConcludeOnce;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.Ids;
import dev.offcache.registry.state.PartitionLocation;

/**
 * The {@code df.cache()} flow for a single-process engine, whose query reads every partition in one place:
 * {@link #execute} resolves the cached node on the driver side ({@link DatasetResolver}: hit, claim and job, or wait
 * on the registry's notification), opens all of the materialization's partitions with a {@link PartitionOpener}
 * (mapped where the query runs, fetched otherwise) and hands them to the engine's {@link OutputReader}. It adds only
 * what such an engine needs on top of the two halves:
 * <ul>
 *     <li>a read that fails ({@link FetchFailedException}) is reported to the resolver (the conditional
 *     invalidate: only that materialization is dropped) and the action resolves once more, which re-materializes;
 *     a second failure drops that materialization too and fails the action;</li>
 *     <li>a job whose claim went away while it ran ({@link Resolved.Source#STALE}) is read once, then deleted;</li>
 *     <li>{@link Resolved.Uncached} (session being removed, claim aborted under {@link AbortPolicy#COMPUTE_INLINE},
 *     too many rounds) runs the input as a job the registry never sees, reads it once and deletes it.</li>
 * </ul>
 * The query only ever sees every partition of one materialization, so a result is never wrong or partial. Resolver,
 * opener and coordinator count into one {@link ReadBackCounters}. Owns the resolver, the opener, the counters and
 * its read-back threads (reads block on remote fetches); the registry, the cleanup, the job runner, the stores and
 * the transport clients belong to the engine.
 *
 * @param <P> the engine's plan type.
 */
public final class CachedDatasetCoordinator<P> implements AutoCloseable
{
    private final ReadBackCounters counters;
    private final DatasetResolver<P> resolver;
    private final PartitionOpener opener;
    private final ExecutorService workers;

    private CachedDatasetCoordinator(final Context<P> ctx)
    {
        final CountersManager countersManager = ctx.resolver.countersManager();
        counters = countersManager == null ? new ReadBackCounters() : new ReadBackCounters(countersManager);
        DatasetResolver<P> launchedResolver = null;
        try
        {
            launchedResolver = DatasetResolver.launch(ctx.resolver.counters(counters));
            opener = PartitionOpener.launch(ctx.opener.counters(counters));
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietCloseAll(launchedResolver, counters);
            throw ex;
        }
        resolver = launchedResolver;
        workers = WorkerThreads.start(ctx.workerThreads, "offcache-dataset-");
    }

    /**
     * Starts a coordinator, its resolver and its opener.
     *
     * @param ctx the configuration; concluded here (the resolver's and the opener's when they launch).
     * @param <P> the engine's plan type.
     * @return the coordinator.
     */
    public static <P> CachedDatasetCoordinator<P> launch(final Context<P> ctx)
    {
        return new CachedDatasetCoordinator<>(ctx.conclude());
    }

    /**
     * Runs an action over a cached node, reading back on the opener's executor ({@link PartitionOpener#placement}).
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
        return execute(node, reader, opener.placement());
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
        return resolver.resolveKeepingStale(node.key(), node.input(), false)
            .thenComposeAsync(resolved -> answer(node, reader, placement, resolved, false), workers);
    }

    /**
     * Tells the registry an executor is gone (see {@link DatasetResolver#executorLost}).
     *
     * @param executorId the lost executor.
     * @return completes when the registry applied it.
     */
    public CompletableFuture<Void> executorLost(final String executorId)
    {
        return resolver.executorLost(executorId);
    }

    /**
     * What the coordinator, its resolver and its opener did so far.
     *
     * @return the live counters.
     */
    public ReadBackCounters counters()
    {
        return counters;
    }

    /**
     * Stops the read-back threads (actions in flight may fail), the resolver and the opener, and frees the counters.
     * Closes nothing it does not own.
     */
    public void close()
    {
        WorkerThreads.stop(workers);
        CloseHelper.closeAll(resolver, opener, counters);
    }

    private <R> CompletableFuture<R> answer(final CachedNode<P> node, final OutputReader<R> reader,
        final ReadPlacement placement, final Resolved resolved, final boolean rematerialized)
    {
        if (resolved instanceof Resolved.Uncached)
        {
            return computeInline(node, reader, placement);
        }
        final Resolved.Cached cached = (Resolved.Cached) resolved;
        if (cached.source() == Resolved.Source.STALE)
        {
            final String jobId = cached.entry().jobId();
            return readOnce(cached.entry().schema(), cached.entry().locations(), reader, placement)
                .whenComplete((result, readError) -> resolver.cleanJob(jobId));
        }
        final CacheKey key = cached.key();
        try (PartitionViews views = opener.openAll(cached.entry().locations(), placement))
        {
            return CompletableFuture.completedFuture(reader.read(cached.entry().schema(), views));
        }
        catch (final FetchFailedException ex)
        {
            // Drop this materialization only (not a newer one another action made), whatever happens next.
            final CompletableFuture<Boolean> dropped = resolver.readFailed(key, cached.entry().jobId());
            if (rematerialized)
            {
                return dropped.thenCompose(ignored -> CompletableFuture.failedFuture(ex));
            }
            counters.rematerializations.increment();
            return dropped.thenCompose(ignored -> resolver.resolveKeepingStale(key, node.input(), true))
                .thenComposeAsync(again -> answer(node, reader, placement, again, true), workers);
        }
        catch (final RuntimeException ex)
        {
            return CompletableFuture.failedFuture(ex);
        }
    }

    private <R> CompletableFuture<R> computeInline(
        final CachedNode<P> node, final OutputReader<R> reader, final ReadPlacement placement)
    {
        final String jobId = resolver.nextJobId() + "-inline";
        return resolver.runUnregistered(node.key(), jobId, node.input()).thenComposeAsync(output ->
            readOnce(output.schema(), output.locations(), reader, placement)
                .whenComplete((result, readError) -> resolver.cleanJob(jobId)), workers);
    }

    private <R> CompletableFuture<R> readOnce(final DatasetSchema schema, final List<PartitionLocation> locations,
        final OutputReader<R> reader, final ReadPlacement placement)
    {
        try (PartitionViews views = opener.openAll(locations, placement))
        {
            return CompletableFuture.completedFuture(reader.read(schema, views));
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

    /**
     * Configuration of a {@link CachedDatasetCoordinator}: the driver-side and executor-side halves it composes,
     * {@code new Context<P>().resolver(new DatasetResolver.Context<P>().registry(r).jobRunner(j).cleanup(c))
     * .opener(new PartitionOpener.Context().on(id, store).remoteExecutors(clients))}. The coordinator's counters
     * replace theirs, allocated where the resolver's context says ({@link DatasetResolver.Context#countersManager}).
     *
     * @param <P> the engine's plan type.
     */
    public static final class Context<P>
    {
        private final ConcludeOnce concluded = new ConcludeOnce();
        private DatasetResolver.Context<P> resolver;
        private PartitionOpener.Context opener;
        private int workerThreads = 4;

        /**
         * The driver-side half: registry, job runner, cleanup, abort policy, rounds, job id prefix.
         *
         * @param resolver the resolver's configuration (concluded when the coordinator launches it).
         * @return this.
         */
        public Context<P> resolver(final DatasetResolver.Context<P> resolver)
        {
            this.resolver = resolver;
            return this;
        }

        /**
         * The executor-side half: where the query reads locally by default, the payload clients, the fetch deadline,
         * local verification, the fetch failure listener.
         *
         * @param opener the opener's configuration (concluded when the coordinator launches it).
         * @return this.
         */
        public Context<P> opener(final PartitionOpener.Context opener)
        {
            this.opener = opener;
            return this;
        }

        /**
         * Threads that run read-backs (they block on remote fetches). Default 4.
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
         * Validates the configuration (the halves validate theirs when they launch).
         *
         * @return this.
         * @throws IllegalArgumentException naming the first missing or bad setting.
         */
        public Context<P> conclude()
        {
            concluded.conclude(this);
            Ids.requireNonNull(resolver, "resolver");
            Ids.requireNonNull(opener, "opener");
            WorkerThreads.requireCount(workerThreads);
            return this;
        }
    }
}
