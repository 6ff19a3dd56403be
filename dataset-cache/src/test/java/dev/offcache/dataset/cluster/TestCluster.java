package dev.offcache.dataset.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import org.agrona.concurrent.CachedEpochClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;

import dev.offcache.registry.clustered.RegistryClusterClient;
import dev.offcache.dataset.AbortPolicy;
import dev.offcache.dataset.CachedDatasetCoordinator;
import dev.offcache.dataset.DatasetResolver;
import dev.offcache.dataset.ExecutorStages;
import dev.offcache.dataset.PartitionOpener;
import dev.offcache.dataset.StageCleanup;
import dev.offcache.registry.retention.RetentionPolicy;
import dev.offcache.registry.api.AsyncCacheRegistry;
import dev.offcache.registry.front.CacheRegistry;
import dev.offcache.registry.api.RemovalListener;
import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.registry.state.StageRef;
import dev.offcache.transport.client.PayloadClient;
import dev.offcache.transport.media.AeronMedia;

/**
 * A scheduler (registry + coordinator + toy job runner) and N executors, each with its own work dir, shuffle store
 * and Aeron payload server. Executor {@code exec-0} is always in this JVM and is where read-back runs (its partitions
 * are read locally); the next ones are in this JVM too (IPC) or, for {@code childJvms > 0}, the last ones are child
 * JVMs (UDP on 127.0.0.1) whose death is noticed through {@link Process#onExit()} and reported as executor loss.
 */
final class TestCluster implements AutoCloseable
{
    final AeronMedia media;
    final Map<String, ExecutorNode> executors = new TreeMap<>();
    final Set<String> live = ConcurrentHashMap.newKeySet();
    final Map<String, PayloadClient> clients = new ConcurrentHashMap<>();
    final Map<String, AtomicLong> clientLookups = new ConcurrentHashMap<>();
    final CachedEpochClock clock = new CachedEpochClock();
    final UnsafeBuffer countersMetadata =
        new UnsafeBuffer(ByteBuffer.allocateDirect(32 * CountersReader.METADATA_LENGTH));
    final UnsafeBuffer countersValues =
        new UnsafeBuffer(ByteBuffer.allocateDirect(32 * CountersReader.COUNTER_LENGTH));
    final ToyJobRunner jobs;
    final StageCleanup cleanup;
    /** The in-process registry, or null when the coordinator runs on a clustered one. */
    final CacheRegistry registry;
    /** The clustered registry's client (owned), or null. */
    final RegistryClusterClient clustered;
    final CachedDatasetCoordinator<ToyDataset> coordinator;
    /** What the coordinator's fetch failure listener heard, in order. */
    final List<FetchFailure> fetchFailures = new CopyOnWriteArrayList<>();
    /** Executors whose client the read-back cannot get (as if the engine had none for them). */
    final Set<String> unreachable = ConcurrentHashMap.newKeySet();

    TestCluster(final Path root, final int inProcess, final int childJvms, final AbortPolicy abortPolicy,
        final RetentionPolicy retentionPolicy)
    {
        this(root, new Options().executors(inProcess, childJvms).abortPolicy(abortPolicy)
            .retentionPolicy(retentionPolicy));
    }

    /**
     * A cluster; with {@code watchChildren} false a child's death is not reported (a scheduler that has not yet
     * missed a heartbeat), though jobs still avoid dead executors.
     */
    TestCluster(final Path root, final int inProcess, final int childJvms, final AbortPolicy abortPolicy,
        final RetentionPolicy retentionPolicy, final boolean watchChildren)
    {
        this(root, new Options().executors(inProcess, childJvms).abortPolicy(abortPolicy)
            .retentionPolicy(retentionPolicy).watchChildren(watchChildren));
    }

    /**
     * A cluster whose coordinator runs on a replicated registry (Aeron Cluster) instead of an in-process one: the
     * client comes from {@code connect}, given the cluster's stage cleanup as its removal listener, and is owned by
     * this cluster; executor loss is replicated to it as well.
     */
    TestCluster(final Path root, final int inProcess, final AbortPolicy abortPolicy,
        final Function<RemovalListener, RegistryClusterClient> connect)
    {
        this(root, new Options().executors(inProcess, 0).abortPolicy(abortPolicy).connect(connect));
    }

