package dev.offcache.transport.client;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;

import dev.offcache.transport.media.TransportChannels;
import dev.offcache.transport.wire.ErrorCode;
import dev.offcache.transport.wire.FrameHeader;
import dev.offcache.transport.wire.FrameType;
import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.Image;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.logbuffer.FragmentHandler;
import io.aeron.logbuffer.Header;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The payload client's duty cycle; every field is owned by the thread running it ({@link ClientDuty}: the agent
 * thread or a waiting caller, one at a time). It keeps the connection (HELLO until
 * the server's response image appears), sends queued FETCH frames, expires fetches past their deadline, and hands
 * response fragments of the connected image to its {@link ResponseAssembler}. A lost image fails every fetch sent
 * or queued, and until the server answers a HELLO again every new fetch fails at once with
 * {@link ErrorCode#CONNECTION_LOST}: a known-lost connection never holds a fetch until its deadline. (Before the
 * first connection, fetches wait for it within their deadline.)
 */
final class PayloadClientAgent implements Agent, FragmentHandler
{
    private static final Logger LOG = LoggerFactory.getLogger(PayloadClientAgent.class);
    private static final long HOUSEKEEPING_INTERVAL_NS = 1_000_000L;
    private static final int NO_IMAGE = 0;
    /** How long after the last response fragment (or FETCH sent) a client with fetches in flight keeps yielding. */
    static final long AWAIT_RESPONSE_WINDOW_NS = 1_000_000L;

    private final PayloadClient.Context ctx;
    private final Aeron aeron;
    private final ManyToOneConcurrentArrayQueue<Fetch> submissions;
    private final ExclusivePublication requests;
    private final Subscription responses;
    private final boolean ipcResponses;
    private final ArrayDeque<Fetch> waiting = new ArrayDeque<>();
    private final Long2ObjectHashMap<Fetch> inFlight = new Long2ObjectHashMap<>();
    private final ResponseAssembler assembler = new ResponseAssembler(inFlight, this::sendCancel);
    private final ArrayList<Fetch> scratch = new ArrayList<>();
    private final FrameHeader outHeader = new FrameHeader();
    private final UnsafeBuffer sendBuffer = new UnsafeBuffer(
        ByteBuffer.allocateDirect(FrameHeader.LENGTH + Math.max(FrameHeader.MAX_ID_LENGTH,
        FrameHeader.MAX_CHANNEL_LENGTH)));
    private String helloChannel;
    private int connectedImageSessionId = NO_IMAGE;
    private volatile boolean connected;
    private String lostReason;
    private long lostAtNs;
    private long nowNs;
    private long nextHousekeepingNs;
    private long nextHelloNs;
    private long lastExchangeNs;

    PayloadClientAgent(final PayloadClient.Context ctx, final ManyToOneConcurrentArrayQueue<Fetch> submissions)
    {
        this.ctx = ctx;
        this.aeron = ctx.aeron();
        this.submissions = submissions;
        this.ipcResponses = TransportChannels.isIpc(ctx.responseChannel());
        this.responses = aeron.addSubscription(ctx.responseChannel(), ctx.responseStreamId());
        ExclusivePublication publication = null;
        try
        {
            publication = aeron.addExclusivePublication(ctx.requestChannel(), ctx.requestStreamId());
        }
        finally
        {
            if (publication == null)
            {
                CloseHelper.quietClose(responses);
            }
        }
        this.requests = publication;
        outHeader.wrapForEncode(sendBuffer, 0);
    }

    boolean isConnected()
    {
        return connected;
    }

    /**
     * Whether a response is coming: fetches are in flight and something was sent or received within
     * {@link #AWAIT_RESPONSE_WINDOW_NS}. Asked on the thread holding the duty cycle.
     */
    boolean awaitingResponse()
    {
        return !inFlight.isEmpty() && System.nanoTime() - lastExchangeNs < AWAIT_RESPONSE_WINDOW_NS;
    }

    /**
     * Whether fetches are queued or in flight (on the thread holding the duty cycle).
     *
     * @return true while the agent has fetches to serve.
     */
    boolean hasWork()
    {
        return !waiting.isEmpty() || !inFlight.isEmpty();
    }

    public String roleName()
    {
        return "offcache-" + ctx.clientName();
    }

    public int doWork()
    {
        nowNs = System.nanoTime();
        int work = drainSubmissions();
        if (nowNs - nextHousekeepingNs >= 0)
        {
            nextHousekeepingNs = nowNs + HOUSEKEEPING_INTERVAL_NS;
            work += maintainConnection();
            work += expire();
        }
        if (connected)
        {
            work += sendWaiting();
        }
        work += responses.poll(this, ctx.fragmentLimit());
        return work;
    }

    /**
     * The part of a duty cycle a submitting caller runs: take queued fetches and send them if connected.
     */
    void send()
    {
        nowNs = System.nanoTime();
        drainSubmissions();
        if (connected)
        {
            sendWaiting();
        }
    }

    public void onClose()
    {
        drainSubmissions();
        failAll(ErrorCode.CLIENT_CLOSED, "client closed");
        if (requests.isConnected())
        {
            outHeader.encode(FrameType.GOODBYE, ErrorCode.OK, aeron.clientId(), 0, 0, 0, 0);
            requests.offer(sendBuffer, 0, FrameHeader.LENGTH);
        }
        CloseHelper.quietCloseAll(requests, responses);
    }

    void failAll(final int errorCode, final String reason)
    {
        for (final Fetch fetch : waiting)
        {
            fetch.fail(new FetchException(errorCode, reason + ": fetch " + fetch.describe()));
        }
        waiting.clear();
        failInFlight(errorCode, reason);
    }

    private void failInFlight(final int errorCode, final String reason)
    {
        scratch.clear();
        scratch.addAll(inFlight.values());
        inFlight.clear();
        assembler.clear();
        for (final Fetch fetch : scratch)
        {
            fetch.fail(new FetchException(errorCode, reason + ": fetch " + fetch.describe()));
        }
        scratch.clear();
    }

    private int drainSubmissions()
    {
        int count = 0;
        Fetch fetch;
        while ((fetch = submissions.poll()) != null)
        {
            count++;
            if (lostReason != null)
            {
                fetch.fail(new FetchException(ErrorCode.CONNECTION_LOST, "connection to " + ctx.requestChannel() +
                    " lost " + (nowNs - lostAtNs) / 1_000_000 + " ms ago (" + lostReason + ") and not " +
                    "re-established: fetch " + fetch.describe()));
                continue;
            }
            fetch.deadlineNs = nowNs + fetch.timeoutNs;
            waiting.add(fetch);
        }
        return count;
    }

    private int maintainConnection()
    {
        if (helloChannel == null)
        {
            helloChannel = ipcResponses ? ctx.responseChannel() : responses.tryResolveChannelEndpointPort();
            if (helloChannel == null)
            {
                return 0;
            }
        }
        if (connected)
        {
            final Image image = responses.imageBySessionId(connectedImageSessionId);
            if (image == null || image.isClosed() || image.isEndOfStream())
            {
                connectionLost("the server's response image went away (server stopped or unreachable)");
                return 1;
            }
            return 0;
        }
        final int imageCount = responses.imageCount();
        for (int i = 0; i < imageCount; i++)
        {
            final Image image = responses.imageAtIndex(i);
            if (!image.isClosed() && !image.isEndOfStream())
            {
                connected = true;
                lostReason = null;
                connectedImageSessionId = image.sessionId();
                LOG.debug("connected: responses from session {} on {} stream {} source {}", connectedImageSessionId,
                    helloChannel, ctx.responseStreamId(), image.sourceIdentity());
                return 1;
            }
        }
        if (requests.isConnected() && nowNs - nextHelloNs >= 0)
        {
            nextHelloNs = nowNs + ctx.helloIntervalNs();
            final int channelLength = sendBuffer.putStringWithoutLengthAscii(FrameHeader.LENGTH, helloChannel);
            outHeader.encode(FrameType.HELLO, ErrorCode.OK, aeron.clientId(), 0, 0, ctx.responseStreamId(),
                channelLength);
            requests.offer(sendBuffer, 0, FrameHeader.LENGTH + channelLength);
            return 1;
        }
        return 0;
    }

    private void connectionLost(final String reason)
    {
        LOG.info("connection to {} lost: {}", ctx.requestChannel(), reason);
        connected = false;
        connectedImageSessionId = NO_IMAGE;
        nextHelloNs = nowNs;
        lostReason = reason;
        lostAtNs = nowNs;
        failAll(ErrorCode.CONNECTION_LOST, reason);
    }

    private int sendWaiting()
    {
        int work = 0;
        Fetch fetch;
        while ((fetch = waiting.peek()) != null)
        {
            final int idLength = sendBuffer.putStringWithoutLengthAscii(FrameHeader.LENGTH, fetch.id);
            outHeader.encode(FrameType.FETCH, ErrorCode.OK, fetch.correlationId, fetch.offset, fetch.length, 0,
                idLength);
            final long result = requests.offer(sendBuffer, 0, FrameHeader.LENGTH + idLength);
            if (result < 0)
            {
                if (result != Publication.BACK_PRESSURED && result != Publication.ADMIN_ACTION)
                {
                    LOG.debug("FETCH not sent ({}), waiting for the connection", result);
                }
                break;
            }
            waiting.poll();
            lastExchangeNs = nowNs;
            fetch.sent = true;
            inFlight.put(fetch.correlationId, fetch);
            work++;
        }
        return work;
    }

    private int expire()
    {
        int work = 0;
        if (!waiting.isEmpty())
        {
            for (final Iterator<Fetch> it = waiting.iterator(); it.hasNext(); )
            {
                final Fetch fetch = it.next();
                if (nowNs - fetch.deadlineNs > 0)
                {
                    it.remove();
                    fetch.fail(new FetchException(ErrorCode.TIMEOUT, "not sent within " +
                        fetch.timeoutNs / 1_000_000 + " ms (" + (connected ? "connected but back-pressured" :
                        "no connection to " + ctx.requestChannel() + " stream " + ctx.requestStreamId()) +
                        "): fetch " + fetch.describe()));
                    work++;
                }
            }
        }
        if (!inFlight.isEmpty())
        {
            scratch.clear();
            for (final Fetch fetch : inFlight.values())
            {
                if (nowNs - fetch.deadlineNs > 0)
                {
                    scratch.add(fetch);
                }
            }
            for (final Fetch fetch : scratch)
            {
                inFlight.remove(fetch.correlationId);
                fetch.fail(new FetchException(ErrorCode.TIMEOUT, "no complete response within " +
                    fetch.timeoutNs / 1_000_000 + " ms: fetch " + fetch.describe()));
                sendCancel(fetch.correlationId);
                work++;
            }
            scratch.clear();
        }
        return work;
    }

    private void sendCancel(final long correlationId)
    {
        outHeader.encode(FrameType.CANCEL, ErrorCode.OK, correlationId, 0, 0, 0, 0);
        requests.offer(sendBuffer, 0, FrameHeader.LENGTH); // best effort: the server's own deadline backs it up
    }

    public void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        final int sessionId = header.sessionId();
        if (sessionId != connectedImageSessionId)
        {
            return; // a stale image of a previous server, or a misconfigured second publisher on our stream
        }
        lastExchangeNs = nowNs;
        assembler.onFragment(buffer, offset, length, header.flags(), sessionId);
    }
}
