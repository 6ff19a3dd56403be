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
import io.aeron.logbuffer.FrameDescriptor;
import io.aeron.logbuffer.Header;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The block client's duty cycle; every field is owned by the agent thread. It keeps the connection (HELLO until
 * the server's response image appears; a lost image fails every fetch already sent), sends queued FETCH frames,
 * and reassembles CHUNK frames fragment by fragment straight into each fetch's destination: the first fragment
 * of a message carries the frame header, later fragments of the same message (same image session) continue it,
 * so a chunk is copied once, term buffer to destination, whatever the fragment boundaries or poll limits.
 */
final class BlockClientAgent implements Agent, FragmentHandler
{
    private static final Logger LOG = LoggerFactory.getLogger(BlockClientAgent.class);
    private static final long HOUSEKEEPING_INTERVAL_NS = 1_000_000L;
    private static final int NO_IMAGE = 0;

    private final BlockClient.Context ctx;
    private final Aeron aeron;
    private final ManyToOneConcurrentArrayQueue<Fetch> submissions;
    private final ExclusivePublication requests;
    private final Subscription responses;
    private final boolean ipcResponses;
    private final ArrayDeque<Fetch> waiting = new ArrayDeque<>();
    private final Long2ObjectHashMap<Fetch> inFlight = new Long2ObjectHashMap<>();
    private final Int2ObjectHashMap<ChunkCursor> cursors = new Int2ObjectHashMap<>();
    private final ArrayList<Fetch> scratch = new ArrayList<>();
    private final FrameHeader inHeader = new FrameHeader();
    private final FrameHeader outHeader = new FrameHeader();
    private final UnsafeBuffer sendBuffer = new UnsafeBuffer(
        ByteBuffer.allocateDirect(FrameHeader.LENGTH + Math.max(FrameHeader.MAX_ID_LENGTH,
        FrameHeader.MAX_CHANNEL_LENGTH)));
    private String helloChannel;
    private int connectedImageSessionId = NO_IMAGE;
    private volatile boolean connected;
    private long nowNs;
    private long nextHousekeepingNs;
    private long nextHelloNs;