    TestCluster(final Path root, final Options options)
    {
        final int inProcess = options.inProcess;
        final int childJvms = options.childJvms;
        final boolean watchChildren = options.watchChildren;
        final Function<RemovalListener, RegistryClusterClient> connect = options.connect;
        clock.update(System.currentTimeMillis());
        media = AeronMedia.launch(new AeronMedia.Context()
            .publicationLingerTimeoutNs(TimeUnit.MILLISECONDS.toNanos(200))
            .imageLivenessTimeoutNs(TimeUnit.SECONDS.toNanos(2)));
        try
        {
            for (int i = 0; i < inProcess + childJvms; i++)
            {
                final String id = "exec-" + i;
                final ExecutorNode node = i < inProcess ?
                    new InProcessExecutor(id, root.resolve(id), media, 7101 + i) :
                    new ChildJvmExecutor(id, root.resolve(id), freeUdpPort(), root);
                executors.put(id, node);
                live.add(id);
                clients.put(id, PayloadClient.connect(new PayloadClient.Context().aeron(media.aeron())
                    .requestChannel(node.requestChannel()).requestStreamId(node.requestStreamId())
                    .fetchTimeoutNs(options.fetchTimeoutNs)));
            }
            jobs = new ToyJobRunner(this::liveExecutors);
            cleanup = new StageCleanup(new ClusterStages());
            final AsyncCacheRegistry front;
            if (connect == null)
            {
                clustered = null;
                registry = CacheRegistry.launch(new CacheRegistry.Context()
                    .liveExecutors(live::contains)
                    .removalListener(cleanup)
                    .clock(clock)
                    .retentionPolicy(options.retentionPolicy));
                cleanup.pinnedStages(registry::pinnedStages);
                front = options.registryView.apply(registry);
            }
            else
            {
                registry = null;
                clustered = connect.apply(cleanup);
                cleanup.pinnedStages(() -> clustered.pinnedStages().join());
                front = clustered;
            }
            coordinator = CachedDatasetCoordinator.launch(new CachedDatasetCoordinator.Context<ToyDataset>()
                .resolver(new DatasetResolver.Context<ToyDataset>()
                    .registry(front)
                    .jobRunner(jobs)
                    .cleanup(cleanup)
                    .abortPolicy(options.abortPolicy)
                    .countersManager(new CountersManager(countersMetadata, countersValues)))
                .opener(new PartitionOpener.Context()
                    .on("exec-0", ((InProcessExecutor) executors.get("exec-0")).store())
                    .remoteExecutors(id ->
                    {
                        clientLookups.computeIfAbsent(id, k -> new AtomicLong()).incrementAndGet();
                        return unreachable.contains(id) ? null : clients.get(id);
                    })
                    .fetchFailureListener((location, cause) -> fetchFailures.add(new FetchFailure(location, cause)))
                    .fetchTimeoutNs(options.fetchTimeoutNs)));
            for (final ExecutorNode node : executors.values())
            {
                if (watchChildren && node instanceof ChildJvmExecutor child)
                {
                    child.process().onExit().thenRun(() -> executorLost(child.id()));
                }
            }
        }
        catch (final RuntimeException ex)
        {
            closeQuietly();
            throw ex;
        }
    }

    /**
     * The scheduler learns an executor is gone: no new task goes there and its entries are invalidated.
     */
    void executorLost(final String id)
    {
        if (live.remove(id))
        {
            if (clustered != null)
            {
                // the replicated registry validates hits against its own, replicated, live view
                clustered.executorLive(id, false).join();
            }
            coordinator.executorLost(id).join();
        }
    }

    List<ExecutorNode> liveExecutors()
    {
        final List<ExecutorNode> nodes = new ArrayList<>();
        for (final ExecutorNode node : executors.values())
        {
            if (live.contains(node.id()) && node.isAlive())
            {
                nodes.add(node);
            }
        }
        return nodes;
    }

