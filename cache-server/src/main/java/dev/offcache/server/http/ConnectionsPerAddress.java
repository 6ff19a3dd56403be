package dev.offcache.server.http;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.ConcurrentHashMap;

import io.netty.channel.Channel;

/**
 * Open connections per client address, capped, so that one client (one host, or one attacker) cannot take every
 * connection slot of the server. A connection counts from {@link #tryOpen} until it closes; an address with no
 * connection left is forgotten, so the map holds only addresses with open connections. Thread-safe: connections of
 * one address open and close on different event loops.
 */
final class ConnectionsPerAddress
{
    private final int limit;
    private final ConcurrentHashMap<InetAddress, Integer> open = new ConcurrentHashMap<>();

    ConnectionsPerAddress(final int limit)
    {
        this.limit = limit;
    }

    /**
     * Counts a new connection, unless its address is at the limit.
     *
     * @param channel the accepted connection.
     * @return false when the address already has {@code limit} connections (the caller closes this one).
     */
    boolean tryOpen(final Channel channel)
    {
        final SocketAddress remote = channel.remoteAddress();
        if (!(remote instanceof InetSocketAddress))
        {
            return true;
        }
        final InetAddress address = ((InetSocketAddress) remote).getAddress();
        final boolean[] admitted = new boolean[1];
        open.compute(address, (key, count) ->
        {
            final int n = null == count ? 0 : count;
            admitted[0] = n < limit;
            return admitted[0] ? Integer.valueOf(n + 1) : count;
        });
        if (admitted[0])
        {
            channel.closeFuture().addListener((f) -> close(address));
        }
        return admitted[0];
    }

    private void close(final InetAddress address)
    {
        open.computeIfPresent(address, (key, count) -> count == 1 ? null : Integer.valueOf(count - 1));
    }

    /**
     * Open connections from an address.
     *
     * @param address the client address.
     * @return the count.
     */
    int openFrom(final InetAddress address)
    {
        final Integer count = open.get(address);
        return null == count ? 0 : count;
    }
}
