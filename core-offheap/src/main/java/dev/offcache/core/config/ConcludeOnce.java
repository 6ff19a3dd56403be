package dev.offcache.core.config;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The concluded flag of one {@code Context}: its {@code conclude()} calls {@link #conclude(Object)} first, so a
 * context configures one component and a second conclude, from any thread, is refused before it changes anything.
 * The flag is set even when the conclude then refuses a setting: the context is spent either way.
 */
public final class ConcludeOnce
{
    private final AtomicBoolean concluded = new AtomicBoolean();

    /**
     * Marks the context concluded.
     *
     * @param context the context being concluded, named in the refusal.
     * @throws ConcurrentConcludeException if it was concluded before.
     */
    public void conclude(final Object context)
    {
        if (concluded.getAndSet(true))
        {
            final String name = context.getClass().getName();
            throw new ConcurrentConcludeException(name.substring(name.lastIndexOf('.') + 1).replace('$', '.'));
        }
    }
}
