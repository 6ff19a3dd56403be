package dev.offcache.transport.client;

import dev.offcache.transport.wire.ErrorCode;

/**
 * Why a fetch failed: an error frame from the server, or a client-side condition (timeout, lost connection,
 * destination too small, client closed). {@link #errorCode()} is an {@link ErrorCode}.
 */
public final class FetchException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    private final int errorCode;

    /**
     * An exception with an error code and a message.
     *
     * @param errorCode an {@link ErrorCode}.
     * @param message   what happened, naming the id.
     */
    public FetchException(final int errorCode, final String message)
    {
        super(ErrorCode.name(errorCode) + ": " + message);
        this.errorCode = errorCode;
    }

    /**
     * An exception with an error code, a message and a cause.
     *
     * @param errorCode an {@link ErrorCode}.
     * @param message   what happened, naming the id.
     * @param cause     the underlying failure.
     */
    public FetchException(final int errorCode, final String message, final Throwable cause)
    {
        super(ErrorCode.name(errorCode) + ": " + message, cause);
        this.errorCode = errorCode;
    }

    /**
     * Returns the {@link ErrorCode}.
     *
     * @return the {@link ErrorCode}.
     */
    public int errorCode()
    {
        return errorCode;
    }
}
