package dev.offcache.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

import org.agrona.CloseHelper;

import org.apache.spark.SparkEnv;
import org.apache.spark.api.plugin.PluginContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.offcache.core.shuffle.PinSet;
import dev.offcache.core.shuffle.ShufflePartitionStore;
import dev.offcache.dataset.PartitionOpener;
import dev.offcache.transport.client.PayloadClient;
import dev.offcache.transport.media.AeronMedia;
import dev.offcache.transport.media.TransportChannels;
import dev.offcache.transport.server.PayloadServer;
import dev.offcache.transport.source.ShufflePartitionSource;

/**
 * offcache on one executor: its own directory with a {@link ShufflePartitionStore} the materialization tasks write
 * into, an embedded Aeron media driver and a {@link PayloadServer} serving the store to other executors, and the
 * {@link PartitionOpener} read-back tasks open partitions with (mapped when local, fetched when not). Registers with
 * the driver and heartbeats; the replies carry stage deletions and the other executors' endpoints. Started by
 * {@link OffcachePlugin}'s executor plugin; owns everything it starts, and {@link #close()} deletes the directory.
 */
public final class OffcacheExecutor implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(OffcacheExecutor.class);
    private static final long CLOSE_WAIT_S = 5;
    /** The executor id in local mode, where the executor runs in the driver's JVM. */
    static final String LOCAL_EXECUTOR_ID = "driver";
    private static volatile OffcacheExecutor current;

    private final String executorId;
    private final String host;
    private final Path directory;
    private final ShufflePartitionStore store;
    private final AeronMedia media;
    private final PayloadServer server;
    private final PartitionOpener opener;
    private final Messages.Register registration;
    private final PluginContext plugin;
    private final OffcacheSettings settings;
    private final Map<String, PayloadClient> clients = new ConcurrentHashMap<>();
    private volatile Map<String, Messages.Endpoint> endpoints = Map.of();
    private final CompletableFuture<Void> registered = new CompletableFuture<>();
    private final AtomicLong recomputes = new AtomicLong();
    private final ScheduledExecutorService heartbeats;
    /** The driver, when it runs in this JVM (local mode): registrations and reports go to it directly. */
    private volatile OffcacheDriver inProcessDriver;
    /**
     * Closes this when the JVM exits before the plugin's shutdown ran or finished: a standalone worker SIGTERMs its
     * executors right after the driver asks them to stop, and Spark's own shutdown hook then skips the executor's
     * stop (already begun), so the JVM could exit with the directory still there.
     */
    private final Thread shutdownHook;
    private final ReentrantLock closing = new ReentrantLock();
    private boolean closed;

    private OffcacheExecutor(final PluginContext plugin, final OffcacheSettings settings)
    {
        this.plugin = plugin;
        this.settings = settings;
        this.executorId = plugin.executorID();
        this.host = settings.transportHost != null ? settings.transportHost : hostOf(plugin);
        final long pid = ProcessHandle.current().pid();
        // Local mode starts executor plugins before the application has an id.
        this.directory = Path.of(settings.executorDir).resolve("offcache-" +
            plugin.conf().get("spark.app.id", "app") + "-" + executorId + "-" + pid);
        AeronMedia launched = null;
        PayloadServer served = null;
        try
        {
            Files.createDirectories(directory);
            DirectoryOwner.current().writeTo(directory);
            this.store = new ShufflePartitionStore(directory, PinSet.NONE);
            launched = AeronMedia.launch(new AeronMedia.Context()
                .udpTermLength(settings.termLength)
                .ipcTermLength(settings.termLength)
                .initialWindowLength(
                    Math.min(settings.termLength / 2, AeronMedia.Context.DEFAULT_INITIAL_WINDOW_LENGTH))
                .publicationLingerTimeoutNs(TimeUnit.MILLISECONDS.toNanos(200)));
            final String channel = TransportChannels.udp(host, freeUdpPort(host));
            served = PayloadServer.launch(new PayloadServer.Context()
                .aeron(launched.aeron())
                .payloadSource(new ShufflePartitionSource(store))
                .requestChannel(channel)
                .requestStreamId(PayloadServer.Context.DEFAULT_REQUEST_STREAM_ID)
                .responseTermLength(settings.termLength)
                .serverName("offcache-executor-" + executorId));
            this.media = launched;
            this.server = served;
            this.opener = PartitionOpener.launch(new PartitionOpener.Context()
                .on(executorId, store)
                .remoteExecutors(this::clientFor)
                .fetchTimeoutNs(TimeUnit.MILLISECONDS.toNanos(settings.fetchTimeoutMs))
                .verifyLocal(settings.verifyLocal));
            this.registration = new Messages.Register(executorId, host, channel,
                PayloadServer.Context.DEFAULT_REQUEST_STREAM_ID, pid, directory.toString());
        }
        catch (final IOException ex)
        {
            CloseHelper.quietCloseAll(served, launched);
            deleteRecursively(directory);
            throw new UncheckedIOException("offcache cannot create its executor directory " + directory, ex);
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietCloseAll(served, launched);
            deleteRecursively(directory);
            throw ex;
        }
        this.heartbeats = Executors.newSingleThreadScheduledExecutor(runnable ->
        {
            final Thread thread = new Thread(runnable, "offcache-heartbeat");
            thread.setDaemon(true);
            return thread;
        });
        this.shutdownHook = new Thread(this::close, "offcache-executor-shutdown");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    static OffcacheExecutor start(final PluginContext plugin, final OffcacheSettings settings)
    {
        final OffcacheExecutor executor = new OffcacheExecutor(plugin, settings);
        current = executor;
        final OffcacheDriver driver = OffcacheDriver.current();
        if (driver != null && LOCAL_EXECUTOR_ID.equals(executor.executorId))
        {
            // Local mode: the driver is in this JVM and deletes through this store directly.
            executor.inProcessDriver = driver;
            driver.register(executor.registration);
            executor.registered.complete(null);
        }
        else
        {
            executor.heartbeats.execute(executor::registerWithDriver);
            executor.heartbeats.scheduleWithFixedDelay(executor::heartbeat, settings.heartbeatIntervalMs,
                settings.heartbeatIntervalMs, TimeUnit.MILLISECONDS);
        }
        // Directories of executors killed before they could delete their own (off the start's path: it may be GBs).
        executor.heartbeats.execute(executor::sweepDeadExecutors);
        LOG.info("offcache executor {} started: directory {}, payload server {}", executor.executorId,
            executor.directory, executor.registration.channel());
        return executor;
    }

    /**
     * This JVM's executor component.
     *
     * @return it, or null when the plugin is not running here.
     */
    public static OffcacheExecutor current()
    {
        return current;
    }

    /**
     * The executor id ({@code driver} in local mode).
     *
     * @return the id.
     */
    public String executorId()
    {
        return executorId;
    }

    /**
     * The host this executor registered with.
     *
     * @return the host.
     */
    public String host()
    {
        return host;
    }

    /**
     * The store materialization tasks write into (owned by this executor).
     *
     * @return the store.
     */
    public ShufflePartitionStore store()
    {
        return store;
    }

    /**
     * This executor's own directory (deleted on close).
     *
     * @return the path.
     */
    public Path directory()
    {
        return directory;
    }

    /**
     * How read-back tasks open partitions (owned by this executor).
     *
     * @return the opener.
     */
    public PartitionOpener opener()
    {
        return opener;
    }

    /**
     * Waits until the driver knows this executor (so the registry accepts locations on it).
     *
     * @param timeoutMs how long to wait.
     * @throws IllegalStateException when it does not within the time.
     */
    public void awaitRegistered(final long timeoutMs)
    {
        try
        {
            registered.get(timeoutMs, TimeUnit.MILLISECONDS);
        }
        catch (final Exception ex)
        {
            throw new IllegalStateException("offcache executor " + executorId + " is not registered with the driver",
                ex);
        }
    }

    /**
     * A task could not read a cached partition and recomputes it: counted here and told to the driver, which drops
     * that materialization (conditionally) so the next action re-materializes.
     *
     * @param sessionId the key's session.
     * @param cacheId   the key's cache id.
     * @param jobId     the materialization.
     * @param partition the partition.
     * @param cause     why.
     */
    public void readFailed(final String sessionId, final String cacheId, final String jobId, final int partition,
        final Throwable cause)
    {
        recomputes.incrementAndGet();
        final Messages.ReadFailure failure = new Messages.ReadFailure(sessionId, cacheId, jobId, executorId, partition,
            String.valueOf(cause));
        final OffcacheDriver driver = inProcessDriver;
        try
        {
            if (driver != null)
            {
                driver.readFailed(failure);
            }
            else
            {
                plugin.send(failure);
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            LOG.warn("offcache executor {} could not report a read failure to the driver", executorId, ex);
        }
    }

    /**
     * Partitions this executor recomputed from the lineage.
     *
     * @return the count.
     */
    public long recomputes()
    {
        return recomputes.get();
    }

    private PayloadClient clientFor(final String otherExecutorId)
    {
        final PayloadClient existing = clients.get(otherExecutorId);
        if (existing != null)
        {
            return existing;
        }
        final Messages.Endpoint endpoint = endpoints.get(otherExecutorId);
        if (endpoint == null)
        {
            return null;
        }
        return clients.computeIfAbsent(otherExecutorId, id -> PayloadClient.connect(new PayloadClient.Context()
            .aeron(media.aeron())
            .requestChannel(endpoint.channel())
            .requestStreamId(endpoint.streamId())
            .responseChannel(TransportChannels.udp(host, 0))
            .fetchTimeoutNs(TimeUnit.MILLISECONDS.toNanos(settings.fetchTimeoutMs))));
    }

    private void registerWithDriver()
    {
        while (!registered.isDone() && !heartbeats.isShutdown())
        {
            try
            {
                plugin.ask(registration);
                registered.complete(null);
            }
            catch (final Exception ex)
            {
                LOG.warn("offcache executor {} could not register with the driver yet", executorId, ex);
                try
                {
                    Thread.sleep(settings.heartbeatIntervalMs);
                }
                catch (final InterruptedException interrupted)
                {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private void heartbeat()
    {
        try
        {
            final Object reply = plugin.ask(new Messages.Heartbeat(executorId,
                opener.counters().localPartitionReads(), opener.counters().remotePartitionReads(), recomputes.get(),
                opener.openCount()));
            if (!(reply instanceof Messages.HeartbeatReply heartbeatReply))
            {
                return;
            }
            if (!heartbeatReply.known())
            {
                plugin.ask(registration);
            }
            apply(heartbeatReply.commands());
            endpoints = heartbeatReply.executors();
            clients.keySet().removeIf(id ->
            {
                if (endpoints.containsKey(id))
                {
                    return false;
                }
                CloseHelper.quietClose(clients.get(id));
                return true;
            });
        }
        catch (final Exception ex)
        {
            LOG.warn("offcache executor {} heartbeat failed", executorId, ex);
        }
    }

    private void apply(final List<Messages.Command> commands)
    {
        for (final Messages.Command command : commands)
        {
            if (command instanceof Messages.DeleteJob deleteJob)
            {
                store.deleteJob(deleteJob.jobId(), (job, stageId) -> deleteJob.keepStages().contains(stageId));
            }
            else if (command instanceof Messages.DeleteStage deleteStage)
            {
                store.deleteStage(deleteStage.jobId(), deleteStage.stageId());
            }
            else if (command instanceof Messages.DeletePartition deletePartition)
            {
                ExecutorDirectory.deletePartition(store, deletePartition.jobId(), deletePartition.stageId(),
                    deletePartition.partition());
            }
            else if (command instanceof Messages.SweepDeadExecutors)
            {
                sweepDeadExecutors();
            }
        }
    }

    /**
     * Deletes the directories next to this executor's whose owner, an executor of this host, no longer runs.
     */
    void sweepDeadExecutors()
    {
        DirectoryOwner.sweepDead(directory.getParent(), directory);
    }

    /**
     * Stops the heartbeats, the clients, the payload server and the media driver, and deletes the directory. Runs
     * once: from the plugin's shutdown, or from this executor's JVM shutdown hook when the process is terminated
     * first (whichever comes first; the other waits for it, up to {@value #CLOSE_WAIT_S} s).
     */
    public void close()
    {
        try
        {
            if (!closing.tryLock(CLOSE_WAIT_S, TimeUnit.SECONDS))
            {
                LOG.warn("offcache executor {}: another close still runs after {} s; deleting {} now", executorId,
                    CLOSE_WAIT_S, directory);
                deleteRecursively(directory);
                return;
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            deleteRecursively(directory);
            return;
        }
        try
        {
            if (closed)
            {
                return;
            }
            closed = true;
            if (current == this)
            {
                current = null;
            }
            heartbeats.shutdownNow();
            // A heartbeat in flight may be applying the driver's deletions: the directory is walked only after it.
            awaitQuietly(heartbeats);
            CloseHelper.quietCloseAll(clients.values());
            CloseHelper.quietCloseAll(opener, server, media);
            deleteRecursively(directory);
            LOG.info("offcache executor {} stopped, {} deleted", executorId, directory);
        }
        finally
        {
            closing.unlock();
        }
        if (Thread.currentThread() != shutdownHook)
        {
            try
            {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            }
            catch (final IllegalStateException shuttingDown)
            {
                // The JVM is exiting: the hook runs, finds this closed and returns.
            }
        }
    }

    private static void awaitQuietly(final ScheduledExecutorService executor)
    {
        try
        {
            executor.awaitTermination(CLOSE_WAIT_S, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private static String hostOf(final PluginContext plugin)
    {
        // PluginContext.hostname() throws on executors (their RpcEnv has no address); their block manager knows it.
        // In local mode the block manager is not initialized yet when plugins start, but the RpcEnv has an address.
        final SparkEnv env = SparkEnv.get();
        if (env != null && env.blockManager() != null && env.blockManager().blockManagerId() != null)
        {
            return env.blockManager().blockManagerId().host();
        }
        return plugin.hostname();
    }

    private static int freeUdpPort(final String host)
    {
        try (DatagramSocket socket = new DatagramSocket(0, InetAddress.getByName(host)))
        {
            return socket.getLocalPort();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("offcache cannot find a free UDP port on " + host, ex);
        }
    }

    /**
     * Deletes a directory tree, never following links, and tolerates files that others delete meanwhile (a heartbeat
     * applying the driver's deletions, the other of close and the shutdown hook).
     *
     * @param root the tree.
     */
    static void deleteRecursively(final Path root)
    {
        if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS))
        {
            return;
        }
        try
        {
            Files.walkFileTree(root, new SimpleFileVisitor<>()
            {
                @Override
                public FileVisitResult visitFile(final Path file, final BasicFileAttributes attrs)
                {
                    delete(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(final Path file, final IOException ex)
                {
                    if (!(ex instanceof NoSuchFileException))
                    {
                        LOG.warn("offcache could not delete {}", file, ex);
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(final Path dir, final IOException ex)
                {
                    delete(dir);
                    return FileVisitResult.CONTINUE;
                }
            });
        }
        catch (final IOException ex)
        {
            LOG.warn("offcache could not delete {}", root, ex);
        }
    }

    private static void delete(final Path path)
    {
        try
        {
            Files.deleteIfExists(path);
        }
        catch (final IOException ex)
        {
            LOG.warn("offcache could not delete {}", path, ex);
        }
    }
}