    BlockClientAgent(final BlockClient.Context ctx, final ManyToOneConcurrentArrayQueue<Fetch> submissions)
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
        cursors.clear();
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
            fetch.deadlineNs = nowNs + fetch.timeoutNs;
            waiting.add(fetch);
            count++;
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
        failInFlight(ErrorCode.CONNECTION_LOST, reason);
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
        final int flags = header.flags();
        final int sessionId = header.sessionId();
        if (sessionId != connectedImageSessionId)
        {
            return; // a stale image of a previous server, or a misconfigured second publisher on our stream
        }
        if ((flags & FrameDescriptor.BEGIN_FRAG_FLAG) == 0)
        {
            final ChunkCursor cursor = cursors.get(sessionId);
            if (cursor != null && cursor.fetch != null)
            {
                continueChunk(cursor, buffer, offset, length, (flags & FrameDescriptor.END_FRAG_FLAG) != 0);
            }
            return;
        }
        if (length < FrameHeader.LENGTH)
        {
            LOG.warn("dropped a {}-byte response fragment from session {}: shorter than a header", length, sessionId);
            return;
        }
        final FrameHeader in = inHeader.wrap(buffer, offset);
        final int type = in.type();
        if (type == FrameType.CHUNK)
        {
            beginChunk(sessionId, in, buffer, offset, length, (flags & FrameDescriptor.END_FRAG_FLAG) != 0);
        }
        else if (type == FrameType.ERROR)
        {
            final Fetch fetch = inFlight.remove(in.correlationId());
            if (fetch != null)
            {
                final int messageLength = Math.min(in.varLength(), length - FrameHeader.LENGTH);
                final String message = buffer.getStringWithoutLengthAscii(in.varOffset(), messageLength);
                fetch.fail(new FetchException(in.errorCode(), "server answered fetch " + fetch.describe() +
                    " with: " + message));
            }
        }
        else
        {
            LOG.warn("dropped a response frame of type {} from session {}", FrameType.name(type), sessionId);
        }
    }

    private void beginChunk(
        final int sessionId,
        final FrameHeader in,
        final DirectBuffer buffer,
        final int offset,
        final int length,
        final boolean lastFragment)
    {
        ChunkCursor cursor = cursors.get(sessionId);
        if (cursor == null)
        {
            cursor = new ChunkCursor();
            cursors.put(sessionId, cursor);
        }
        final Fetch fetch = inFlight.get(in.correlationId());
        cursor.fetch = null;
        if (fetch == null)
        {
            return; // timed out or cancelled: skip the rest of this chunk
        }
        final long position = in.offset();
        final long totalLength = in.length();
        if (fetch.totalLength < 0)
        {
            if (position != 0 || totalLength < 0)
            {
                protocolError(fetch, "first chunk at position " + position + " of " + totalLength);
                return;
            }
            if (totalLength > fetch.destinationSpace())
            {
                inFlight.remove(fetch.correlationId);
                fetch.fail(new FetchException(ErrorCode.DESTINATION_TOO_SMALL, totalLength +
                    "-byte payload does not fit the " + fetch.destinationSpace() +
                    " bytes left in the destination: fetch " + fetch.describe()));
                sendCancel(fetch.correlationId);
                return;
            }
            fetch.totalLength = totalLength;
        }
        else if (position != fetch.received || totalLength != fetch.totalLength)
        {
            protocolError(fetch, "chunk at position " + position + " of " + totalLength + ", expected " +
                fetch.received + " of " + fetch.totalLength);
            return;
        }
        cursor.fetch = fetch;
        cursor.remaining = in.varLength();
        if (fetch.received + cursor.remaining > fetch.totalLength)
        {
            protocolError(fetch, "chunk of " + cursor.remaining + " bytes overruns the payload");
            cursor.fetch = null;
            return;
        }
        if (cursor.remaining == 0 && lastFragment)
        {
            if (fetch.handler != null && fetch.totalLength == 0)
            {
                deliver(cursor, buffer, offset + FrameHeader.LENGTH, 0);
            }
            finishChunk(cursor);
            return;
        }
        continueChunk(cursor, buffer, offset + FrameHeader.LENGTH, length - FrameHeader.LENGTH, lastFragment);
    }

    private void continueChunk(
        final ChunkCursor cursor,
        final DirectBuffer buffer,
        final int offset,
        final int length,
        final boolean lastFragment)
    {
        if (length > cursor.remaining)
        {
            protocolError(cursor.fetch, "fragment of " + length + " bytes overruns its chunk");
            cursor.fetch = null;
            return;
        }
        if (length > 0)
        {
            deliver(cursor, buffer, offset, length);
        }
        if (lastFragment && cursor.fetch != null)
        {
            finishChunk(cursor);
        }
    }

    private void deliver(final ChunkCursor cursor, final DirectBuffer buffer, final int offset, final int length)
    {
        final Fetch fetch = cursor.fetch;
        try
        {
            fetch.deliver(buffer, offset, length, fetch.received);
        }
        catch (final RuntimeException ex)
        {
            inFlight.remove(fetch.correlationId);
            fetch.fail(new FetchException(ErrorCode.HANDLER_FAILED,
                "chunk handler failed on fetch " + fetch.describe(), ex));
            sendCancel(fetch.correlationId);
            cursor.fetch = null;
            return;
        }
        fetch.received += length;
        cursor.remaining -= length;
    }

    private void finishChunk(final ChunkCursor cursor)
    {
        final Fetch fetch = cursor.fetch;
        cursor.fetch = null;
        if (cursor.remaining != 0)
        {
            protocolError(fetch, "chunk ended " + cursor.remaining + " bytes short");
            return;
        }
        if (fetch.received == fetch.totalLength)
        {
            inFlight.remove(fetch.correlationId);
            fetch.complete();
        }
    }

    private void protocolError(final Fetch fetch, final String detail)
    {
        inFlight.remove(fetch.correlationId);
        fetch.fail(new FetchException(ErrorCode.PROTOCOL_ERROR, detail + ": fetch " + fetch.describe()));
        sendCancel(fetch.correlationId);
    }

    /**
     * Where the message being reassembled from one response image stands.
     */
    private static final class ChunkCursor
    {
        Fetch fetch;
        int remaining;
    }
}
