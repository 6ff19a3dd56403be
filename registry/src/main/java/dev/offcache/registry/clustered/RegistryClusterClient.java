package dev.offcache.registry.clustered;

import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import io.aeron.Aeron;
import io.aeron.Publication;
import io.aeron.cluster.client.AeronCluster;
import io.aeron.cluster.client.EgressListener;
import io.aeron.cluster.codecs.EventCode;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.aeron.logbuffer.Header;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.offcache.core.agent.AgentErrors;
import dev.offcache.core.config.ConcludeOnce;
import dev.offcache.core.counters.CounterTypes;
import dev.offcache.core.media.EmbeddedDrivers;
import dev.offcache.registry.codec.RecordWriter;
import dev.offcache.registry.codec.RecordReader;
import dev.offcache.registry.api.Acquisition;
import dev.offcache.registry.api.AsyncCacheRegistry;
import dev.offcache.registry.api.RegistryClosedException;
import dev.offcache.registry.api.RemovalListener;
import dev.offcache.registry.api.Resolution;
import dev.offcache.registry.state.AbortOutcome;
import dev.offcache.registry.state.BeginOutcome;
import dev.offcache.registry.state.CacheEntry;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.CompletionOutcome;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.Ids;
import dev.offcache.registry.state.Materialized;
import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.registry.state.RemovedEntry;
import dev.offcache.registry.state.StageRef;

