package dev.offcache.registry.clustered;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.aeron.CommonContext;
import io.aeron.archive.Archive;
import io.aeron.archive.ArchiveThreadingMode;
import io.aeron.archive.client.AeronArchive;
import io.aeron.cluster.ClusterControl;
import io.aeron.cluster.ClusteredMediaDriver;
import io.aeron.cluster.ConsensusModule;
import io.aeron.cluster.client.ClusterEvent;
import io.aeron.cluster.service.Cluster;
import io.aeron.cluster.service.ClusteredServiceContainer;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import org.agrona.CloseHelper;
import org.agrona.IoUtil;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NoOpLock;
import org.agrona.concurrent.ShutdownSignalBarrier;
import org.agrona.concurrent.status.AtomicCounter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.offcache.core.config.ConcludeOnce;
import dev.offcache.core.media.EmbeddedDrivers;
import dev.offcache.registry.retention.RetentionPolicy;
import dev.offcache.registry.state.Ids;

/**
 * One member of the clustered registry: an embedded media driver, archive and consensus module
 * ({@link ClusteredMediaDriver}) plus the service container running a {@link RegistryClusteredService}, all on
 * one member directory and one port range.
 *
 * <p>Ports: member {@code i} listens on {@code portBase + i * PORTS_PER_MEMBER + offset} of its host, offsets
 * {@link #INGRESS_PORT_OFFSET} (clients), {@link #CONSENSUS_PORT_OFFSET}, {@link #LOG_PORT_OFFSET},
 * {@link #CATCHUP_PORT_OFFSET}, {@link #ARCHIVE_PORT_OFFSET} and {@link #LOG_CONTROL_PORT_OFFSET}.
 *
 * <p>Restart after {@code kill -9}: the member holds an exclusive OS lock on {@code member.lock} in its directory
 * while it runs. At launch, if it gets the lock, no process of this member is alive, so the Aeron mark files left by
 * the killed process ({@code archive-mark.dat}, {@code cluster-mark*.dat}, which would otherwise block the restart
 * for the driver timeout) are stale and are deleted. If the lock is held, launch fails at once.
 *
 * <p>Owns every Aeron component it starts and the lock; {@link #close()} releases them.
 */
public final class RegistryClusterMember implements AutoCloseable
{
    /** Ports per member. */
    public static final int PORTS_PER_MEMBER = 10;
    /** Client ingress. */
    public static final int INGRESS_PORT_OFFSET = 0;
    /** Consensus between members. */
    public static final int CONSENSUS_PORT_OFFSET = 1;
    /** Log replication (follower endpoint). */
    public static final int LOG_PORT_OFFSET = 2;
    /** Catch-up of a lagging follower. */
    public static final int CATCHUP_PORT_OFFSET = 3;
    /** Archive control (replication of logs and snapshots between members). */
    public static final int ARCHIVE_PORT_OFFSET = 4;
    /** The leader's log control endpoint (manual MDC). */
    public static final int LOG_CONTROL_PORT_OFFSET = 5;

    private static final Logger LOG = LoggerFactory.getLogger(RegistryClusterMember.class);

    private final Context ctx;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final RegistryClusteredService service;
    private ClusteredMediaDriver driver;
    private ClusteredServiceContainer container;
    private volatile boolean closed;

