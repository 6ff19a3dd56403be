package dev.offcache.transport.client;

import java.util.function.LongConsumer;

import dev.offcache.transport.wire.ErrorCode;
import dev.offcache.transport.wire.FrameHeader;
import dev.offcache.transport.wire.FrameType;
import io.aeron.logbuffer.FrameDescriptor;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reassembles CHUNK frames fragment by fragment straight into each fetch's destination (or handler), and turns
 * ERROR frames into failed fetches. The first fragment of a message (BEGIN flag) carries the frame header and
 * names the fetch and position; later fragments of the same image session continue it up to the END flag, so a
 * chunk is copied once, term buffer to destination, whatever the fragment boundaries or poll limits, with
 * messages of different images interleaved at any fragment. Owned by the client agent thread; it completes and
 * fails fetches of the shared in-flight map and asks the agent to CANCEL fetches it gives up on.
 */
final class ResponseAssembler
{
    private static final Logger LOG = LoggerFactory.getLogger(ResponseAssembler.class);

    private final Long2ObjectHashMap<Fetch> inFlight;
    private final LongConsumer cancel;
    private final Int2ObjectHashMap<ChunkCursor> cursors = new Int2ObjectHashMap<>();
    private final FrameHeader inHeader = new FrameHeader();

    ResponseAssembler(final Long2ObjectHashMap<Fetch> inFlight, final LongConsumer cancel)
    {
        this.inFlight = inFlight;
        this.cancel = cancel;
    }

    void clear()
    {
        cursors.clear();
    }

    void onFragment(
        final DirectBuffer buffer, final int offset, final int length, final int flags, final int sessionId)
    {
        if ((flags & FrameDescriptor.BEGIN_FRAG_FLAG) == 0)
        {
            final ChunkCursor cursor = cursors.get(sessionId);
            if (cursor != null && cursor.fetch != null && stillOpen(cursor))
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
        if (fetch.hasEnded())
        {
            abandon(fetch); // ended by its caller (cancelled, completed): stop the server sending the rest
            return;
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
                cancel.accept(fetch.correlationId);
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

    /**
     * Whether the fetch a cursor continues is still running. A fetch ends on this thread (timeout, lost connection,
     * close) or on its caller's (cancel): either way the cursor drops it, so no later fragment of the chunk it was in
     * reaches the destination.
     */
    private boolean stillOpen(final ChunkCursor cursor)
    {
        final Fetch fetch = cursor.fetch;
        if (fetch.hasEnded())
        {
            cursor.fetch = null;
            abandon(fetch);
            return false;
        }
        return true;
    }

    private void abandon(final Fetch fetch)
    {
        if (inFlight.remove(fetch.correlationId) != null)
        {
            cancel.accept(fetch.correlationId);
        }
    }

    private void deliver(final ChunkCursor cursor, final DirectBuffer buffer, final int offset, final int length)
    {
        final Fetch fetch = cursor.fetch;
        try
        {
            if (!fetch.deliver(buffer, offset, length, fetch.received))
            {
                cursor.fetch = null;
                abandon(fetch);
                return;
            }
        }
        catch (final RuntimeException ex)
        {
            inFlight.remove(fetch.correlationId);
            fetch.fail(new FetchException(ErrorCode.HANDLER_FAILED,
                "chunk handler failed on fetch " + fetch.describe(), ex));
            cancel.accept(fetch.correlationId);
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
        cancel.accept(fetch.correlationId);
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
