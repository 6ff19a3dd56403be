package dev.offcache.transport.media;

import java.net.InetAddress;
import java.net.UnknownHostException;

import io.aeron.ChannelUri;
import io.aeron.CommonContext;

/**
 * Builds and checks the Aeron channel strings the transport uses: IPC, and UDP on a host:port (127.0.0.1 in
 * tests). Publications get explicit {@code term-length} and {@code mtu} parameters so the sizing holds on an
 * external media driver with other defaults too.
 */
public final class TransportChannels
{
    /** The IPC channel. */
    public static final String IPC = CommonContext.IPC_CHANNEL;

    private TransportChannels()
    {
    }

    /**
     * A UDP channel on one endpoint.
     *
     * @param host interface address, for example {@code 127.0.0.1}.
     * @param port UDP port; 0 on a subscription lets the OS choose (see {@code tryResolveChannelEndpointPort}).
     * @return {@code aeron:udp?endpoint=host:port}.
     */
    public static String udp(final String host, final int port)
    {
        if (port < 0 || port > 65535)
        {
            throw new IllegalArgumentException("UDP port must be 0..65535: " + port);
        }
        return "aeron:udp?endpoint=" + host + ":" + port;
    }

    /**
     * Whether a channel is IPC.
     *
     * @param channel an Aeron channel.
     * @return true if it is an IPC channel.
     */
    public static boolean isIpc(final String channel)
    {
        return ChannelUri.parse(channel).isIpc();
    }

    /**
     * Whether a UDP channel's endpoint is a loopback address ({@code 127.0.0.0/8}, {@code ::1} or
     * {@code localhost}), where datagrams up to 64 KiB are never fragmented. Host names other than
     * {@code localhost} are not resolved (that could block): they count as remote.
     *
     * @param channel an Aeron channel URI.
     * @return true for a UDP channel whose endpoint host is a loopback literal.
     */
    public static boolean isLoopback(final String channel)
    {
        final ChannelUri uri = ChannelUri.parse(channel);
        final String endpoint = uri.isUdp() ? uri.get(CommonContext.ENDPOINT_PARAM_NAME) : null;
        if (endpoint == null)
        {
            return false;
        }
        final int colon = endpoint.lastIndexOf(':');
        String host = colon > 0 ? endpoint.substring(0, colon) : endpoint;
        if (host.startsWith("[") && host.endsWith("]"))
        {
            host = host.substring(1, host.length() - 1);
        }
        if ("localhost".equalsIgnoreCase(host))
        {
            return true;
        }
        if (host.indexOf(':') < 0 && !host.matches("\\d{1,3}(\\.\\d{1,3}){3}"))
        {
            return false;
        }
        try
        {
            // A literal, so no lookup happens.
            return InetAddress.getByName(host).isLoopbackAddress();
        }
        catch (final UnknownHostException ex)
        {
            return false;
        }
    }

    /**
     * Add {@code term-length} and {@code mtu} to a publication channel unless it already names them.
     *
     * @param channel    the channel.
     * @param termLength term length (power of two, 64 KiB..1 GiB).
     * @param mtu        MTU (multiple of 32, 1024..65504).
     * @return the channel with both parameters.
     */
    public static String withTermLengthAndMtu(final String channel, final int termLength, final int mtu)
    {
        checkTermLength("termLength", termLength);
        checkMtu("mtu", mtu);
        final ChannelUri uri = ChannelUri.parse(channel);
        if (uri.get(CommonContext.TERM_LENGTH_PARAM_NAME) == null)
        {
            uri.put(CommonContext.TERM_LENGTH_PARAM_NAME, Integer.toString(termLength));
        }
        if (uri.get(CommonContext.MTU_LENGTH_PARAM_NAME) == null)
        {
            uri.put(CommonContext.MTU_LENGTH_PARAM_NAME, Integer.toString(mtu));
        }
        return uri.toString();
    }

    /**
     * Check a term length.
     *
     * @param name       the setting, for the message.
     * @param termLength the value to check.
     * @throws IllegalArgumentException unless a power of two from 64 KiB to 1 GiB.
     */
    public static void checkTermLength(final String name, final int termLength)
    {
        if (termLength < 64 * 1024 || termLength > 1024 * 1024 * 1024 || Integer.bitCount(termLength) != 1)
        {
            throw new IllegalArgumentException(name + " must be a power of two from 64 KiB to 1 GiB: " +
                termLength);
        }
    }

    /**
     * Check an MTU.
     *
     * @param name the setting, for the message.
     * @param mtu  the value to check.
     * @throws IllegalArgumentException unless a multiple of 32 from 1024 to 65504.
     */
    public static void checkMtu(final String name, final int mtu)
    {
        if (mtu < 1024 || mtu > 65504 || (mtu & 31) != 0)
        {
            throw new IllegalArgumentException(name + " must be a multiple of 32 from 1024 to 65504: " + mtu);
        }
    }
}