    private RegistryClusterMember(final Context ctx)
    {
        this.ctx = ctx;
        final File dir = ctx.memberDir;
        IoUtil.ensureDirectoryExists(dir, "member dir");
        try
        {
            lockChannel = FileChannel.open(dir.toPath().resolve("member.lock"),
                StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        FileLock acquired = null;
        try
        {
            acquired = lockChannel.tryLock();
        }
        catch (final IOException | OverlappingFileLockException ex)
        {
            acquired = null;
        }
        if (acquired == null)
        {
            CloseHelper.quietClose(lockChannel);
            throw new IllegalStateException("registry cluster member " + ctx.memberId + " is already running in " +
                dir + " (member.lock is held)");
        }
        lock = acquired;
        deleteStaleMarkFiles(dir);
        service = new RegistryClusteredService(ctx.retentionPolicy, ctx.clientRetentionMs, ctx.maxEgressChunkBytes);
        try
        {
            start();
        }
        catch (final RuntimeException | Error ex)
        {
            close();
            throw ex;
        }
    }

    /**
     * Starts a member.
     *
     * @param ctx the configuration; concluded here.
     * @return the running member.
     */
    public static RegistryClusterMember launch(final Context ctx)
    {
        return new RegistryClusterMember(ctx.conclude());
    }

    /**
     * Runs one member until SIGINT/SIGTERM: {@code <memberId> <host0,host1,host2> <memberDir> [portBase]}.
     *
     * @param args the arguments.
     */
    public static void main(final String[] args)
    {
        if (args.length < 3)
        {
            System.err.println("usage: RegistryClusterMember <memberId> <host0,host1,host2> <memberDir> [portBase]");
            System.exit(2);
        }
        final Context ctx = new Context()
            .memberId(Integer.parseInt(args[0]))
            .hosts(List.of(args[1].split(",")))
            .memberDir(new File(args[2]));
        if (args.length > 3)
        {
            ctx.portBase(Integer.parseInt(args[3]));
        }
        // The barrier is closed last: Agrona's shutdown hook waits for that close, so the JVM exits on SIGINT or
        // SIGTERM only once the member has closed (and never, were the barrier left open).
        try (ShutdownSignalBarrier barrier = new ShutdownSignalBarrier();
            RegistryClusterMember member = launch(ctx))
        {
            LOG.info("registry cluster member {} running in {}", member.memberId(), args[2]);
            barrier.await();
            LOG.info("registry cluster member {} stopping on a signal", member.memberId());
        }
    }

    /**
     * The {@code clusterMembers} string Aeron expects, for the given hosts (member id = index).
     *
     * @param hosts    one host per member.
     * @param portBase the first port.
     * @return {@code id,ingress,consensus,log,catchup,archive|...}.
     */
    public static String clusterMembers(final List<String> hosts, final int portBase)
    {
        final StringBuilder out = new StringBuilder();
        for (int i = 0; i < hosts.size(); i++)
        {
            final String host = hosts.get(i);
            out.append(i)
                .append(',').append(endpoint(host, portBase, i, INGRESS_PORT_OFFSET))
                .append(',').append(endpoint(host, portBase, i, CONSENSUS_PORT_OFFSET))
                .append(',').append(endpoint(host, portBase, i, LOG_PORT_OFFSET))
                .append(',').append(endpoint(host, portBase, i, CATCHUP_PORT_OFFSET))
                .append(',').append(endpoint(host, portBase, i, ARCHIVE_PORT_OFFSET))
                .append('|');
        }
        return out.toString();
    }

    /**
     * The client-side ingress endpoints of the cluster ({@code 0=host:port,1=host:port,...}), for
     * {@link RegistryClusterClient.Context#ingressEndpoints(String)}.
     *
     * @param hosts    one host per member.
     * @param portBase the first port.
     * @return the endpoints string.
     */
    public static String ingressEndpoints(final List<String> hosts, final int portBase)
    {
        final StringBuilder out = new StringBuilder();
        for (int i = 0; i < hosts.size(); i++)
        {
            if (i > 0)
            {
                out.append(',');
            }
            out.append(i).append('=').append(endpoint(hosts.get(i), portBase, i, INGRESS_PORT_OFFSET));
        }
        return out.toString();
    }

    private static String endpoint(final String host, final int portBase, final int memberId, final int offset)
    {
        return host + ":" + (portBase + memberId * PORTS_PER_MEMBER + offset);
    }

    private void start()
    {
        final File dir = ctx.memberDir;
        final String host = ctx.hosts.get(ctx.memberId);
        final String aeronDir = ctx.aeronDirectoryName;

        final MediaDriver.Context driverCtx = EmbeddedDrivers.context(aeronDir, ctx.threadingMode, ctx::idleStrategy);

        final String localControl = "aeron:ipc?term-length=64k";
        final Archive.Context archiveCtx = new Archive.Context()
            .aeronDirectoryName(aeronDir)
            .archiveDir(new File(dir, "archive"))
            .controlChannel("aeron:udp?term-length=64k|endpoint=" +
                endpoint(host, ctx.portBase, ctx.memberId, ARCHIVE_PORT_OFFSET))
            .localControlChannel(localControl)
            .replicationChannel("aeron:udp?endpoint=" + host + ":0")
            .recordingEventsEnabled(false)
            .threadingMode(ctx.archiveThreadingMode)
            .idleStrategySupplier(ctx::idleStrategy)
            .segmentFileLength(Math.max(ctx.logTermLength * 4, 1 << 20))
            .deleteArchiveOnStart(false);

        final AeronArchive.Context archiveClient = new AeronArchive.Context()
            .lock(NoOpLock.INSTANCE)
            .controlRequestChannel(localControl)
            .controlRequestStreamId(archiveCtx.localControlStreamId())
            .controlResponseChannel(localControl)
            .aeronDirectoryName(aeronDir);

        final ConsensusModule.Context consensusCtx = new ConsensusModule.Context()
            .clusterId(ctx.clusterId)
            .clusterMemberId(ctx.memberId)
            .clusterMembers(clusterMembers(ctx.hosts, ctx.portBase))
            .clusterDir(new File(dir, "cluster"))
            .aeronDirectoryName(aeronDir)
            .ingressChannel("aeron:udp?term-length=" + ctx.ingressTermLength)
            .logChannel("aeron:udp?term-length=" + ctx.logTermLength + "|control-mode=manual|control=" +
                endpoint(host, ctx.portBase, ctx.memberId, LOG_CONTROL_PORT_OFFSET))
            .replicationChannel("aeron:udp?endpoint=" + host + ":0")
            .archiveContext(archiveClient.clone())
            .serviceCount(1)
            .idleStrategySupplier(ctx::idleStrategy)
            .leaderHeartbeatTimeoutNs(TimeUnit.MILLISECONDS.toNanos(ctx.leaderHeartbeatTimeoutMs))
            .leaderHeartbeatIntervalNs(TimeUnit.MILLISECONDS.toNanos(ctx.leaderHeartbeatIntervalMs))
            .electionTimeoutNs(TimeUnit.MILLISECONDS.toNanos(ctx.electionTimeoutMs))
            .startupCanvassTimeoutNs(TimeUnit.MILLISECONDS.toNanos(ctx.startupCanvassTimeoutMs))
            .sessionTimeoutNs(TimeUnit.MILLISECONDS.toNanos(ctx.sessionTimeoutMs))
            .errorHandler(ex -> logError("consensus module", ex));

        driver = ClusteredMediaDriver.launch(driverCtx, archiveCtx, consensusCtx);

        final ClusteredServiceContainer.Context serviceCtx = new ClusteredServiceContainer.Context()
            .clusterId(ctx.clusterId)
            .aeronDirectoryName(aeronDir)
            .archiveContext(archiveClient.clone())
            .clusterDir(new File(dir, "cluster"))
            .clusteredService(service)
            .idleStrategySupplier(ctx::idleStrategy)
            .errorHandler(ex -> logError("service", ex));
        container = ClusteredServiceContainer.launch(serviceCtx);
    }

    /**
     * The service this member runs (its counters are readable from any thread).
     *
     * @return the service.
     */
    public RegistryClusteredService service()
    {
        return service;
    }

    /**
     * This member's id.
     *
     * @return the id.
     */
    public int memberId()
    {
        return ctx.memberId;
    }

    /**
     * Whether this member is currently the leader (as its service last heard).
     *
     * @return true on the leader.
     */
    public boolean isLeader()
    {
        return !closed && service.role() == Cluster.Role.LEADER;
    }

    /**
     * Asks the cluster to take a snapshot (every member writes one at the same log position). Only the leader acts
     * on the request.
     *
     * @return true when the request was posted (this member runs and its control toggle was neutral).
     */
    public boolean requestSnapshot()
    {
        if (closed)
        {
            return false;
        }
        final AtomicCounter toggle = driver.consensusModule().context().controlToggleCounter();
        return ClusterControl.ToggleState.SNAPSHOT.toggle(toggle);
    }

    /**
     * Snapshots the consensus module of this member completed.
     *
     * @return the count, or -1 when closed.
     */
    public long snapshotCount()
    {
        if (closed)
        {
            return -1;
        }
        return driver.consensusModule().context().snapshotCounter().get();
    }

    /**
     * Stops the service container, consensus module, archive and driver (abruptly, as a crash would look to the
     * other members: no termination protocol) and releases the lock.
     */
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        try
        {
            CloseHelper.closeAll(container, driver);
        }
        finally
        {
            EmbeddedDrivers.close(null, ctx.aeronDirectoryName);
        }
        try
        {
            lock.release();
        }
        catch (final IOException ex)
        {
            LOG.debug("member {}: releasing member.lock failed", ctx.memberId, ex);
        }
        CloseHelper.quietClose(lockChannel);
    }

    private void logError(final String component, final Throwable ex)
    {
        if (ex instanceof ClusterEvent)
        {
            // Elections, heartbeat timeouts and the like: expected when a member goes away.
            LOG.info("member {} {}: {}", ctx.memberId, component, ex.getMessage());
        }
        else
        {
            LOG.warn("member {} {} error", ctx.memberId, component, ex);
        }
    }

    private static void deleteStaleMarkFiles(final File dir)
    {
        for (final String sub : new String[]{"archive", "cluster"})
        {
            final Path path = dir.toPath().resolve(sub);
            if (!Files.isDirectory(path))
            {
                continue;
            }
            try (Stream<Path> files = Files.list(path))
            {
                for (final Path file : files.toList())
                {
                    final String name = file.getFileName().toString();
                    if (name.contains("-mark") && (name.endsWith(".dat") || name.endsWith(".lnk")))
                    {
                        Files.deleteIfExists(file);
                        LOG.info("deleted stale mark file {} (no live process holds this member's lock)", file);
                    }
                }
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
        }
    }

    /**
     * Configuration of a member; {@link #conclude()} validates it and fills defaults. The timeout defaults fail
     * over in about 1.5 s (leader heartbeat timeout 1 s plus an election).
     */
    public static final class Context
    {
        /** The default {@link #portBase(int)}. */
        public static final int DEFAULT_PORT_BASE = 20_000;

        private final ConcludeOnce concluded = new ConcludeOnce();
        private int memberId = -1;
        private List<String> hosts;
        private int portBase = DEFAULT_PORT_BASE;
        private int clusterId;
        private File memberDir;
        private String aeronDirectoryName;
        private ThreadingMode threadingMode = ThreadingMode.SHARED;
        private ArchiveThreadingMode archiveThreadingMode = ArchiveThreadingMode.SHARED;
        private long leaderHeartbeatTimeoutMs = 1_000;
        private long leaderHeartbeatIntervalMs = 100;
        private long electionTimeoutMs = 500;
        private long startupCanvassTimeoutMs = 2_000;
        private long sessionTimeoutMs = 10_000;
        private int logTermLength = 16 << 20;
        private int ingressTermLength = 1 << 20;
        private int maxEgressChunkBytes = 32 * 1024;
        private long clientRetentionMs = TimeUnit.HOURS.toMillis(24);
        private RetentionPolicy retentionPolicy = RetentionPolicy.none();

        /**
         * This member's id: its index in {@link #hosts}. Required.
         *
         * @param memberId the id.
         * @return this.
         */
        public Context memberId(final int memberId)
        {
            this.memberId = memberId;
            return this;
        }

        /**
         * Every member's host, in member-id order (3 for a cluster that survives one failure). Required.
         *
         * @param hosts the hosts.
         * @return this.
         */
        public Context hosts(final List<String> hosts)
        {
            this.hosts = List.copyOf(hosts);
            return this;
        }

        /**
         * The first port; member {@code i} uses {@code portBase + 10 i} to {@code portBase + 10 i + 5}. Default 20000.
         *
         * @param portBase the port.
         * @return this.
         */
        public Context portBase(final int portBase)
        {
            this.portBase = portBase;
            return this;
        }

        /**
         * The cluster id (distinguishes clusters sharing hosts). Default 0.
         *
         * @param clusterId the id.
         * @return this.
         */
        public Context clusterId(final int clusterId)
        {
            this.clusterId = clusterId;
            return this;
        }

        /**
         * The member's directory (archive, cluster state, lock). Required; survives restarts.
         *
         * @param memberDir the directory.
         * @return this.
         */
        public Context memberDir(final File memberDir)
        {
            this.memberDir = memberDir;
            return this;
        }

        /**
         * The embedded media driver's directory (recreated at start, deleted at close). Default
         * {@code <aeron default dir>-offcache-registry-<memberId>}.
         *
         * @param aeronDirectoryName the directory.
         * @return this.
         */
        public Context aeronDirectoryName(final String aeronDirectoryName)
        {
            this.aeronDirectoryName = aeronDirectoryName;
            return this;
        }

        /**
         * The media driver's threading. Default {@link ThreadingMode#SHARED} (one thread; small machines).
         *
         * @param threadingMode the mode.
         * @return this.
         */
        public Context threadingMode(final ThreadingMode threadingMode)
        {
            this.threadingMode = threadingMode;
            return this;
        }

        /**
         * The archive's threading. Default {@link ArchiveThreadingMode#SHARED}.
         *
         * @param archiveThreadingMode the mode.
         * @return this.
         */
        public Context archiveThreadingMode(final ArchiveThreadingMode archiveThreadingMode)
        {
            this.archiveThreadingMode = archiveThreadingMode;
            return this;
        }

        /**
         * How long followers wait without a leader heartbeat before starting an election. Default 1000 ms (Aeron's
         * default is 10 s).
         *
         * @param leaderHeartbeatTimeoutMs the timeout, ms.
         * @return this.
         */
        public Context leaderHeartbeatTimeoutMs(final long leaderHeartbeatTimeoutMs)
        {
            this.leaderHeartbeatTimeoutMs = leaderHeartbeatTimeoutMs;
            return this;
        }

        /**
         * How often the leader heartbeats. Default 100 ms.
         *
         * @param leaderHeartbeatIntervalMs the interval, ms.
         * @return this.
         */
        public Context leaderHeartbeatIntervalMs(final long leaderHeartbeatIntervalMs)
        {
            this.leaderHeartbeatIntervalMs = leaderHeartbeatIntervalMs;
            return this;
        }

        /**
         * How long an election step waits before trying again. Default 500 ms.
         *
         * @param electionTimeoutMs the timeout, ms.
         * @return this.
         */
        public Context electionTimeoutMs(final long electionTimeoutMs)
        {
            this.electionTimeoutMs = electionTimeoutMs;
            return this;
        }

        /**
         * How long a starting member canvasses for the others before electing with a quorum; at least twice the
         * leader heartbeat timeout (Aeron's rule). Default 2000 ms.
         *
         * @param startupCanvassTimeoutMs the timeout, ms.
         * @return this.
         */
        public Context startupCanvassTimeoutMs(final long startupCanvassTimeoutMs)
        {
            this.startupCanvassTimeoutMs = startupCanvassTimeoutMs;
            return this;
        }

        /**
         * How long a client session may stay silent before the cluster closes it (clients keep alive at a third of
         * it). Default 10 s.
         *
         * @param sessionTimeoutMs the timeout, ms.
         * @return this.
         */
        public Context sessionTimeoutMs(final long sessionTimeoutMs)
        {
            this.sessionTimeoutMs = sessionTimeoutMs;
            return this;
        }

        /**
         * Term length of the replicated log (a power of two; the largest command is an eighth of it). Default
         * 16 MiB; files are sparse.
         *
         * @param logTermLength bytes.
         * @return this.
         */
        public Context logTermLength(final int logTermLength)
        {
            this.logTermLength = logTermLength;
            return this;
        }

        /**
         * Term length of the ingress channel (a power of two). Default 1 MiB.
         *
         * @param ingressTermLength bytes.
         * @return this.
         */
        public Context ingressTermLength(final int ingressTermLength)
        {
            this.ingressTermLength = ingressTermLength;
            return this;
        }

        /**
         * The longest egress message; longer replies are chunked. Default 32 KiB.
         *
         * @param maxEgressChunkBytes bytes.
         * @return this.
         */
        public Context maxEgressChunkBytes(final int maxEgressChunkBytes)
        {
            this.maxEgressChunkBytes = maxEgressChunkBytes;
            return this;
        }

        /**
         * How long (cluster time) an idle client's de-duplication record is kept. Default 24 h.
         *
         * @param clientRetentionMs ms.
         * @return this.
         */
        public Context clientRetentionMs(final long clientRetentionMs)
        {
            this.clientRetentionMs = clientRetentionMs;
            return this;
        }

        /**
         * What a sweep command removes. Default nothing.
         *
         * @param retentionPolicy the policy.
         * @return this.
         */
        public Context retentionPolicy(final RetentionPolicy retentionPolicy)
        {
            this.retentionPolicy = retentionPolicy;
            return this;
        }

        IdleStrategy idleStrategy()
        {
            return new BackoffIdleStrategy(10, 20, TimeUnit.MICROSECONDS.toNanos(1),
                TimeUnit.MICROSECONDS.toNanos(100));
        }

        /**
         * Validates and fills defaults.
         *
         * @return this.
         * @throws IllegalArgumentException naming the first bad setting.
         */
        public Context conclude()
        {
            concluded.conclude(this);
            Ids.requireNonNull(hosts, "hosts");
            Ids.requireNonNull(memberDir, "memberDir");
            Ids.requireNonNull(threadingMode, "threadingMode");
            Ids.requireNonNull(archiveThreadingMode, "archiveThreadingMode");
            Ids.requireNonNull(retentionPolicy, "retentionPolicy");
            if (memberId < 0 || memberId >= hosts.size())
            {
                throw new IllegalArgumentException("memberId must index hosts " + hosts + ": " + memberId);
            }
            if (portBase <= 0 || portBase + hosts.size() * PORTS_PER_MEMBER > 65_535)
            {
                throw new IllegalArgumentException("portBase out of range: " + portBase);
            }
            if (leaderHeartbeatIntervalMs <= 0 || leaderHeartbeatTimeoutMs <= leaderHeartbeatIntervalMs)
            {
                throw new IllegalArgumentException("need 0 < leaderHeartbeatIntervalMs (" + leaderHeartbeatIntervalMs +
                    ") < leaderHeartbeatTimeoutMs (" + leaderHeartbeatTimeoutMs + ")");
            }
            if (electionTimeoutMs <= 0 || startupCanvassTimeoutMs <= 0 || sessionTimeoutMs <= 0)
            {
                throw new IllegalArgumentException("timeouts must be positive");
            }
            if (startupCanvassTimeoutMs < 2 * leaderHeartbeatTimeoutMs)
            {
                throw new IllegalArgumentException("startupCanvassTimeoutMs (" + startupCanvassTimeoutMs +
                    ") must be at least twice leaderHeartbeatTimeoutMs (" + leaderHeartbeatTimeoutMs + ")");
            }
            if (Integer.bitCount(logTermLength) != 1 || logTermLength < 64 * 1024 ||
                Integer.bitCount(ingressTermLength) != 1 || ingressTermLength < 64 * 1024)
            {
                throw new IllegalArgumentException("term lengths must be powers of two >= 64 KiB: log " +
                    logTermLength + ", ingress " + ingressTermLength);
            }
            if (maxEgressChunkBytes < 256 || maxEgressChunkBytes > logTermLength / 8)
            {
                throw new IllegalArgumentException("maxEgressChunkBytes must be in [256, logTermLength / 8]: " +
                    maxEgressChunkBytes);
            }
            if (aeronDirectoryName == null)
            {
                aeronDirectoryName = CommonContext.getAeronDirectoryName() + "-offcache-registry-" + memberId;
            }
            return this;
        }
    }
}
