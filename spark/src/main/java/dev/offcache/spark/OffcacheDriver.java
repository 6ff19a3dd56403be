package dev.offcache.spark;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.agrona.CloseHelper;
import org.apache.spark.SparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.offcache.dataset.DatasetResolver;
import dev.offcache.dataset.Resolved;
import dev.offcache.dataset.StageCleanup;
import dev.offcache.registry.api.AsyncCacheRegistry;
import dev.offcache.registry.clustered.RegistryClusterClient;
import dev.offcache.registry.front.CacheRegistry;
import dev.offcache.registry.journal.JournalChangeLog;
import dev.offcache.registry.state.CacheEntry;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.spark.catalyst.MaterializeInput;
import dev.offcache.spark.catalyst.SparkJobRunner;

/**
 * offcache on the driver: the registry (in memory, journaled or the cluster client, {@link OffcacheSettings#REGISTRY}),
 * the stage cleanup, the {@link DatasetResolver} the Catalyst scan calls, and the {@link ExecutorDirectory} fed by
 * executor registrations, heartbeats and Spark's executor-removed events. One per application, started by
 * {@link OffcachePlugin}'s driver plugin; owns everything it starts.
 */
public final class OffcacheDriver implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(OffcacheDriver.class);
    private static volatile OffcacheDriver current;

    private final SparkContext sc;
    private final OffcacheSettings settings;
    private final ExecutorDirectory directory = new ExecutorDirectory();
    private final LosingAttempts losingAttempts;
    private final StageCleanup cleanup;
    private final Salvage salvage;
    private final CacheRegistry local;
    private final RegistryClusterClient clustered;
    private final AsyncCacheRegistry registry;
    private final DatasetResolver<MaterializeInput> resolver;
    private final ScheduledExecutorService monitor;
    private final Set<String> sessions = ConcurrentHashMap.newKeySet();
    /** Executors whose offcache did not start, with why ({@link Messages.Unavailable}); until Spark removes them. */
    private final Map<String, String> unavailable = new ConcurrentHashMap<>();
    private final AtomicLong recomputes = new AtomicLong();
    private final AtomicLong fallbacks = new AtomicLong();

    private OffcacheDriver(final SparkContext sc, final OffcacheSettings settings)
    {
        this.sc = sc;
        this.settings = settings;
        this.losingAttempts = new LosingAttempts(directory, (event) -> sc.listenerBus().post(event));
        this.cleanup = new StageCleanup(directory);
        this.salvage = new Salvage(directory, cleanup, TimeUnit.MILLISECONDS.toNanos(settings.salvageHoldMs));
        CacheRegistry localRegistry = null;
        RegistryClusterClient clusterClient = null;
        try
        {
            switch (settings.registry)
            {
                case CLUSTER:
                    clusterClient = RegistryClusterClient.connect(new RegistryClusterClient.Context()
                        .ingressEndpoints(settings.clusterIngress)
                        .egressChannel(settings.clusterEgress)
                        .removalListener(salvage));
                    final RegistryClusterClient client = clusterClient;
                    cleanup.pinnedStages(() -> client.pinnedStages().join());
                    break;
                case JOURNAL:
                    localRegistry = CacheRegistry.launch(new CacheRegistry.Context()
                        .liveExecutors(directory)
                        .removalListener(salvage)
                        .changeLog(JournalChangeLog.open(
                            new JournalChangeLog.Context().directory(Path.of(settings.journalDir)))));
                    cleanup.pinnedStages(localRegistry::pinnedStages);
                    break;
                default:
                    localRegistry = CacheRegistry.launch(new CacheRegistry.Context()
                        .liveExecutors(directory)
                        .removalListener(salvage));
                    cleanup.pinnedStages(localRegistry::pinnedStages);
                    break;
            }
            this.local = localRegistry;
            this.clustered = clusterClient;
            this.registry = localRegistry != null ? localRegistry : clusterClient;
            this.resolver = DatasetResolver.launch(new DatasetResolver.Context<MaterializeInput>()
                .registry(registry)
                .jobRunner(losingAttempts.watching(new SparkJobRunner(sc, salvage)))
                .cleanup(cleanup)
                .jobIdPrefix("spark"));
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietCloseAll(localRegistry, clusterClient, cleanup);
            throw ex;
        }
        this.monitor = Executors.newSingleThreadScheduledExecutor(runnable ->
        {
            final Thread thread = new Thread(runnable, "offcache-executor-monitor");
            thread.setDaemon(true);
            return thread;
        });
        monitor.scheduleWithFixedDelay(this::expireSilentExecutors, settings.heartbeatIntervalMs,
            settings.heartbeatIntervalMs, TimeUnit.MILLISECONDS);
        monitor.scheduleWithFixedDelay(() -> salvage.expire(System.nanoTime()), 1, 1, TimeUnit.SECONDS);
    }

    static OffcacheDriver start(final SparkContext sc, final OffcacheSettings settings)
    {
        final OffcacheDriver driver = new OffcacheDriver(sc, settings);
        current = driver;
        LOG.info("offcache driver started: registry {}", settings.registry);
        return driver;
    }

    /**
     * The application's driver component, when the plugin runs in this JVM.
     *
     * @return it, or null (no plugin, or on an executor).
     */
    public static OffcacheDriver current()
    {
        return current;
    }

    /**
     * Resolves a cached node for one action (see {@link DatasetResolver#resolve}).
     *
     * @param key   the node's key.
     * @param input the node's lineage, materialized as its own job on a miss.
     * @return the locations or {@link Resolved.Uncached}.
     */
    public CompletableFuture<Resolved> resolve(final CacheKey key, final MaterializeInput input)
    {
        if (!unavailable.isEmpty() && directory.members().isEmpty())
        {
            // Every materialization task would fail on an executor without offcache: no job that cannot succeed.
            fallbacks.incrementAndGet();
            return CompletableFuture.completedFuture(new Resolved.Uncached(key,
                "offcache did not start on executors " + new TreeSet<>(unavailable.keySet()) +
                " and runs on none"));
        }
        sessions.add(key.sessionId());
        return resolver.resolve(key, input);
    }

    /**
     * The host an executor registered with, for read-back locality.
     *
     * @param executorId the executor.
     * @return its host, or null when it is not registered.
     */
    public String hostOf(final String executorId)
    {
        return directory.hostOf(executorId);
    }

    /**
     * Counts an action that computed a cached node from its lineage because offcache could not serve it.
     */
    public void countFallback()
    {
        fallbacks.incrementAndGet();
    }

    /**
     * The application's SparkContext.
     *
     * @return it.
     */
    public SparkContext sparkContext()
    {
        return sc;
    }

    /** Executors registered and not removed, with their registration (tests kill them by pid). */
    java.util.Map<String, Messages.Register> registeredExecutors()
    {
        final java.util.Map<String, Messages.Register> registered = new java.util.TreeMap<>();
        for (final ExecutorDirectory.Member member : directory.members())
        {
            registered.put(member.registration.executorId(), member.registration);
        }
        return registered;
    }

    CompletableFuture<CacheEntry> lookup(final CacheKey key)
    {
        return registry.lookup(key);
    }

    CompletableFuture<Boolean> uncache(final CacheKey key)
    {
        salvage.release(key);
        return resolver.invalidate(key);
    }

    CompletableFuture<Integer> removeSession(final String sessionId)
    {
        sessions.remove(sessionId);
        salvage.releaseSession(sessionId);
        return resolver.removeSession(sessionId);
    }

    OffcacheCounters counters()
    {
        final OffcacheExecutor inProcess = OffcacheExecutor.current();
        long localReads = 0;
        long remoteReads = 0;
        long open = 0;
        for (final ExecutorDirectory.Member member : directory.members())
        {
            final Messages.Heartbeat heartbeat = member.lastHeartbeat;
            if (inProcess != null && inProcess.executorId().equals(member.registration.executorId()))
            {
                continue;
            }
            if (heartbeat != null)
            {
                localReads += heartbeat.localReads();
                remoteReads += heartbeat.remoteReads();
                open += heartbeat.openPartitions();
            }
        }
        if (inProcess != null)
        {
            localReads += inProcess.opener().counters().localPartitionReads();
            remoteReads += inProcess.opener().counters().remotePartitionReads();
            open += inProcess.opener().openCount();
        }
        final var resolved = resolver.counters();
        return new OffcacheCounters(resolved.actions(), resolved.materializationJobs(), resolved.hits(),
            resolved.waits(), resolved.failedJobs(), localReads, remoteReads, resolver.invalidations(),
            recomputes.get(), fallbacks.get() + resolved.inlineComputations(), open, salvage.adopted());
    }

    Object receive(final Object message)
    {
        if (message instanceof Messages.Heartbeat heartbeat)
        {
            final ExecutorDirectory.Member member = directory.member(heartbeat.executorId());
            if (member == null)
            {
                return new Messages.HeartbeatReply(List.of(), directory.endpoints(), false);
            }
            member.lastSeenNs = System.nanoTime();
            member.lastHeartbeat = heartbeat;
            return new Messages.HeartbeatReply(directory.drain(member), directory.endpoints(), true);
        }
        if (message instanceof Messages.Register registration)
        {
            register(registration);
            return Boolean.TRUE;
        }
        if (message instanceof Messages.ReadFailure failure)
        {
            readFailed(failure);
            return null;
        }
        if (message instanceof Messages.Unavailable executor)
        {
            executorUnavailable(executor);
            return null;
        }
        LOG.warn("offcache driver ignored an unknown message {}", message.getClass().getName());
        return null;
    }

    void register(final Messages.Register registration)
    {
        directory.register(registration, System.nanoTime());
        if (clustered != null)
        {
            clustered.executorLive(registration.executorId(), true).join();
        }
        LOG.info("offcache executor {} registered: host {}, payload server {} stream {}, pid {}",
            registration.executorId(), registration.host(), registration.channel(), registration.streamId(),
            registration.pid());
    }

    /**
     * An executor's offcache did not start: said once in the driver's log, and while no executor runs offcache
     * every action computes cached nodes from their lineage without trying a materialization.
     *
     * @param executor the report.
     */
    void executorUnavailable(final Messages.Unavailable executor)
    {
        unavailable.put(executor.executorId(), executor.reason());
        LOG.error("offcache did not start on executor {} ({}): its tasks compute cached datasets from their lineage; " +
            "see that executor's log", executor.executorId(), executor.reason());
    }

    void readFailed(final Messages.ReadFailure failure)
    {
        recomputes.incrementAndGet();
        LOG.warn("offcache: executor {} could not read partition {} of {} ({}), recomputed it: {}",
            failure.executorId(), failure.partition(), failure.cacheId(), failure.jobId(), failure.cause());
        resolver.readFailed(new CacheKey(failure.sessionId(), failure.cacheId()), failure.jobId());
    }

    void executorLost(final String executorId, final String why)
    {
        unavailable.remove(executorId);
        final ExecutorDirectory.Member lost = directory.remove(executorId);
        if (lost == null)
        {
            return;
        }
        LOG.info("offcache executor {} lost ({}): its cached datasets are invalidated", executorId, why);
        directory.sweepDeadExecutorsOn(lost.registration.host());
        if (clustered != null)
        {
            clustered.executorLive(executorId, false).whenComplete((ignored, error) ->
                resolver.executorLost(executorId));
            return;
        }
        resolver.executorLost(executorId);
    }

    /**
     * The listener that deletes losing materialization attempts' files (the plugin adds it to Spark's bus).
     *
     * @return it.
     */
    SparkListener losingAttempts()
    {
        return losingAttempts;
    }

    private void expireSilentExecutors()
    {
        final long now = System.nanoTime();
        final long timeoutNs = TimeUnit.MILLISECONDS.toNanos(settings.heartbeatTimeoutMs);
        for (final ExecutorDirectory.Member member : directory.members())
        {
            final OffcacheExecutor inProcess = OffcacheExecutor.current();
            final String id = member.registration.executorId();
            final boolean here = inProcess != null && inProcess.executorId().equals(id);
            if (!here && now - member.lastSeenNs > timeoutNs)
            {
                executorLost(id, "no heartbeat for " + settings.heartbeatTimeoutMs + " ms");
            }
        }
    }

    private void awaitCleanup()
    {
        // The removals' deletions ask the registry for its pins: they run before the registry (the cluster client
        // above all, which fails every call once closed) goes.
        try
        {
            if (!cleanup.awaitIdle(10_000))
            {
                LOG.warn("offcache: stage cleanup did not finish within 10 s of shutdown");
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    void applicationEnded()
    {
        for (final String session : List.copyOf(sessions))
        {
            removeSession(session).handle((removed, error) ->
            {
                // The application ends either way; a session whose datasets stay registered must show in the log.
                if (error != null)
                {
                    LOG.warn("offcache: removing session {} at the application's end failed: {}", session,
                        error.toString());
                }
                return null;
            }).join();
        }
        salvage.releaseSession(null);
    }

    /**
     * Removes every session's datasets, then stops the resolver, the registry and the cleanup.
     */
    public void close()
    {
        if (current == this)
        {
            current = null;
        }
        monitor.shutdownNow();
        try
        {
            applicationEnded();
        }
        catch (final RuntimeException ex)
        {
            LOG.warn("offcache: removing the sessions at shutdown failed", ex);
        }
        awaitCleanup();
        CloseHelper.quietCloseAll(resolver, local, clustered, cleanup);
    }
}
