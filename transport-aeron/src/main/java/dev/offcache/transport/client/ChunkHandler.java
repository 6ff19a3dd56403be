package dev.offcache.transport.client;

import org.agrona.DirectBuffer;

/**
 * Receives a streamed fetch piece by piece, in order, straight from the Aeron term buffer (no copy).
 * Called on the client's duty-cycle thread; the view is valid only during the call. Pieces follow Aeron's
 * fragment boundaries, so their sizes vary; {@code position} says where each piece starts in the payload.
 */
@FunctionalInterface
public interface ChunkHandler
{
    /**
     * Handle one piece of the payload.
     *
     * @param buffer      holding the piece.
     * @param offset      of the piece in {@code buffer}.
     * @param length      of the piece (0 only for an empty payload).
     * @param position    of the piece's first byte within the payload.
     * @param totalLength of the whole payload.
     */
    void onChunk(DirectBuffer buffer, int offset, int length, long position, long totalLength);
}
