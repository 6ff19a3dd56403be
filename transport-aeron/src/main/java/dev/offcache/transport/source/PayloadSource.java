package dev.offcache.transport.source;

import org.agrona.DirectBuffer;

/**
 * The server's view of where blocks and partitions live: resolves an id to a readable off-heap region.
 * Implementations keep ownership of the memory; the server only holds a {@link PayloadHandle} between
 * {@link #open} and {@link PayloadHandle#release()}. Called from the server's duty-cycle thread only, but a
 * source may be shared with writers on other threads, so it must be thread-safe against them.
 */
@FunctionalInterface
public interface PayloadSource
{
    /**
     * Resolve an id and take a reference to its bytes.
     *
     * @param id       buffer holding the id (ASCII, as the client sent it; a view of the request frame).
     * @param idOffset offset of the id in {@code id}.
     * @param idLength length of the id in bytes.
     * @return a handle the caller must {@link PayloadHandle#release() release} exactly once.
     * @throws PayloadSourceException naming the {@link dev.offcache.transport.wire.ErrorCode} to send back, when the
     *                              id is unknown, deleted, corrupt or unreadable.
     */
    PayloadHandle open(DirectBuffer id, int idOffset, int idLength) throws PayloadSourceException;
}
