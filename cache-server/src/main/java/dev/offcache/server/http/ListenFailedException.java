package dev.offcache.server.http;

import java.net.BindException;

/**
 * A listener of the server could not be bound. It names the address and says why in words an operator acts on
 * (the transport's own error is the cause); the server has released everything it had started when this is thrown.
 */
public final class ListenFailedException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    private final String host;
    private final int port;
    private final boolean s3Api;

    ListenFailedException(final String host, final int port, final boolean s3Api, final Throwable cause)
    {
        super("cannot listen on " + host + ":" + port + ": " + reason(cause), cause);
        this.host = host;
        this.port = port;
        this.s3Api = s3Api;
    }

    /**
     * The address asked for.
     *
     * @return HOST:PORT.
     */
    public String address()
    {
        return host + ":" + port;
    }

    /**
     * Whether the failed listener was the S3 API's, not the {@code /obj} API's.
     *
     * @return true for the S3 API.
     */
    public boolean s3Api()
    {
        return s3Api;
    }

    /**
     * Whether the address is held by another socket (the usual case: another process on that port).
     *
     * @return true when the address is in use.
     */
    public boolean inUse()
    {
        return reason(getCause()).equals("address already in use");
    }

    /** Netty's native transports report errno text, NIO a {@link BindException}: the same few cases in words. */
    private static String reason(final Throwable cause)
    {
        final String text = null == cause || null == cause.getMessage() ? String.valueOf(cause) : cause.getMessage();
        if (text.contains("Address already in use"))
        {
            return "address already in use";
        }
        if (text.contains("Cannot assign requested address"))
        {
            return "no local interface has that address";
        }
        if (text.contains("Permission denied"))
        {
            return "permission denied (ports below 1024 need privileges)";
        }
        if (cause instanceof java.nio.channels.UnresolvedAddressException)
        {
            return "the host name does not resolve";
        }
        return text;
    }
}
