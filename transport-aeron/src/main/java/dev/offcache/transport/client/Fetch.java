package dev.offcache.transport.client;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * One outstanding fetch. Created on the caller's thread, then owned by the thread running the client's duty cycle.
 */
final class Fetch
{
    final String id;
    final long offset;
    final long length;
    final MutableDirectBuffer destination;
    final int destinationOffset;
    final ChunkHandler handler;
    final long timeoutNs;
    final FetchFuture future;
    long correlationId;
    long deadlineNs;
    long totalLength = -1;
    long received;
    boolean sent;
    boolean done;

    Fetch(
        final String id,
        final long offset,
        final long length,
        final MutableDirectBuffer destination,
        final int destinationOffset,
        final ChunkHandler handler,
        final long timeoutNs,
        final ClientDuty duty)
    {
        this.future = new FetchFuture(duty);
        this.id = id;
        this.offset = offset;
        this.length = length;
        this.destination = destination;
        this.destinationOffset = destinationOffset;
        this.handler = handler;
        this.timeoutNs = timeoutNs;
    }

    long destinationSpace()
    {
        return destination == null ? Long.MAX_VALUE : (long) destination.capacity() - destinationOffset;
    }

    /**
     * Hands one piece to the destination or handler, unless the fetch has ended (for any reason).
     *
     * @return false when the fetch had ended and nothing was delivered.
     */
    boolean deliver(final DirectBuffer buffer, final int offset, final int length, final long position)
    {
        if (!future.beginDelivery())
        {
            return false;
        }
        try
        {
            write(buffer, offset, length, position);
        }
        finally
        {
            future.endDelivery();
        }
        return true;
    }

    boolean hasEnded()
    {
        return done || future.isEnded();
    }

    private void write(final DirectBuffer buffer, final int offset, final int length, final long position)
    {
        if (destination != null)
        {
            destination.putBytes(destinationOffset + (int) position, buffer, offset, length);
        }
        else
        {
            handler.onChunk(buffer, offset, length, position, totalLength);
        }
    }

    void complete()
    {
        done = true;
        future.complete(totalLength);
    }

    void fail(final FetchException ex)
    {
        done = true;
        future.completeExceptionally(ex);
    }

    String describe()
    {
        return "'" + id + "' (correlation " + correlationId + ", " + received + " of " +
            (totalLength < 0 ? "?" : Long.toString(totalLength)) + " bytes received)";
    }
}
