package dev.offcache.range.origin;

/**
 * The origin has no object under a key. Never cached: a later read asks the origin again.
 */
public class ObjectNotFoundException extends OriginException
{
    private static final long serialVersionUID = 1L;

    /**
     * Creates an instance.
     *
     * @param namespace the origin.
     * @param key       the missing key.
     */
    public ObjectNotFoundException(final String namespace, final String key)
    {
        super("no object '" + key + "' in " + namespace);
    }
}
