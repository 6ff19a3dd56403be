package dev.offcache.transport.source;

import dev.offcache.transport.wire.ErrorCode;

/**
 * Why a {@link PayloadSource} could not open an id: carries the {@link ErrorCode} the server sends to the client.
 */
public class PayloadSourceException extends Exception
{
    private static final long serialVersionUID = 1L;

    private final int errorCode;

    /**
     * An exception with an error code and a message.
     *
     * @param errorCode one of the server-side {@link ErrorCode} values.
     * @param message   what went wrong, naming the id.
     */
    public PayloadSourceException(final int errorCode, final String message)
    {
        super(message);
        this.errorCode = errorCode;
    }

    /**
     * An exception with an error code, a message and a cause.
     *
     * @param errorCode one of the server-side {@link ErrorCode} values.
     * @param message   what went wrong, naming the id.
     * @param cause     the underlying failure.
     */
    public PayloadSourceException(final int errorCode, final String message, final Throwable cause)
    {
        super(message, cause);
        this.errorCode = errorCode;
    }

    /**
     * Returns the error code to send.
     *
     * @return the error code to send.
     */
    public int errorCode()
    {
        return errorCode;
    }
}
