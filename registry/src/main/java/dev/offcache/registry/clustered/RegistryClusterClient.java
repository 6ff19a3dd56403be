package dev.offcache.registry.clustered;

import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import io.aeron.Aeron;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import org.agrona.CloseHelper;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

import dev.offcache.core.agent.AgentErrors;
import dev.offcache.core.config.ConcludeOnce;
import dev.offcache.core.counters.CounterTypes;
import dev.offcache.core.media.EmbeddedDrivers;
import dev.offcache.registry.api.Acquisition;
import dev.offcache.registry.api.AsyncCacheRegistry;
import dev.offcache.registry.api.RegistryClosedException;
import dev.offcache.registry.api.RemovalListener;
import dev.offcache.registry.api.Resolution;
import dev.offcache.registry.codec.RecordWriter;
import dev.offcache.registry.command.CommandChecks;
import dev.offcache.registry.command.CommandType;
import dev.offcache.registry.state.AbortOutcome;
import dev.offcache.registry.state.BeginOutcome;
import dev.offcache.registry.state.CacheEntry;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.CompletionOutcome;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.Ids;
import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.registry.state.RemovedEntry;
import dev.offcache.registry.state.StageRef;

/**
 * The clustered registry as a scheduler embeds it: the same calls as the in-process
 * {@link dev.offcache.registry.front.CacheRegistry} ({@code CacheState} operations plus acquire/await), each
 * returning a {@link CompletableFuture} completed from the cluster leader's reply.
 *
 * <p><b>How.</b> Callers check the arguments ({@link CommandChecks}, as the in-process front does) and encode the
 * command ({@link WireCodec}) on their own thread (bad arguments and commands longer than
 * {@link Context#maxCommandBytes} throw {@link IllegalArgumentException} at once) and hand it to the client's agent
 * ({@link ClusterClientAgent}), which numbers it (this client's next sequence), keeps it in flight and offers it to
 * the cluster through an {@code AeronCluster} session. Replies complete the futures <em>on the agent thread</em>:
 * attach continuations with the {@code *Async} variants.
 *
 * <p><b>Leader changes.</b> On a new-leader event, a reconnect (new session) or when no reply came for
 * {@link Context#resendTimeoutMs}, every command still in flight is resent in sequence order, together with every
 * waiting acquire/await whose release has not arrived. The service de-duplicates by (client id, sequence) and answers
 * a resend with the original reply (and the original release if the waiter was released meanwhile), so nothing is
 * applied twice, no acknowledged command is lost and no waiter is left hanging. Futures fail only on
 * {@link #close()} (with {@link RegistryClosedException}) or on refused arguments.
 *
 * <p>Owns its agent thread, its Aeron client and (when no {@link Context#aeronDirectoryName} is given) an embedded
 * media driver; {@link #close()} releases them.
 */
public final class RegistryClusterClient implements AsyncCacheRegistry
{
    private static final ThreadLocal<RecordWriter> WRITERS =
        ThreadLocal.withInitial(() -> new RecordWriter(512));

    private final Context ctx;
    private final MediaDriver driver;
    private final Aeron aeron;
    private final ConcurrentLinkedQueue<ClientRequest> submissions = new ConcurrentLinkedQueue<>();
    private final ClusterClientAgent agent;
    private final AgentRunner runner;
    private volatile boolean closed;

    private RegistryClusterClient(final Context ctx)
    {
        this.ctx = ctx;
        MediaDriver embedded = null;
        Aeron client = null;
        try
        {
            String dir = ctx.aeronDirectoryName;
            if (dir == null)
            {
                embedded = EmbeddedDrivers.launch(EmbeddedDrivers.context(
                    EmbeddedDrivers.uniqueDirectoryName(), ThreadingMode.SHARED, ctx::idleStrategy));
                dir = embedded.aeronDirectoryName();
            }
            client = Aeron.connect(new Aeron.Context().aeronDirectoryName(dir));
        }
        catch (final RuntimeException | Error ex)
        {
            CloseHelper.quietClose(client);
            if (embedded != null)
            {
                EmbeddedDrivers.close(embedded, embedded.aeronDirectoryName());
            }
            throw ex;
        }
        driver = embedded;
        aeron = client;
        agent = new ClusterClientAgent(ctx, aeron, submissions);
        // In the driver's counters (AeronStat reads it); freed with the Aeron client, after the runner stops.
        runner = AgentErrors.runner(ctx.idleStrategy(),
            aeron.addCounter(CounterTypes.REGISTRY, "offcache_registry_client_errors_total"), agent);
    }

