package dev.offcache.server.source;

/** The origin has no object under a key. */
public final class ObjectNotFoundException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /**
     * Names the missing key.
     *
     * @param key the key.
     */
    public ObjectNotFoundException(final String key)
    {
        super("no such object: " + key);
    }
}
