package dev.offcache.range.origin;

/**
 * An origin request did not finish within its deadline; its waiters fail and nothing is cached.
 */
public class OriginTimeoutException extends OriginException
{
    private static final long serialVersionUID = 1L;

    /**
     * Creates an instance.
     *
     * @param what      the request, naming the key.
     * @param timeoutMs the deadline.
     */
    public OriginTimeoutException(final String what, final long timeoutMs)
    {
        super(what + " did not finish within " + timeoutMs + " ms");
    }
}