    /**
     * Starts a client and waits until it has a session with the cluster's leader.
     *
     * @param ctx the configuration; concluded here.
     * @return the connected client.
     * @throws IllegalStateException when no session opened within {@link Context#connectTimeoutMs}.
     */
    public static RegistryClusterClient connect(final Context ctx)
    {
        final RegistryClusterClient client = new RegistryClusterClient(ctx.conclude());
        AgentRunner.startOnThread(client.runner, runnable ->
        {
            final Thread thread = new Thread(runnable, ctx.threadName);
            thread.setDaemon(true);
            return thread;
        });
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ctx.connectTimeoutMs);
        while (!client.agent.isConnected())
        {
            if (System.nanoTime() - deadline > 0)
            {
                client.close();
                throw new IllegalStateException("no session with the registry cluster at " + ctx.ingressEndpoints +
                    " within " + ctx.connectTimeoutMs + " ms");
            }
            try
            {
                Thread.sleep(1);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                client.close();
                throw new IllegalStateException("interrupted while connecting", ex);
            }
        }
        return client;
    }

    // ---- calls (AsyncCacheRegistry and the cluster-only ones) -------------------------------------------------------

    /**
     * Reads the entry for a key (validated against the replicated live-executor view).
     *
     * @param key the key.
     * @return the entry, or null.
     */
    public CompletableFuture<CacheEntry> lookup(final CacheKey key)
    {
        return submit(CommandType.LOOKUP, key, null, null, null, null);
    }

    /**
     * Claims a key for a job unless it is claimed or materialized.
     *
     * @param key   the key.
     * @param jobId the job.
     * @return the outcome.
     */
    public CompletableFuture<BeginOutcome> beginMaterialization(final CacheKey key, final String jobId)
    {
        return submit(CommandType.BEGIN, key, jobId, null, null, null);
    }

    /**
     * Promotes the job's claim.
     *
     * @param key       the key.
     * @param jobId     the job.
     * @param schema    the schema.
     * @param locations the output partitions.
     * @return PROMOTED, DUPLICATE or STALE.
     */
    public CompletableFuture<CompletionOutcome> completeMaterialization(
        final CacheKey key, final String jobId, final DatasetSchema schema, final List<PartitionLocation> locations)
    {
        return submit(CommandType.COMPLETE, key, jobId, null, schema, locations);
    }

    /**
     * Clears the job's claim.
     *
     * @param key   the key.
     * @param jobId the job.
     * @return ABORTED or STALE.
     */
    public CompletableFuture<AbortOutcome> abortMaterialization(final CacheKey key, final String jobId)
    {
        return submit(CommandType.ABORT, key, jobId, null, null, null);
    }

    /**
     * Removes one entry.
     *
     * @param key the key.
     * @return the removed entries.
     */
    public CompletableFuture<List<RemovedEntry>> invalidate(final CacheKey key)
    {
        return submit(CommandType.INVALIDATE, key, null, null, null, null);
    }

    /**
     * Removes a key's entry only if it is still the given job's.
     *
     * @param key   the key.
     * @param jobId the job whose entry may go.
     * @return the removed entries.
     */
    public CompletableFuture<List<RemovedEntry>> invalidate(final CacheKey key, final String jobId)
    {
        return submit(CommandType.INVALIDATE_JOB, key, jobId, null, null, null);
    }

    /**
     * Removes every materialized entry with a partition on the executor.
     *
     * @param executorId the executor.
     * @return the removed entries.
     */
    public CompletableFuture<List<RemovedEntry>> invalidateExecutor(final String executorId)
    {
        return submit(CommandType.INVALIDATE_EXECUTOR, null, null, executorId, null, null);
    }

    /**
     * Removes every entry of a session.
     *
     * @param sessionId the session.
     * @return the removed entries.
     */
    public CompletableFuture<List<RemovedEntry>> removeSession(final String sessionId)
    {
        return submit(CommandType.REMOVE_SESSION, null, null, sessionId, null, null);
    }

    /**
     * A validated hit, a claim for {@code jobId}, or a wait on the job that holds the claim.
     *
     * @param key   the key.
     * @param jobId the job that materializes the key if the caller gets the claim.
     * @return the acquisition.
     */
    public CompletableFuture<Acquisition> acquire(final CacheKey key, final String jobId)
    {
        return submit(CommandType.ACQUIRE, key, jobId, null, null, null);
    }

    /**
     * Waits for a key to leave Pending.
     *
     * @param key the key.
     * @return the resolution.
     */
    public CompletableFuture<Resolution> awaitMaterialization(final CacheKey key)
    {
        return submit(CommandType.AWAIT, key, null, null, null, null);
    }

    /**
     * Runs one eviction sweep on the cluster with the members' policy, at cluster time.
     *
     * @return the removed entries.
     */
    public CompletableFuture<List<RemovedEntry>> sweep()
    {
        return submit(CommandType.SWEEP, null, null, null, null, null);
    }

    /**
     * The stages cleanup must keep, read through the log.
     *
     * @return an immutable set.
     */
    public CompletableFuture<Set<StageRef>> pinnedStages()
    {
        return submit(CommandType.PINNED, null, null, null, null, null);
    }

    /**
     * Reports an executor live or dead: replicated, so every member validates reads against the same view.
     *
     * @param executorId the executor.
     * @param live       whether it is alive.
     * @return completes once applied.
     */
    public CompletableFuture<Void> executorLive(final String executorId, final boolean live)
    {
        CommandChecks.executorId(executorId);
        return send(CommandType.EXECUTOR_LIVE, WireCodec.encode(
            WRITERS.get(), CommandType.EXECUTOR_LIVE, null, null, executorId, null, null, live));
    }

    /**
     * A consistent copy of every entry (diagnostics and tests; the reply must fit the client's reassembly).
     *
     * @return the key → entry map.
     */
    public CompletableFuture<Map<CacheKey, CacheEntry>> entries()
    {
        return probe().thenApply(Probe::entries);
    }

    /**
     * Every entry plus the leader's command counters, taken at one log position (every member records the same
     * entries at that position, see {@link RegistryClusteredService#probedEntries()}).
     *
     * @return the probe.
     */
    public CompletableFuture<Probe> probe()
    {
        return submit(CommandType.ENTRIES, null, null, null, null, null);
    }

    // ---- monitoring and lifecycle -----------------------------------------------------------------------------------

    /**
     * The member this client last knew as leader.
     *
     * @return the member id, or -1 before the first session.
     */
    public int leaderMemberId()
    {
        return agent.leaderMemberId();
    }

    /**
     * How many times in-flight commands were resent (leader changes, reconnects, timeouts).
     *
     * @return the count.
     */
    public long resendRounds()
    {
        return agent.resendRounds();
    }

    /**
     * Sessions opened with the cluster (1 plus reconnects).
     *
     * @return the count.
     */
    public long sessionsOpened()
    {
        return agent.sessionsOpened();
    }

    /**
     * This client's id (the de-duplication key on the cluster).
     *
     * @return the id.
     */
    public long clientId()
    {
        return ctx.clientId;
    }

    /**
     * Stops the agent thread, fails every unanswered future (and waiting resolution) with
     * {@link RegistryClosedException}, closes the session, the Aeron client and the embedded driver. Idempotent.
     */
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        CloseHelper.quietClose(runner);
        agent.failAll();
        failSubmissions();
        CloseHelper.quietClose(aeron);
        if (driver != null)
        {
            EmbeddedDrivers.close(driver, driver.aeronDirectoryName());
        }
    }

    // ---- handing a command to the agent -----------------------------------------------------------------------------

    /**
     * Checks a command's arguments (throwing at once), encodes it on the caller's thread and hands it to the agent.
     */
    private <T> CompletableFuture<T> submit(
        final CommandType type, final CacheKey key, final String jobId, final String id,
        final DatasetSchema schema, final List<PartitionLocation> locations)
    {
        CommandChecks.check(type, key, jobId, id, schema, locations);
        return send(type, WireCodec.encode(WRITERS.get(), type, key, jobId, id, schema, locations, false));
    }

    @SuppressWarnings("unchecked")
    private <T> CompletableFuture<T> send(final CommandType type, final RecordWriter writer)
    {
        if (writer.position() > ctx.maxCommandBytes)
        {
            throw new IllegalArgumentException("command of " + writer.position() + " bytes exceeds maxCommandBytes " +
                ctx.maxCommandBytes);
        }
        final ClientRequest request = new ClientRequest(type, writer.toBytes());
        if (closed)
        {
            request.fail(new RegistryClosedException("registry cluster client is closed", null));
        }
        else
        {
            submissions.add(request);
            if (closed)
            {
                failSubmissions();
            }
        }
        return (CompletableFuture<T>) (CompletableFuture<?>) request.future;
    }

    private void failSubmissions()
    {
        ClientRequest request;
        while ((request = submissions.poll()) != null)
        {
            request.fail(new RegistryClosedException("registry cluster client is closed", null));
        }
    }

    /**
     * Every entry and the leader's counters at one log position.
     *
     * @param appliedCommands   commands applied by the cluster up to and including this probe.
     * @param duplicateCommands resends answered from the de-duplication table.
     * @param entries           the entries.
     */
    public record Probe(long appliedCommands, long duplicateCommands, Map<CacheKey, CacheEntry> entries)
    {
    }

    // ---- configuration ----------------------------------------------------------------------------------------------

    /**
     * Configuration of a {@link RegistryClusterClient}; {@link #conclude()} validates it and fills defaults.
     */
    public static final class Context
    {
        private final ConcludeOnce concluded = new ConcludeOnce();
        private String ingressEndpoints;
        private String ingressChannel = "aeron:udp";
        private String egressChannel = "aeron:udp?endpoint=localhost:0";
        private String aeronDirectoryName;
        private long clientId;
        private long connectTimeoutMs = 10_000;
        private long messageTimeoutMs = 5_000;
        private long resendTimeoutMs = 2_000;
        private RemovalListener removalListener;
        private long keepAliveIntervalMs = 1_000;
        private int maxCommandBytes = 64 * 1024;
        private String threadName = "offcache-registry-cluster-client";

        /**
         * The members' client-facing endpoints, {@code 0=host:port,1=host:port,2=host:port}
         * (see {@link RegistryClusterMember#ingressEndpoints}). Required.
         *
         * @param ingressEndpoints the endpoints.
         * @return this.
         */
        public Context ingressEndpoints(final String ingressEndpoints)
        {
            this.ingressEndpoints = ingressEndpoints;
            return this;
        }

        /**
         * The ingress channel (endpoints are filled in per member). Default {@code aeron:udp}.
         *
         * @param ingressChannel the channel.
         * @return this.
         */
        public Context ingressChannel(final String ingressChannel)
        {
            this.ingressChannel = ingressChannel;
            return this;
        }

        /**
         * Where replies come back. Default {@code aeron:udp?endpoint=localhost:0} (an ephemeral port); use the
         * scheduler's reachable address when the members run on other hosts.
         *
         * @param egressChannel the channel.
         * @return this.
         */
        public Context egressChannel(final String egressChannel)
        {
            this.egressChannel = egressChannel;
            return this;
        }

        /**
         * The directory of a running media driver to use; default: the client launches its own embedded driver.
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
         * This client's de-duplication id; must be unique among the cluster's clients and stable across a
         * reconnect. Default: a random 63-bit number.
         *
         * @param clientId the id.
         * @return this.
         */
        public Context clientId(final long clientId)
        {
            this.clientId = clientId;
            return this;
        }

        /**
         * How long {@link #connect} waits for the first session. Default 10 s.
         *
         * @param connectTimeoutMs ms.
         * @return this.
         */
        public Context connectTimeoutMs(final long connectTimeoutMs)
        {
            this.connectTimeoutMs = connectTimeoutMs;
            return this;
        }

        /**
         * Aeron's message timeout: one connect attempt, and how long to wait for a new leader before reconnecting.
         * Default 5 s.
         *
         * @param messageTimeoutMs ms.
         * @return this.
         */
        public Context messageTimeoutMs(final long messageTimeoutMs)
        {
            this.messageTimeoutMs = messageTimeoutMs;
            return this;
        }

        /**
         * When a command has had no reply (and nothing came from the cluster) for this long, everything in flight
         * is resent. Default 2 s.
         *
         * @param resendTimeoutMs ms.
         * @return this.
         */
        public Context resendTimeoutMs(final long resendTimeoutMs)
        {
            this.resendTimeoutMs = resendTimeoutMs;
            return this;
        }

        /**
         * Told of the entries this client's own commands removed ({@code invalidate}, {@code invalidateExecutor},
         * {@code removeSession}, {@code sweep}), once per command even when it was resent, on the client's agent
         * thread before the command's future completes, so their stages can be unpinned and deleted as with the
         * in-process registry. Removals caused by other clients are not seen here. Default: none.
         *
         * @param removalListener the listener, or null.
         * @return this.
         */
        public Context removalListener(final RemovalListener removalListener)
        {
            this.removalListener = removalListener;
            return this;
        }

        /**
         * Keep-alive interval while idle; keep it well under the members' session timeout. Default 1 s.
         *
         * @param keepAliveIntervalMs ms.
         * @return this.
         */
        public Context keepAliveIntervalMs(final long keepAliveIntervalMs)
        {
            this.keepAliveIntervalMs = keepAliveIntervalMs;
            return this;
        }

        /**
         * The longest encoded command; must fit the cluster log's message limit (an eighth of its term length).
         * Default 64 KiB.
         *
         * @param maxCommandBytes bytes.
         * @return this.
         */
        public Context maxCommandBytes(final int maxCommandBytes)
        {
            this.maxCommandBytes = maxCommandBytes;
            return this;
        }

        /**
         * Name of the agent thread. Default {@code offcache-registry-cluster-client}.
         *
         * @param threadName the name.
         * @return this.
         */
        public Context threadName(final String threadName)
        {
            this.threadName = threadName;
            return this;
        }

        String threadName()
        {
            return threadName;
        }

        String ingressChannel()
        {
            return ingressChannel;
        }

        String ingressEndpoints()
        {
            return ingressEndpoints;
        }

        String egressChannel()
        {
            return egressChannel;
        }

        long messageTimeoutNs()
        {
            return TimeUnit.MILLISECONDS.toNanos(messageTimeoutMs);
        }

        long clientId()
        {
            return clientId;
        }

        RemovalListener removalListener()
        {
            return removalListener;
        }

        long resendTimeoutNs()
        {
            return TimeUnit.MILLISECONDS.toNanos(resendTimeoutMs);
        }

        long keepAliveIntervalNs()
        {
            return TimeUnit.MILLISECONDS.toNanos(keepAliveIntervalMs);
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
            Ids.requireId(ingressEndpoints, "ingressEndpoints");
            Ids.requireId(ingressChannel, "ingressChannel");
            Ids.requireId(egressChannel, "egressChannel");
            Ids.requireId(threadName, "threadName");
            if (connectTimeoutMs <= 0 || messageTimeoutMs <= 0 || resendTimeoutMs <= 0 || keepAliveIntervalMs <= 0)
            {
                throw new IllegalArgumentException("timeouts and intervals must be positive");
            }
            if (maxCommandBytes < 256)
            {
                throw new IllegalArgumentException("maxCommandBytes must be at least 256: " + maxCommandBytes);
            }
            if (clientId == 0)
            {
                clientId = new SecureRandom().nextLong() & Long.MAX_VALUE;
            }
            return this;
        }
    }
}
