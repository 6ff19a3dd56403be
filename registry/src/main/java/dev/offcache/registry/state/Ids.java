package dev.offcache.registry.state;

/**
 * Argument checks shared by the registry's records and commands, so every bad id is refused with a message that
 * names the argument.
 */
public final class Ids
{
    private Ids()
    {
    }

    /**
     * Refuses a null or empty id.
     *
     * @param value the id.
     * @param name  what the id is, for the message (e.g. {@code "jobId"}).
     * @return the id, unchanged.
     * @throws IllegalArgumentException when the id is null or empty.
     */
    public static String requireId(final String value, final String name)
    {
        if (value == null)
        {
            throw new IllegalArgumentException(name + " must not be null");
        }
        if (value.isEmpty())
        {
            throw new IllegalArgumentException(name + " must not be empty");
        }
        return value;
    }

    /**
     * Refuses a null argument.
     *
     * @param value the argument.
     * @param name  what it is, for the message.
     * @param <T>   its type.
     * @return the argument, unchanged.
     * @throws IllegalArgumentException when it is null.
     */
    public static <T> T requireNonNull(final T value, final String name)
    {
        if (value == null)
        {
            throw new IllegalArgumentException(name + " must not be null");
        }
        return value;
    }
}
