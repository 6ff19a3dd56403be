package dev.offcache.range.origin;

/**
 * Validation of object keys shared by every origin and the engine: a key is a relative, slash-separated path.
 */
public final class ObjectKeys
{
    private ObjectKeys()
    {
    }

    /**
     * Checks a key and returns it.
     *
     * @param key the object key.
     * @return {@code key}.
     * @throws IllegalArgumentException naming the key when it is null, empty, starts with {@code /}, has a
     *                                  {@code ..} or empty segment, or contains a NUL or backslash.
     */
    public static String validate(final String key)
    {
        if (key == null)
        {
            throw new IllegalArgumentException("object key is null");
        }
        if (key.isEmpty())
        {
            throw new IllegalArgumentException("object key is empty");
        }
        if (key.charAt(0) == '/')
        {
            throw new IllegalArgumentException("object key must not start with '/': '" + key + "'");
        }
        int segmentStart = 0;
        for (int i = 0, n = key.length(); i <= n; i++)
        {
            final char c = i < n ? key.charAt(i) : '/';
            if (c == '\0' || c == '\\')
            {
                throw new IllegalArgumentException("object key contains a NUL or backslash: '" + key + "'");
            }
            if (c == '/')
            {
                final int segmentLength = i - segmentStart;
                if (segmentLength == 0 && i < n)
                {
                    throw new IllegalArgumentException("object key has an empty segment: '" + key + "'");
                }
                if (segmentLength == 2 && key.charAt(segmentStart) == '.' && key.charAt(segmentStart + 1) == '.')
                {
                    throw new IllegalArgumentException("object key has a '..' segment: '" + key + "'");
                }
                segmentStart = i + 1;
            }
        }
        return key;
    }

    /**
     * Checks the arguments of a ranged read: a valid key and a non-negative offset.
     *
     * @param key    the object key.
     * @param offset the first byte.
     * @throws IllegalArgumentException naming the key, when either is bad.
     */
    public static void validateRead(final String key, final long offset)
    {
        validate(key);
        if (offset < 0)
        {
            throw new IllegalArgumentException("negative offset " + offset + " for '" + key + "'");
        }
    }
}
