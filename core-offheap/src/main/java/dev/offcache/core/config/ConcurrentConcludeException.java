package dev.offcache.core.config;

/**
 * Thrown by a {@code Context}'s {@code conclude()} when that context was already concluded: a context configures one
 * component, which concludes it (in its {@code open}, {@code launch}, {@code connect} or constructor), so a second
 * conclude means the same context was given to a second component, concluded by hand before being given, or
 * concluded by two threads at once. Named after Aeron's, which its contexts throw for the same reason.
 */
public final class ConcurrentConcludeException extends IllegalStateException
{
    private static final long serialVersionUID = 1L;

    /**
     * Describes the second conclude of a context.
     *
     * @param context the context's simple name, such as {@code BlockSlab.Context}.
     */
    public ConcurrentConcludeException(final String context)
    {
        super(context + " is already concluded: a context configures one component; make a new one for each");
    }
}
