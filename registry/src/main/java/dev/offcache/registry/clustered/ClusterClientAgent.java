package dev.offcache.registry.clustered;

import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.aeron.Aeron;
import io.aeron.Publication;
import io.aeron.cluster.client.AeronCluster;
import io.aeron.cluster.client.EgressListener;
import io.aeron.cluster.codecs.EventCode;
import io.aeron.logbuffer.Header;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.offcache.registry.api.Acquisition;
import dev.offcache.registry.api.RegistryClosedException;
import dev.offcache.registry.api.RemovalListener;
import dev.offcache.registry.api.Resolution;
import dev.offcache.registry.codec.RecordReader;
import dev.offcache.registry.command.CommandType;
import dev.offcache.registry.state.BeginOutcome;
import dev.offcache.registry.state.RemovedEntry;

/**
 * The {@link RegistryClusterClient}'s agent thread: takes the commands callers handed over, numbers them (the
 * client's next sequence), keeps them in flight and offers them through its {@link AeronCluster} session; reassembles
 * the egress chunks, decodes replies and releases ({@link WireCodec#decodeAnswer}) and completes the futures. On a
 * new leader, a new session or a resend timeout it resends everything unanswered in sequence order (the service
 * answers a resend from its de-duplication table). Everything here runs on the agent thread, except the counters
 * the client reads (volatile) and {@link #failAll()}, which the client calls after the agent stopped.
 */
final class ClusterClientAgent implements Agent, EgressListener
{
    private static final Logger LOG = LoggerFactory.getLogger(RegistryClusterClient.class);

    private final RegistryClusterClient.Context ctx;
    private final Aeron aeron;
    private final Queue<ClientRequest> submissions;
    private final Long2ObjectHashMap<ClientRequest> inFlight = new Long2ObjectHashMap<>();
    private final ArrayDeque<ClientRequest> order = new ArrayDeque<>();
    private final ArrayDeque<ClientRequest> unsent = new ArrayDeque<>();
    private final UnsafeBuffer sendBuffer = new UnsafeBuffer(new byte[0]);
    private final RecordReader reader = new RecordReader();
    private AeronCluster cluster;
    private AeronCluster.AsyncConnect connecting;
    private long nextSequence = 1;
    private long nextConnectNs;
    private long lastSendNs;
    private long lastEgressNs;
    private long lastResendCheckNs;

    private volatile boolean connected;
    private volatile int leaderMemberId = -1;
    private volatile long resendRounds;
    private volatile long sessionsOpened;

    /**
     * An agent.
     *
     * @param ctx         the client's concluded configuration.
     * @param aeron       the client's Aeron client.
     * @param submissions where callers hand their commands over.
     */
    ClusterClientAgent(
        final RegistryClusterClient.Context ctx, final Aeron aeron, final Queue<ClientRequest> submissions)
    {
        this.ctx = ctx;
        this.aeron = aeron;
        this.submissions = submissions;
    }

    boolean isConnected()
    {
        return connected;
    }

    int leaderMemberId()
    {
        return leaderMemberId;
    }

    long resendRounds()
    {
        return resendRounds;
    }

    long sessionsOpened()
    {
        return sessionsOpened;
    }

    // ---- Agent ------------------------------------------------------------------------------------------------------

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
        return ctx.threadName();
    }

    public void onClose()
    {
        CloseHelper.quietClose(cluster);
        CloseHelper.quietClose(connecting);
        cluster = null;
        connecting = null;
    }

    // ---- EgressListener: replies, releases, leader changes ----------------------------------------------------------

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
        final ClientRequest request = inFlight.get(sequence);
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
        this.leaderMemberId = leaderMemberId;
        resendAll();
    }

    void failAll()
    {
        final RegistryClosedException closedException =
            new RegistryClosedException("registry cluster client is closed", null);
        for (final ClientRequest request : order)
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

    // ---- sending, resending -----------------------------------------------------------------------------------------

    private int drainSubmissions()
    {
        int count = 0;
        ClientRequest request;
        while (count < 1024 && (request = submissions.poll()) != null)
        {
            request.sequence = nextSequence++;
            if (request.type == CommandType.ACQUIRE || request.type == CommandType.AWAIT)
            {
                request.resolution = request.type == CommandType.AWAIT ? castFuture(request.future) :
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
                    .ingressChannel(ctx.ingressChannel())
                    .ingressEndpoints(ctx.ingressEndpoints())
                    .egressChannel(ctx.egressChannel())
                    .messageTimeoutNs(ctx.messageTimeoutNs())
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
        ClientRequest request;
        while ((request = unsent.peek()) != null)
        {
            if (request.done)
            {
                unsent.poll();
                continue;
            }
            sendBuffer.wrap(request.bytes);
            sendBuffer.putLong(WireCodec.CLIENT_ID_OFFSET, ctx.clientId());
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
        ClientRequest head;
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
        for (final ClientRequest request : order)
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
        for (final ClientRequest request : order)
        {
            if (!request.done && !request.replied && request.sentNs != 0 &&
                now - request.sentNs > ctx.resendTimeoutNs())
            {
                resendAll();
                return;
            }
        }
    }

    // ---- answers ----------------------------------------------------------------------------------------------------

    private void onAnswer(
        final ClientRequest request, final byte kind, final DirectBuffer buffer, final int offset, final int length)
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

    @SuppressWarnings("unchecked")
    private void decodeReply(final ClientRequest request)
    {
        final Object answer = WireCodec.decodeAnswer(request.type, reader);
        switch (request.type)
        {
            case INVALIDATE, INVALIDATE_JOB, INVALIDATE_EXECUTOR, REMOVE_SESSION, SWEEP ->
            {
                notifyRemoved((List<RemovedEntry>) answer);
                complete(request, answer);
            }
            case ACQUIRE ->
            {
                if (answer instanceof BeginOutcome.AlreadyMaterialized materialized)
                {
                    complete(request, new Acquisition.Hit(materialized.entry()));
                }
                else if (answer instanceof BeginOutcome.AlreadyPending pending)
                {
                    request.future.complete(new Acquisition.Wait(pending.jobId(), request.resolution));
                    releaseIfEarly(request);
                }
                else
                {
                    complete(request, new Acquisition.Claimed());
                }
            }
            case AWAIT ->
            {
                if (answer == null)
                {
                    releaseIfEarly(request);
                }
                else
                {
                    complete(request, answer);
                }
            }
            default -> complete(request, answer);
        }
    }

    private void releaseIfEarly(final ClientRequest request)
    {
        if (request.earlyRelease != null)
        {
            finish(request);
            request.resolution.complete(request.earlyRelease);
        }
    }

    private void notifyRemoved(final List<RemovedEntry> removed)
    {
        final RemovalListener listener = ctx.removalListener();
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

    private void complete(final ClientRequest request, final Object value)
    {
        finish(request);
        request.future.complete(value);
    }

    private void finish(final ClientRequest request)
    {
        request.done = true;
        inFlight.remove(request.sequence);
    }
}
