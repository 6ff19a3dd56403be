package dev.offcache.registry.api;

/**
 * Completes every future of a call made after {@link AsyncCacheRegistry#close()} (or after a journal failure stopped
 * the registry, in which case the cause is that failure).
 */
public final class RegistryClosedException extends IllegalStateException
{
    private static final long serialVersionUID = 1L;

    /**
     * An exception.
     *
     * @param message what happened.
     * @param cause   the journal failure that stopped the registry, or null after a normal close.
     */
    public RegistryClosedException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
