package dev.offcache.range.origin;

/**
 * A conditional read found a different entity tag (or version) than the one asked for.
 */
public class PreconditionFailedException extends OriginException
{
    private static final long serialVersionUID = 1L;

    /**
     * Creates an instance.
     *
     * @param key     the object key.
     * @param ifMatch the tag the caller expected.
     */
    public PreconditionFailedException(final String key, final String ifMatch)
    {
        super("object '" + key + "' no longer matches " + ifMatch);
    }
}
