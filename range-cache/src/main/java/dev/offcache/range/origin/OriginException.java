package dev.offcache.range.origin;

/**
 * An origin (or the cache in front of it) could not serve a request: I/O failure, error status, timeout, short
 * data. The message names the key and what went wrong.
 */
public class OriginException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /**
     * Creates an instance.
     *
     * @param message what went wrong, naming the key.
     */
    public OriginException(final String message)
    {
        super(message);
    }

    /**
     * Creates an instance.
     *
     * @param message what went wrong, naming the key.
     * @param cause   the underlying failure.
     */
    public OriginException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
