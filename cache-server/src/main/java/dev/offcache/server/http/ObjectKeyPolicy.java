package dev.offcache.server.http;

import java.util.List;

import dev.offcache.range.origin.ObjectKeys;

/**
 * Which object keys clients may ask for: a valid engine key ({@link ObjectKeys#problemWith}: not empty, no leading
 * {@code /}, no {@code ..} or empty segment, no NUL or backslash) that is also of bounded UTF-8 length, free of
 * control characters, without a {@code .} segment or a trailing {@code /}, and under one of the allowed prefixes
 * (when any are configured). Immutable and thread-safe.
 */
public final class ObjectKeyPolicy
{
    private final int maxLength;
    private final List<String> allowedPrefixes;

    /**
     * A policy.
     *
     * @param maxLength       the longest key in UTF-8 bytes.
     * @param allowedPrefixes keys must start with one of these; empty allows any.
     */
    public ObjectKeyPolicy(final int maxLength, final List<String> allowedPrefixes)
    {
        if (maxLength < 1)
        {
            throw new IllegalArgumentException("max key length must be >= 1: " + maxLength);
        }
        this.maxLength = maxLength;
        this.allowedPrefixes = List.copyOf(allowedPrefixes);
    }

    /**
     * Checks a key.
     *
     * @param key the decoded key.
     * @return {@code null} when allowed, else why not.
     */
    public String problemWith(final String key)
    {
        if (null == key || key.isEmpty())
        {
            return "empty key";
        }
        if (tooLong(key))
        {
            return "key longer than " + maxLength + " UTF-8 bytes";
        }
        final String structure = ObjectKeys.problemWith(key);
        if (structure != null)
        {
            return structure;
        }
        // Stricter than the engine: a key the server accepts is also a safe file name and log token.
        for (int i = 0; i < key.length(); i++)
        {
            final char c = key.charAt(i);
            if (c < 0x20 || c == 0x7F)
            {
                return "key contains a control character";
            }
        }
        if (key.charAt(key.length() - 1) == '/')
        {
            return "key ends with /";
        }
        int start = 0;
        while (start < key.length())
        {
            int end = key.indexOf('/', start);
            if (end < 0)
            {
                end = key.length();
            }
            if (end - start == 1 && key.charAt(start) == '.')
            {
                return "key has a . segment";
            }
            start = end + 1;
        }
        return underAllowedPrefix(key) ? null : "key is not under an allowed prefix";
    }

    /**
     * Whether a key is longer than the limit.
     *
     * @param key the decoded key.
     * @return true when it is.
     */
    public boolean tooLong(final String key)
    {
        return key.length() > maxLength || utf8Length(key) > maxLength;
    }

    /**
     * Whether a key starts with an allowed prefix (always, when none is configured).
     *
     * @param key the decoded key.
     * @return true when it may be read as far as prefixes go.
     */
    public boolean underAllowedPrefix(final String key)
    {
        if (allowedPrefixes.isEmpty())
        {
            return true;
        }
        for (final String prefix : allowedPrefixes)
        {
            if (key.startsWith(prefix))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether keys under a listing prefix can be allowed ones: it lies under an allowed prefix, or an allowed prefix
     * lies under it.
     *
     * @param prefix a key prefix.
     * @return true when a listing of it may show something.
     */
    public boolean mayHoldAllowedKeys(final String prefix)
    {
        if (allowedPrefixes.isEmpty())
        {
            return true;
        }
        for (final String allowed : allowedPrefixes)
        {
            if (prefix.startsWith(allowed) || allowed.startsWith(prefix))
            {
                return true;
            }
        }
        return false;
    }

    private static int utf8Length(final String key)
    {
        int bytes = 0;
        for (int i = 0; i < key.length(); i++)
        {
            final char c = key.charAt(i);
            if (c < 0x80)
            {
                bytes++;
            }
            else if (c < 0x800)
            {
                bytes += 2;
            }
            else if (Character.isHighSurrogate(c) && i + 1 < key.length() &&
                Character.isLowSurrogate(key.charAt(i + 1)))
            {
                bytes += 4;
                i++;
            }
            else
            {
                bytes += 3;
            }
        }
        return bytes;
    }
}