/**
 * The clustered registry as a scheduler embeds it: the same calls as the in-process
 * {@link dev.offcache.registry.front.CacheRegistry} ({@code CacheState} operations plus acquire/await), each
 * returning a {@link CompletableFuture} completed from the cluster leader's reply.
 *
 * <p><b>How.</b> Callers encode the command on their own thread (bad arguments and commands longer than
 * {@link Context#maxCommandBytes} throw {@link IllegalArgumentException} at once) and hand it to the client's agent
 * thread, which numbers it (this client's next sequence), keeps it in flight and offers it to the cluster through
 * an {@link AeronCluster} session. Replies complete the futures <em>on the agent thread</em>: attach continuations
 * with the {@code *Async} variants.
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
    private static final Logger LOG = LoggerFactory.getLogger(RegistryClusterClient.class);
    private static final ThreadLocal<RecordWriter> WRITERS =
        ThreadLocal.withInitial(() -> new RecordWriter(512));

    private final Context ctx;
    private final MediaDriver driver;
    private final Aeron aeron;
    private final ConcurrentLinkedQueue<Request> submissions = new ConcurrentLinkedQueue<>();
    private final ClientAgent agent;
    private final AgentRunner runner;
    private volatile boolean closed;
    private volatile boolean connected;
    private volatile int leaderMemberId = -1;
    private volatile long resendRounds;
    private volatile long sessionsOpened;

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
        agent = new ClientAgent();
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
        while (!client.connected)
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

    /**
     * Reads the entry for a key (validated against the replicated live-executor view).
     *
     * @param key the key.
     * @return the entry, or null.
     */
    public CompletableFuture<CacheEntry> lookup(final CacheKey key)
    {
        Ids.requireNonNull(key, "key");
        return submit(WireCodec.LOOKUP, writer(WireCodec.LOOKUP).key(key));
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
        Ids.requireNonNull(key, "key");
        Ids.requireId(jobId, "jobId");
        return submit(WireCodec.BEGIN, writer(WireCodec.BEGIN).key(key).putString(jobId));
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
        Ids.requireNonNull(key, "key");
        Ids.requireId(jobId, "jobId");
        Ids.requireNonNull(schema, "schema");
        Materialized.validateLocations(jobId, locations);
        return submit(WireCodec.COMPLETE, writer(WireCodec.COMPLETE).key(key).putString(jobId)
            .putString(schema.description()).locations(locations));
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
        Ids.requireNonNull(key, "key");
        Ids.requireId(jobId, "jobId");
        return submit(WireCodec.ABORT, writer(WireCodec.ABORT).key(key).putString(jobId));
    }

    /**
     * Removes one entry.
     *
     * @param key the key.
     * @return the removed entries.
     */
    public CompletableFuture<List<RemovedEntry>> invalidate(final CacheKey key)
    {
        Ids.requireNonNull(key, "key");
        return submit(WireCodec.INVALIDATE, writer(WireCodec.INVALIDATE).key(key));
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
        Ids.requireNonNull(key, "key");
        Ids.requireId(jobId, "jobId");
        return submit(WireCodec.INVALIDATE_JOB, writer(WireCodec.INVALIDATE_JOB).key(key).putString(jobId));
    }

    /**
     * Removes every materialized entry with a partition on the executor.
     *
     * @param executorId the executor.
     * @return the removed entries.
     */
    public CompletableFuture<List<RemovedEntry>> invalidateExecutor(final String executorId)
    {
        Ids.requireId(executorId, "executorId");
        return submit(WireCodec.INVALIDATE_EXECUTOR, writer(WireCodec.INVALIDATE_EXECUTOR).putString(executorId));
    }

    /**
     * Removes every entry of a session.
     *
     * @param sessionId the session.
     * @return the removed entries.
     */
    public CompletableFuture<List<RemovedEntry>> removeSession(final String sessionId)
    {
        Ids.requireId(sessionId, "sessionId");
        return submit(WireCodec.REMOVE_SESSION, writer(WireCodec.REMOVE_SESSION).putString(sessionId));
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
        Ids.requireNonNull(key, "key");
        Ids.requireId(jobId, "jobId");
        return submit(WireCodec.ACQUIRE, writer(WireCodec.ACQUIRE).key(key).putString(jobId));
    }

    /**
     * Waits for a key to leave Pending.
     *
     * @param key the key.
     * @return the resolution.
     */
    public CompletableFuture<Resolution> awaitMaterialization(final CacheKey key)
    {
        Ids.requireNonNull(key, "key");
        return submit(WireCodec.AWAIT, writer(WireCodec.AWAIT).key(key));
    }

    /**
     * Runs one eviction sweep on the cluster with the members' policy, at cluster time.
     *
     * @return the removed entries.
     */
    public CompletableFuture<List<RemovedEntry>> sweep()
    {
        return submit(WireCodec.SWEEP, writer(WireCodec.SWEEP));
    }

    /**
     * The stages cleanup must keep, read through the log.
     *
     * @return an immutable set.
     */
    public CompletableFuture<Set<StageRef>> pinnedStages()
    {
        return submit(WireCodec.PINNED, writer(WireCodec.PINNED));
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
        Ids.requireId(executorId, "executorId");
        return submit(WireCodec.EXECUTOR_LIVE, writer(WireCodec.EXECUTOR_LIVE).putString(executorId)
            .putByte((byte) (live ? 1 : 0)));
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
        return submit(WireCodec.ENTRIES, writer(WireCodec.ENTRIES));
    }

    /**
     * The member this client last knew as leader.
     *
     * @return the member id, or -1 before the first session.
     */
    public int leaderMemberId()
    {
        return leaderMemberId;
    }

    /**
     * How many times in-flight commands were resent (leader changes, reconnects, timeouts).
     *
     * @return the count.
     */
    public long resendRounds()
    {
        return resendRounds;
    }

    /**
     * Sessions opened with the cluster (1 plus reconnects).
     *
     * @return the count.
     */
    public long sessionsOpened()
    {
        return sessionsOpened;
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

    private static RecordWriter writer(final byte type)
    {
        return WireCodec.command(WRITERS.get(), type);
    }

    @SuppressWarnings("unchecked")
    private <T> CompletableFuture<T> submit(final byte type, final RecordWriter writer)
    {
        if (writer.position() > ctx.maxCommandBytes)
        {
            throw new IllegalArgumentException("command of " + writer.position() + " bytes exceeds maxCommandBytes " +
                ctx.maxCommandBytes);
        }
        final Request request = new Request(type, writer.toBytes());
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
        Request request;
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

    private static final class Request
    {
        final byte type;
        final byte[] bytes;
        final CompletableFuture<Object> future = new CompletableFuture<>();
        CompletableFuture<Resolution> resolution;
        long sequence;
        long sentNs;
        boolean replied;
        boolean done;
        Resolution earlyRelease;
        ExpandableArrayBuffer assembly;
        int assemblyLength;
        int assemblyChunk;

        Request(final byte type, final byte[] bytes)
        {
            this.type = type;
            this.bytes = bytes;
        }

        void fail(final Throwable cause)
        {
            done = true;
            future.completeExceptionally(cause);
            if (resolution != null)
            {
                resolution.completeExceptionally(cause);
            }
        }
    }

    private final class ClientAgent implements Agent, EgressListener
    {
        private final Long2ObjectHashMap<Request> inFlight = new Long2ObjectHashMap<>();
        private final ArrayDeque<Request> order = new ArrayDeque<>();
        private final ArrayDeque<Request> unsent = new ArrayDeque<>();
        private final UnsafeBuffer sendBuffer = new UnsafeBuffer(new byte[0]);
        private final RecordReader reader = new RecordReader();
        private AeronCluster cluster;
        private AeronCluster.AsyncConnect connecting;
        private long nextSequence = 1;
        private long nextConnectNs;
        private long lastSendNs;
        private long lastEgressNs;
        private long lastResendCheckNs;

        public int doWork()
        {
            final long now = System.nanoTime();
            int work = drainSubmissions();
            if (cluster == null)
            {
                return work + connect(now);
            }
            work += send(now);
            if (cluster != null)
            {
                work += cluster.pollEgress();
            }
            if (cluster != null && (cluster.pollStateChanges() > 0 || cluster.isClosed()))
            {
                disconnected("session closed");
                return work + 1;
            }
            if (cluster != null && now - lastSendNs > ctx.keepAliveIntervalNs())
            {
                cluster.sendKeepAlive();
                lastSendNs = now;
            }
            if (now - lastResendCheckNs > ctx.resendTimeoutNs())
            {
                lastResendCheckNs = now;
                checkResend(now);
            }
            return work;
        }

        public String roleName()
        {
            return ctx.threadName;
        }

        public void onClose()
        {
            CloseHelper.quietClose(cluster);
            CloseHelper.quietClose(connecting);
            cluster = null;
            connecting = null;
        }

        public void onMessage(
            final long clusterSessionId,
            final long timestamp,
            final DirectBuffer buffer,
            final int offset,
            final int length,
            final Header header)
        {
            lastEgressNs = System.nanoTime();
            if (length < WireCodec.EGRESS_HEADER_LENGTH)
            {
                return;
            }
            final byte kind = buffer.getByte(offset);
            final long sequence = buffer.getLong(offset + 1);
            final int chunkIndex = buffer.getInt(offset + 1 + Long.BYTES);
            final int chunkCount = buffer.getInt(offset + 1 + Long.BYTES + Integer.BYTES);
            final Request request = inFlight.get(sequence);
            if (request == null)
            {
                return;
            }
            final int payload = offset + WireCodec.EGRESS_HEADER_LENGTH;
            final int payloadLength = length - WireCodec.EGRESS_HEADER_LENGTH;
            if (chunkCount == 1)
            {
                onAnswer(request, kind, buffer, payload, payloadLength);
                return;
            }
            if (chunkIndex == 0)
            {
                if (request.assembly == null)
                {
                    request.assembly = new ExpandableArrayBuffer(chunkCount * payloadLength);
                }
                request.assemblyLength = 0;
                request.assemblyChunk = 0;
            }
            if (request.assembly == null || chunkIndex != request.assemblyChunk)
            {
                return; // a chunk out of sequence (a lost egress message): the resend brings the whole answer again
            }
            request.assembly.putBytes(request.assemblyLength, buffer, payload, payloadLength);
            request.assemblyLength += payloadLength;
            request.assemblyChunk++;
            if (request.assemblyChunk == chunkCount)
            {
                request.assemblyChunk = 0;
                onAnswer(request, kind, request.assembly, 0, request.assemblyLength);
            }
        }

        public void onSessionEvent(
            final long correlationId,
            final long clusterSessionId,
            final long leadershipTermId,
            final int leaderMemberId,
            final EventCode code,
            final String detail)
        {
            if (code == EventCode.ERROR || code == EventCode.CLOSED)
            {
                LOG.info("registry cluster session event {}: {}", code, detail);
            }
        }

        public void onNewLeader(
            final long clusterSessionId,
            final long leadershipTermId,
            final int leaderMemberId,
            final String ingressEndpoints)
        {
            RegistryClusterClient.this.leaderMemberId = leaderMemberId;
            resendAll();
        }

        void failAll()
        {
            final RegistryClosedException closedException =
                new RegistryClosedException("registry cluster client is closed", null);
            for (final Request request : order)
            {
                if (!request.done)
                {
                    request.fail(closedException);
                }
            }
            order.clear();
            inFlight.clear();
            unsent.clear();
        }

        private int drainSubmissions()
        {
            int count = 0;
            Request request;
            while (count < 1024 && (request = submissions.poll()) != null)
            {
                request.sequence = nextSequence++;
                if (request.type == WireCodec.ACQUIRE || request.type == WireCodec.AWAIT)
                {
                    request.resolution = request.type == WireCodec.AWAIT ? castFuture(request.future) :
                        new CompletableFuture<>();
                }
                inFlight.put(request.sequence, request);
                order.add(request);
                unsent.add(request);
                count++;
            }
            return count;
        }

        @SuppressWarnings("unchecked")
        private CompletableFuture<Resolution> castFuture(final CompletableFuture<Object> future)
        {
            return (CompletableFuture<Resolution>) (CompletableFuture<?>) future;
        }

        private int connect(final long now)
        {
            try
            {
                if (connecting == null)
                {
                    if (now - nextConnectNs < 0)
                    {
                        return 0;
                    }
                    connecting = AeronCluster.asyncConnect(new AeronCluster.Context()
                        .aeron(aeron)
                        .ownsAeronClient(false)
                        .ingressChannel(ctx.ingressChannel)
                        .ingressEndpoints(ctx.ingressEndpoints)
                        .egressChannel(ctx.egressChannel)
                        .messageTimeoutNs(TimeUnit.MILLISECONDS.toNanos(ctx.messageTimeoutMs))
                        .egressListener(this));
                }
                final AeronCluster session = connecting.poll();
                if (session == null)
                {
                    return 0;
                }
                connecting = null;
                cluster = session;
                leaderMemberId = session.leaderMemberId();
                sessionsOpened++;
                lastEgressNs = now;
                lastSendNs = now;
                resendAll();
                connected = true;
                return 1;
            }
            catch (final RuntimeException ex)
            {
                LOG.debug("registry cluster connect attempt failed: {}", ex.toString());
                CloseHelper.quietClose(connecting);
                connecting = null;
                nextConnectNs = now + TimeUnit.MILLISECONDS.toNanos(100);
                return 0;
            }
        }

        private void disconnected(final String why)
        {
            LOG.info("registry cluster session lost ({}); reconnecting", why);
            CloseHelper.quietClose(cluster);
            cluster = null;
        }

        private int send(final long now)
        {
            int sent = 0;
            Request request;
            while ((request = unsent.peek()) != null)
            {
                if (request.done)
                {
                    unsent.poll();
                    continue;
                }
                sendBuffer.wrap(request.bytes);
                sendBuffer.putLong(WireCodec.CLIENT_ID_OFFSET, ctx.clientId);
                sendBuffer.putLong(WireCodec.SEQUENCE_OFFSET, request.sequence);
                sendBuffer.putLong(WireCodec.FLOOR_OFFSET, floor());
                final long result = cluster.offer(sendBuffer, 0, request.bytes.length);
                if (result < 0)
                {
                    if (result == Publication.CLOSED || result == Publication.MAX_POSITION_EXCEEDED)
                    {
                        disconnected("ingress " + Publication.errorString(result));
                    }
                    break;
                }
                unsent.poll();
                request.sentNs = now;
                lastSendNs = now;
                sent++;
            }
            return sent;
        }

        private long floor()
        {
            Request head;
            while ((head = order.peek()) != null && head.done)
            {
                order.poll();
            }
            return head == null ? nextSequence : head.sequence;
        }

        private void resendAll()
        {
            unsent.clear();
            boolean any = false;
            for (final Request request : order)
            {
                if (!request.done)
                {
                    unsent.add(request);
                    any = true;
                }
            }
            if (any)
            {
                resendRounds++;
            }
        }

        private void checkResend(final long now)
        {
            if (cluster == null || now - lastEgressNs < ctx.resendTimeoutNs())
            {
                return;
            }
            for (final Request request : order)
            {
                if (!request.done && !request.replied && request.sentNs != 0 &&
                    now - request.sentNs > ctx.resendTimeoutNs())
                {
                    resendAll();
                    return;
                }
            }
        }

        private void onAnswer(
            final Request request, final byte kind, final DirectBuffer buffer, final int offset, final int length)
        {
            if (request.done)
            {
                return;
            }
            reader.wrap(buffer, offset, length);
            try
            {
                if (kind == WireCodec.RELEASE)
                {
                    final Resolution resolution = reader.resolution();
                    if (request.replied)
                    {
                        finish(request);
                        request.resolution.complete(resolution);
                    }
                    else
                    {
                        request.earlyRelease = resolution;
                    }
                    return;
                }
                if (kind != WireCodec.REPLY || request.replied)
                {
                    return;
                }
                request.replied = true;
                if (reader.getByte() == WireCodec.REFUSED)
                {
                    finish(request);
                    request.fail(new IllegalArgumentException(reader.getString()));
                    return;
                }
                decodeReply(request);
            }
            catch (final RuntimeException ex)
            {
                finish(request);
                request.fail(new IllegalStateException("undecodable registry reply", ex));
            }
        }

        private void decodeReply(final Request request)
        {
            switch (request.type)
            {
                case WireCodec.LOOKUP:
                    complete(request, reader.entry());
                    break;
                case WireCodec.BEGIN:
                {
                    final byte tag = reader.getByte();
                    complete(request, tag == WireCodec.BEGIN_CLAIMED ? BeginOutcome.CLAIMED :
                        tag == WireCodec.BEGIN_PENDING ? new BeginOutcome.AlreadyPending(reader.getString()) :
                        new BeginOutcome.AlreadyMaterialized(reader.materialized()));
                    break;
                }
                case WireCodec.COMPLETE:
                    complete(request, CompletionOutcome.values()[reader.getByte()]);
                    break;
                case WireCodec.ABORT:
                    complete(request, AbortOutcome.values()[reader.getByte()]);
                    break;
                case WireCodec.INVALIDATE:
                case WireCodec.INVALIDATE_JOB:
                case WireCodec.INVALIDATE_EXECUTOR:
                case WireCodec.REMOVE_SESSION:
                case WireCodec.SWEEP:
                {
                    final int count = reader.count();
                    final RemovedEntry[] removed = new RemovedEntry[count];
                    for (int i = 0; i < count; i++)
                    {
                        removed[i] = new RemovedEntry(reader.key(), reader.entry());
                    }
                    final List<RemovedEntry> list = List.of(removed);
                    notifyRemoved(list);
                    complete(request, list);
                    break;
                }
                case WireCodec.ACQUIRE:
                {
                    final byte tag = reader.getByte();
                    if (tag == WireCodec.ACQUIRE_HIT)
                    {
                        complete(request, new Acquisition.Hit(reader.materialized()));
                    }
                    else if (tag == WireCodec.ACQUIRE_CLAIMED)
                    {
                        complete(request, new Acquisition.Claimed());
                    }
                    else
                    {
                        request.future.complete(new Acquisition.Wait(reader.getString(), request.resolution));
                        releaseIfEarly(request);
                    }
                    break;
                }
                case WireCodec.AWAIT:
                {
                    if (reader.peekByte() == WireCodec.AWAIT_WAITING)
                    {
                        releaseIfEarly(request);
                    }
                    else
                    {
                        complete(request, reader.resolution());
                    }
                    break;
                }
                case WireCodec.ENTRIES:
                {
                    final long appliedCommands = reader.getLong();
                    final long duplicateCommands = reader.getLong();
                    final int count = reader.count();
                    final Map<CacheKey, CacheEntry> entries = new HashMap<>();
                    for (int i = 0; i < count; i++)
                    {
                        entries.put(reader.key(), reader.entry());
                    }
                    complete(request, new Probe(appliedCommands, duplicateCommands, Map.copyOf(entries)));
                    break;
                }
                case WireCodec.PINNED:
                {
                    final int count = reader.count();
                    final Set<StageRef> stages = new HashSet<>();
                    for (int i = 0; i < count; i++)
                    {
                        stages.add(new StageRef(reader.getString(), reader.getInt()));
                    }
                    complete(request, Set.copyOf(stages));
                    break;
                }
                case WireCodec.EXECUTOR_LIVE:
                    complete(request, null);
                    break;
                default:
                    throw new IllegalStateException("reply to unknown command type " + request.type);
            }
        }

        private void releaseIfEarly(final Request request)
        {
            if (request.earlyRelease != null)
            {
                finish(request);
                request.resolution.complete(request.earlyRelease);
            }
        }

        private void notifyRemoved(final List<RemovedEntry> removed)
        {
            final RemovalListener listener = ctx.removalListener;
            if (null != listener && !removed.isEmpty())
            {
                try
                {
                    listener.onRemoved(removed);
                }
                catch (final RuntimeException ex)
                {
                    LOG.warn("removal listener failed on {} entries", removed.size(), ex);
                }
            }
        }

        private void complete(final Request request, final Object value)
        {
            finish(request);
            request.future.complete(value);
        }

        private void finish(final Request request)
        {
            request.done = true;
            inFlight.remove(request.sequence);
        }
    }

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
