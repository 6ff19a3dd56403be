package dev.offcache.transport.server;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;

import dev.offcache.transport.source.PayloadHandle;
import dev.offcache.transport.source.PayloadSource;
import dev.offcache.transport.source.PayloadSourceException;
import dev.offcache.transport.wire.ErrorCode;
import dev.offcache.transport.wire.FrameHeader;
import dev.offcache.transport.wire.FrameType;
import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.exceptions.RegistrationException;
import io.aeron.logbuffer.FragmentHandler;
import io.aeron.logbuffer.FrameDescriptor;
import io.aeron.logbuffer.Header;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The payload server's duty cycle. Single-threaded: every field is touched only by the agent thread. Each cycle
 * reads request frames, finishes pending response publications, sends at most one frame per in-flight request
 * (round robin, skipping a client whose publication is back-pressured this pass, so one slow client or one
 * huge partition cannot starve the others) and expires requests past their deadline.
 */
final class PayloadServerAgent implements Agent, FragmentHandler
{
    private static final Logger LOG = LoggerFactory.getLogger(PayloadServerAgent.class);
    private static final long HOUSEKEEPING_INTERVAL_NS = 1_000_000L;

    private final PayloadServer.Context ctx;
    private final Aeron aeron;
    private final PayloadSource source;
    private final Subscription requests;
    private final ServerCounters counters;
    private final Int2ObjectHashMap<ClientSession> sessionsById = new Int2ObjectHashMap<>();
    private final ArrayList<ClientSession> sessions = new ArrayList<>();
    private final ArrayList<ServedRequest> active = new ArrayList<>();
    private final ArrayDeque<ServedRequest> pool = new ArrayDeque<>();
    private final FrameHeader inHeader = new FrameHeader();
    private final FrameHeader outHeader = new FrameHeader();
    private final UnsafeBuffer sendBuffer =
        new UnsafeBuffer(ByteBuffer.allocateDirect(FrameHeader.LENGTH + FrameHeader.MAX_ERROR_MESSAGE_LENGTH));
    private final UnsafeBuffer view = new UnsafeBuffer(0, 0);
    private int payloadRequests;
    private int errorRequests;
    private long pass;
    private long nowNs;
    private long nextHousekeepingNs;

    PayloadServerAgent(final PayloadServer.Context ctx)
    {
        this.ctx = ctx;
        this.aeron = ctx.aeron();
        this.source = ctx.payloadSource();
        this.requests = aeron.addSubscription(ctx.requestChannel(), ctx.requestStreamId());
        ServerCounters allocated = null;
        try
        {
            allocated = new ServerCounters(aeron, ctx.serverName());
        }
        finally
        {
            if (allocated == null)
            {
                CloseHelper.quietClose(requests);
            }
        }
        this.counters = allocated;
        outHeader.wrapForEncode(sendBuffer, 0);
    }

    ServerCounters counters()
    {
        return counters;
    }

    public String roleName()
    {
        return "offcache-" + ctx.serverName();
    }

    public int doWork()
    {
        nowNs = System.nanoTime();
        int work = requests.poll(this, ctx.fragmentLimit());
        work += sendRound();
        if (nowNs - nextHousekeepingNs >= 0)
        {
            nextHousekeepingNs = nowNs + HOUSEKEEPING_INTERVAL_NS;
            work += housekeeping();
        }
        return work;
    }

    public void onClose()
    {
        for (int i = active.size() - 1; i >= 0; i--)
        {
            removeAt(i);
        }
        for (final ClientSession session : sessions)
        {
            closePublication(session);
        }
        sessions.clear();
        sessionsById.clear();
        CloseHelper.quietCloseAll(requests, counters);
    }

