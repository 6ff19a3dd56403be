package dev.offcache.range.origin;

/**
 * The origin returned fewer bytes than a range that lies inside the object: an error, never a short block.
 */
public class ShortReadException extends OriginException
{
    private static final long serialVersionUID = 1L;

    /**
     * Creates an instance.
     *
     * @param key      the object key.
     * @param offset   the first byte asked for.
     * @param expected bytes asked for.
     * @param actual   bytes received.
     */
    public ShortReadException(final String key, final long offset, final long expected, final long actual)
    {
        super("short read of '" + key + "' at " + offset + ": expected " + expected + " bytes, got " + actual);
    }
}
