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
        final String problem = problemWith(key);
        if (problem != null)
        {
            throw new IllegalArgumentException(key == null ? problem : problem + ": '" + key + "'");
        }
        return key;
    }

    /**
     * What is wrong with a key's structure, without throwing: the rules of {@link #validate}, which stricter
     * policies (the L2 server's, which also bounds the length, refuses control characters and {@code .} segments
     * and checks prefixes) build on.
     *
     * @param key the object key.
     * @return {@code null} when it is a valid key, else why not.
     */
    public static String problemWith(final String key)
    {
        if (key == null)
        {
            return "object key is null";
        }
        if (key.isEmpty())
        {
            return "object key is empty";
        }
        if (key.charAt(0) == '/')
        {
            return "object key must not start with '/'";
        }
        int segmentStart = 0;
        for (int i = 0, n = key.length(); i <= n; i++)
        {
            final char c = i < n ? key.charAt(i) : '/';
            if (c == '\0' || c == '\\')
            {
                return "object key contains a NUL or backslash";
            }
            if (c == '/')
            {
                final int segmentLength = i - segmentStart;
                if (segmentLength == 0 && i < n)
                {
                    return "object key has an empty segment";
                }
                if (segmentLength == 2 && key.charAt(segmentStart) == '.' && key.charAt(segmentStart + 1) == '.')
                {
                    return "object key has a '..' segment";
                }
                segmentStart = i + 1;
            }
        }
        return null;
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