    public void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        if ((header.flags() & FrameDescriptor.UNFRAGMENTED) != FrameDescriptor.UNFRAGMENTED ||
            length < FrameHeader.LENGTH)
        {
            counters.errors.increment();
            LOG.warn("dropped a malformed request frame of {} bytes (flags {}) from session {}",
                length, header.flags(), header.sessionId());
            return;
        }
        final FrameHeader in = inHeader.wrap(buffer, offset);
        if (in.version() != FrameHeader.VERSION || in.varLength() < 0 ||
            in.varLength() > length - FrameHeader.LENGTH)
        {
            counters.errors.increment();
            LOG.warn("dropped a request frame with version {} and variable length {} from session {}",
                in.version(), in.varLength(), header.sessionId());
            return;
        }
        final int sessionId = header.sessionId();
        switch (in.type())
        {
            case FrameType.HELLO:
                onHello(sessionId, in, buffer);
                break;
            case FrameType.FETCH:
                onFetch(sessionId, in, buffer);
                break;
            case FrameType.CANCEL:
                onCancel(sessionId, in.correlationId());
                break;
            case FrameType.GOODBYE:
                final ClientSession leaving = sessionsById.get(sessionId);
                if (leaving != null)
                {
                    closeSession(leaving);
                }
                break;
            default:
                counters.errors.increment();
                LOG.warn("dropped a request frame of type {} from session {}", FrameType.name(in.type()), sessionId);
        }
    }

    private void onHello(final int sessionId, final FrameHeader in, final DirectBuffer buffer)
    {
        if (sessionsById.containsKey(sessionId))
        {
            return; // clients repeat HELLO until they see our response image
        }
        final int channelLength = in.varLength();
        if (channelLength == 0 || channelLength > FrameHeader.MAX_CHANNEL_LENGTH)
        {
            counters.errors.increment();
            LOG.warn("HELLO from session {} with a channel of {} bytes ignored", sessionId, channelLength);
            return;
        }
        final String channel = buffer.getStringWithoutLengthAscii(in.varOffset(), channelLength);
        final ClientSession session = new ClientSession(sessionId, in.correlationId(), channel, in.index());
        try
        {
            session.publicationRegistrationId = aeron.asyncAddExclusivePublication(
                ctx.responsePublicationChannel(channel), session.responseStreamId);
        }
        catch (final RuntimeException ex)
        {
            counters.errors.increment();
            LOG.warn("cannot answer {}: {}", session, ex.toString());
            return;
        }
        LOG.debug("HELLO: {}", session);
        sessionsById.put(sessionId, session);
        sessions.add(session);
        counters.sessions.setRelease(sessions.size());
    }

    private void onFetch(final int sessionId, final FrameHeader in, final DirectBuffer buffer)
    {
        counters.requests.increment();
        final ClientSession session = sessionsById.get(sessionId);
        final long correlationId = in.correlationId();
        if (session == null)
        {
            counters.errors.increment();
            LOG.warn("FETCH {} from session {} without HELLO: cannot answer", correlationId, sessionId);
            return;
        }
        final int idLength = in.varLength();
        if (idLength == 0 || idLength > FrameHeader.MAX_ID_LENGTH)
        {
            enqueueError(session, correlationId, ErrorCode.BAD_REQUEST, "id length must be 1..512: " + idLength);
            return;
        }
        final long offset = in.offset();
        final long length = in.length();
        if (offset < 0 || length < -1)
        {
            enqueueError(session, correlationId, ErrorCode.BAD_REQUEST,
                "bad range: offset " + offset + ", length " + length);
            return;
        }
        if (payloadRequests >= ctx.maxInFlightRequests() || session.inFlight >= ctx.maxInFlightPerClient())
        {
            enqueueError(session, correlationId, ErrorCode.OVERLOADED, "server overloaded: " + payloadRequests +
                " requests in flight, " + session.inFlight + " for this client");
            return;
        }
        final PayloadHandle handle;
        try
        {
            handle = source.open(buffer, in.varOffset(), idLength);
        }
        catch (final PayloadSourceException ex)
        {
            enqueueError(session, correlationId, ex.errorCode(), ex.getMessage());
            return;
        }
        catch (final RuntimeException ex)
        {
            LOG.warn("payload source failed on FETCH {}", correlationId, ex);
            enqueueError(session, correlationId, ErrorCode.SERVER_ERROR, "payload source failed: " + ex);
            return;
        }
        final long blockLength = handle.length();
        final long total = length == -1 ? blockLength - offset : length;
        if (offset > blockLength || total > blockLength - offset)
        {
            handle.release();
            enqueueError(session, correlationId, ErrorCode.BAD_REQUEST, "range [" + offset + ", +" + length +
                ") outside a block of " + blockLength + " bytes");
            return;
        }
        final ServedRequest request = acquire(session, correlationId);
        request.handle = handle;
        request.start = offset;
        request.total = total;
        session.inFlight++;
        payloadRequests++;
        counters.inFlight.setRelease(payloadRequests);
        active.add(request);
    }

    private void onCancel(final int sessionId, final long correlationId)
    {
        final ClientSession session = sessionsById.get(sessionId);
        for (int i = active.size() - 1; i >= 0; i--)
        {
            final ServedRequest request = active.get(i);
            if (request.session == session && request.correlationId == correlationId)
            {
                removeAt(i);
                return;
            }
        }
    }

    private void enqueueError(
        final ClientSession session, final long correlationId, final int errorCode, final String message)
    {
        counters.errors.increment();
        if (errorRequests >= ctx.maxInFlightRequests())
        {
            LOG.warn("too many error frames pending, dropping {} for request {} of {}",
                ErrorCode.name(errorCode), correlationId, session);
            return;
        }
        final ServedRequest request = acquire(session, correlationId);
        request.errorCode = errorCode;
        request.errorMessage = message;
        errorRequests++;
        active.add(request);
    }

    private ServedRequest acquire(final ClientSession session, final long correlationId)
    {
        ServedRequest request = pool.poll();
        if (request == null)
        {
            request = new ServedRequest();
        }
        request.session = session;
        request.correlationId = correlationId;
        request.deadlineNs = nowNs + ctx.requestTimeoutNs();
        return request;
    }

    private int sendRound()
    {
        final int size = active.size();
        if (size == 0)
        {
            return 0;
        }
        pass++;
        int work = 0;
        int index = (int) (pass % size);
        for (int visits = 0; visits < size && !active.isEmpty(); visits++)
        {
            if (index >= active.size())
            {
                index = 0;
            }
            final ServedRequest request = active.get(index);
            final ClientSession session = request.session;
            final ExclusivePublication publication = session.publication;
            if (publication == null || session.blockedInPass == pass)
            {
                index++;
                continue;
            }
            final long result = send(request, publication);
            if (result > 0)
            {
                session.wasConnected = true;
                work++;
                if (request.isError() || (request.sent == request.total && request.chunkIndex > 0))
                {
                    removeAt(index);
                }
                else
                {
                    index++;
                }
            }
            else if (result == Publication.BACK_PRESSURED || result == Publication.ADMIN_ACTION)
            {
                counters.backPressure.increment();
                session.blockedInPass = pass;
                index++;
            }
            else if (result == Publication.NOT_CONNECTED && !session.wasConnected)
            {
                index++; // the client's subscription has not seen our publication yet; wait, within the deadline
            }
            else
            {
                LOG.info("{} went away (offer returned {}), releasing its requests", session, result);
                closeSession(session);
                work++;
                break;
            }
        }
        return work;
    }

    private long send(final ServedRequest request, final ExclusivePublication publication)
    {
        if (request.isError())
        {
            final String message = request.errorMessage == null ? "" : request.errorMessage;
            final int messageLength = Math.min(message.length(), FrameHeader.MAX_ERROR_MESSAGE_LENGTH);
            for (int i = 0; i < messageLength; i++)
            {
                final char c = message.charAt(i);
                sendBuffer.putByte(FrameHeader.LENGTH + i, (byte) (c < 128 ? c : '?'));
            }
            outHeader.encode(FrameType.ERROR, request.errorCode, request.correlationId, 0, 0, 0, messageLength);
            return publication.offer(sendBuffer, 0, FrameHeader.LENGTH + messageLength);
        }

        final long remaining = request.total - request.sent;
        int chunk = (int) Math.min(request.session.maxChunkPayload, remaining);
        final long position = request.start + request.sent;
        outHeader.encode(FrameType.CHUNK, ErrorCode.OK, request.correlationId, request.sent, request.total,
            request.chunkIndex, 0);
        final long result;
        if (chunk == 0)
        {
            result = publication.offer(sendBuffer, 0, FrameHeader.LENGTH);
        }
        else
        {
            chunk = request.handle.contiguousLength(position, chunk);
            request.handle.wrap(view, position, chunk);
            sendBuffer.putInt(FrameHeader.VAR_LENGTH_OFFSET, chunk, ByteOrder.LITTLE_ENDIAN);
            result = publication.offer(sendBuffer, 0, FrameHeader.LENGTH, view, 0, chunk);
        }
        if (result > 0)
        {
            request.sent += chunk;
            request.chunkIndex++;
            counters.bytes.getAndAddRelease(chunk);
        }
        return result;
    }

    private int housekeeping()
    {
        int work = 0;
        for (int i = sessions.size() - 1; i >= 0; i--)
        {
            final ClientSession session = sessions.get(i);
            if (session.publication == null)
            {
                try
                {
                    final ExclusivePublication publication =
                        aeron.getExclusivePublication(session.publicationRegistrationId);
                    if (publication != null)
                    {
                        session.publication = publication;
                        session.maxChunkPayload =
                            Math.min(ctx.chunkLength(), publication.maxMessageLength() - FrameHeader.LENGTH);
                        work++;
                    }
                }
                catch (final RegistrationException ex)
                {
                    LOG.warn("cannot publish responses to {}: {}", session, ex.getMessage());
                    session.publicationRegistrationId = Aeron.NULL_VALUE;
                    closeSession(session);
                    work++;
                    continue;
                }
            }
            else if (session.publication.isConnected())
            {
                session.wasConnected = true;
            }
            else if (session.wasConnected)
            {
                LOG.info("{} disconnected its response subscription", session);
                closeSession(session);
                work++;
                continue;
            }
            if (requests.imageBySessionId(session.requestSessionId) == null)
            {
                LOG.info("{} request image went away", session);
                closeSession(session);
                work++;
            }
        }

        for (int i = active.size() - 1; i >= 0; i--)
        {
            final ServedRequest request = active.get(i);
            if (nowNs - request.deadlineNs > 0)
            {
                if (!request.isError())
                {
                    counters.errors.increment();
                    final ExclusivePublication publication = request.session.publication;
                    if (publication != null)
                    {
                        request.handle.release();
                        request.handle = null;
                        payloadRequests--;
                        request.session.inFlight--;
                        request.errorCode = ErrorCode.SERVER_TIMEOUT;
                        request.errorMessage = "server could not finish the response within " +
                            ctx.requestTimeoutNs() / 1_000_000 + " ms (" + request.sent + " of " + request.total +
                            " bytes sent)";
                        errorRequests++;
                        send(request, publication); // one attempt: the client times out on its own anyway
                        request.handle = null;
                    }
                }
                removeAt(i);
                work++;
            }
        }
        counters.inFlight.setRelease(payloadRequests);
        return work;
    }

    private void removeAt(final int index)
    {
        final ServedRequest request = active.remove(index);
        if (request.isError())
        {
            errorRequests--;
        }
        else
        {
            request.handle.release();
            request.session.inFlight--;
            payloadRequests--;
        }
        request.reset();
        pool.offer(request);
    }

    private void closeSession(final ClientSession session)
    {
        for (int i = active.size() - 1; i >= 0; i--)
        {
            if (active.get(i).session == session)
            {
                removeAt(i);
            }
        }
        closePublication(session);
        sessionsById.remove(session.requestSessionId);
        sessions.remove(session);
        counters.sessions.setRelease(sessions.size());
        counters.inFlight.setRelease(payloadRequests);
    }

    private void closePublication(final ClientSession session)
    {
        if (session.publication != null)
        {
            CloseHelper.quietClose(session.publication);
            session.publication = null;
        }
        else if (session.publicationRegistrationId != Aeron.NULL_VALUE)
        {
            try
            {
                aeron.asyncRemovePublication(session.publicationRegistrationId);
            }
            catch (final RuntimeException ex)
            {
                LOG.debug("removing a pending publication failed", ex);
            }
        }
        session.publicationRegistrationId = Aeron.NULL_VALUE;
    }
}