    List<Path> childAeronDirs()
    {
        final List<Path> dirs = new ArrayList<>();
        for (final ExecutorNode node : executors.values())
        {
            if (node instanceof ChildJvmExecutor child)
            {
                dirs.add(child.aeronDir());
            }
        }
        return dirs;
    }

    /**
     * A coordinator counter read the way another process would: by its label, through a {@link CountersReader}.
     */
    long counter(final String label)
    {
        final CountersReader reader = new CountersReader(countersMetadata, countersValues);
        final long[] value = {-1};
        reader.forEach((counterId, typeId, keyBuffer, counterLabel) ->
        {
            if (counterLabel.equals(label))
            {
                value[0] = reader.getCounterValue(counterId);
            }
        });
        return value[0];
    }

    long lookups(final String executorId)
    {
        final AtomicLong count = clientLookups.get(executorId);
        return count == null ? 0 : count.get();
    }

    public void close()
    {
        closeQuietly();
    }

    private void closeQuietly()
    {
        final List<AutoCloseable> parts = new ArrayList<>();
        parts.add(coordinator);
        parts.add(registry);
        parts.add(clustered);
        parts.add(cleanup);
        parts.add(jobs);
        parts.addAll(clients.values());
        parts.addAll(executors.values());
        parts.add(media);
        RuntimeException failure = null;
        for (final AutoCloseable part : parts)
        {
            if (part == null)
            {
                continue;
            }
            try
            {
                part.close();
            }
            catch (final Exception ex)
            {
                if (failure == null)
                {
                    failure = new IllegalStateException("cluster close failed", ex);
                }
            }
        }
        if (failure != null)
        {
            throw failure;
        }
    }

    /**
     * One partition the read-back could not read, as the engine's listener heard it.
     */
    record FetchFailure(PartitionLocation location, Throwable cause)
    {
    }

    /**
     * How to build a cluster.
     */
    static final class Options
    {
        int inProcess = 2;
        int childJvms;
        AbortPolicy abortPolicy = AbortPolicy.CLAIM_AND_MATERIALIZE;
        RetentionPolicy retentionPolicy = RetentionPolicy.none();
        boolean watchChildren = true;
        Function<RemovalListener, RegistryClusterClient> connect;
        long fetchTimeoutNs = TimeUnit.SECONDS.toNanos(3);
        Function<CacheRegistry, AsyncCacheRegistry> registryView = registry -> registry;

        /** In-process executors (at least one: exec-0 is where read-back runs) and child-JVM executors after them. */
        Options executors(final int inProcess, final int childJvms)
        {
            this.inProcess = inProcess;
            this.childJvms = childJvms;
            return this;
        }

        Options abortPolicy(final AbortPolicy abortPolicy)
        {
            this.abortPolicy = abortPolicy;
            return this;
        }

        Options retentionPolicy(final RetentionPolicy retentionPolicy)
        {
            this.retentionPolicy = retentionPolicy;
            return this;
        }

        Options watchChildren(final boolean watchChildren)
        {
            this.watchChildren = watchChildren;
            return this;
        }

        Options connect(final Function<RemovalListener, RegistryClusterClient> connect)
        {
            this.connect = connect;
            return this;
        }

        /** The coordinator's fetch deadline and the payload clients' default. */
        Options fetchTimeoutNs(final long fetchTimeoutNs)
        {
            this.fetchTimeoutNs = fetchTimeoutNs;
            return this;
        }

        /** What the coordinator sees of the in-process registry (a wrapper that interleaves other actions). */
        Options registryView(final Function<CacheRegistry, AsyncCacheRegistry> registryView)
        {
            this.registryView = registryView;
            return this;
        }
    }

    static int freeUdpPort()
    {
        try (DatagramSocket socket = new DatagramSocket(0, InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private final class ClusterStages implements ExecutorStages
    {
        public Collection<String> executorIds()
        {
            return liveExecutors().stream().map(ExecutorNode::id).toList();
        }

        public void deleteJob(final String executorId, final String jobId, final Set<StageRef> keep)
        {
            executors.get(executorId).deleteJob(jobId, keep);
        }

        public void deleteStage(final String executorId, final StageRef stage)
        {
            executors.get(executorId).deleteStage(stage);
        }
    }
}
