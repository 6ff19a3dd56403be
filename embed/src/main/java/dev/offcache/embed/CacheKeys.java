package dev.offcache.embed;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Cache keys of files read through an engine adapter: the file's location plus its length and version (modification
 * time or ETag), so a rewritten file gets a new key and is never served from the old file's blocks. The key also
 * carries the length, so the cache never asks the origin for a size.
 *
 * <p>Layout: {@code scheme/authority/escaped-path/#v/length-version}, a valid range-cache object key (no empty or
 * {@code ..} segments, no backslash or NUL: those are escaped as {@code %XX}). The last two segments are always the
 * version marker, so a key decodes unambiguously from its end.
 */
public final class CacheKeys
{
    /** The version of a file whose identity is its length alone (the caller vouches it is never rewritten). */
    public static final String LENGTH_ONLY = "l";

    private static final String VERSION_MARK = "/#v/";
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private CacheKeys()
    {
    }

    /**
     * The key of a file at a version.
     *
     * @param location the file's location (absolute URI with a scheme).
     * @param length   its length in bytes.
     * @param version  its version: {@code m<mtime>}, {@code e<etag>} or {@code l} (length only); see
     *                 {@link #mtimeVersion}, {@link #etagVersion}, {@link #LENGTH_ONLY}.
     * @return the key.
     */
    public static String key(final URI location, final long length, final String version)
    {
        if (length < 0)
        {
            throw new IllegalArgumentException("negative length " + length + " of " + location);
        }
        final StringBuilder key = new StringBuilder(96);
        key.append(prefix(location)).append('/');
        final String path = location.getPath() == null ? "" : location.getPath();
        appendPath(key, path.startsWith("/") ? path.substring(1) : path);
        key.append(VERSION_MARK).append(length).append('-');
        escape(key, version, true);
        return key.toString();
    }

    /**
     * A version from a modification time.
     *
     * @param modificationTime milliseconds since the epoch.
     * @return the version.
     */
    public static String mtimeVersion(final long modificationTime)
    {
        return "m" + modificationTime;
    }

    /**
     * A version from an entity tag.
     *
     * @param etag the tag, not empty.
     * @return the version.
     */
    public static String etagVersion(final String etag)
    {
        return "e" + etag;
    }

    /**
     * The router prefix of a location: {@code scheme/authority} ({@code _} for none).
     *
     * @param location an absolute URI.
     * @return the prefix.
     */
    public static String prefix(final URI location)
    {
        final String scheme = location.getScheme();
        if (scheme == null || scheme.isEmpty())
        {
            throw new IllegalArgumentException("location has no scheme: " + location);
        }
        final StringBuilder prefix = new StringBuilder(32).append(scheme.toLowerCase(Locale.ROOT)).append('/');
        final String authority = location.getAuthority();
        if (authority == null || authority.isEmpty())
        {
            prefix.append('_');
        }
        else
        {
            escape(prefix, authority, true);
        }
        return prefix.toString();
    }

    /**
     * The router prefix of a key (its first two segments).
     *
     * @param key a key made by {@link #key}.
     * @return the prefix.
     */
    public static String prefixOf(final String key)
    {
        final int first = key.indexOf('/');
        final int second = first < 0 ? -1 : key.indexOf('/', first + 1);
        if (second < 0)
        {
            throw new IllegalArgumentException("not an adapter cache key: '" + key + "'");
        }
        return key.substring(0, second);
    }

    /**
     * The file length a key records.
     *
     * @param key a key made by {@link #key}.
     * @return the length.
     */
    public static long lengthOf(final String key)
    {
        final int mark = key.lastIndexOf(VERSION_MARK);
        if (mark < 0)
        {
            throw new IllegalArgumentException("not an adapter cache key: '" + key + "'");
        }
        final int dash = key.indexOf('-', mark + VERSION_MARK.length());
        return Long.parseLong(key, mark + VERSION_MARK.length(), dash, 10);
    }

    /**
     * The location a key names, as given to {@link #key} (scheme, authority and path).
     *
     * @param key a key made by {@link #key}.
     * @return the location.
     */
    public static URI locationOf(final String key)
    {
        final int first = key.indexOf('/');
        final int second = key.indexOf('/', first + 1);
        final int mark = key.lastIndexOf(VERSION_MARK);
        if (first < 0 || second < 0 || mark < second)
        {
            throw new IllegalArgumentException("not an adapter cache key: '" + key + "'");
        }
        final String scheme = key.substring(0, first);
        final String authority = key.substring(first + 1, second);
        final String path = decode(key.substring(second + 1, mark));
        try
        {
            return new URI(scheme, "_".equals(authority) ? null : decode(authority), "/" + path, null, null);
        }
        catch (final URISyntaxException ex)
        {
            throw new IllegalArgumentException("not an adapter cache key: '" + key + "'", ex);
        }
    }

    /**
     * Appends a path (no leading slash). A slash is kept only between two non-empty segments; any other slash (a
     * trailing one, or one of a pair) is escaped into its neighbour segment, so the key has no empty segment and
     * the path decodes back exactly. A {@code ..} segment is escaped too.
     */
    /**
     * A location as plain text, {@code scheme://authority/path} with nothing escaped: what file systems and
     * {@code FileIO}s that take strings expect ({@link URI#toString()} would escape spaces as {@code %20}).
     *
     * @param location a location from {@link #locationOf}.
     * @return the text.
     */
    public static String plainLocation(final URI location)
    {
        final String authority = location.getAuthority();
        return location.getScheme() + ":" + (authority == null ? "" : "//" + authority) + location.getPath();
    }

    private static void appendPath(final StringBuilder key, final String path)
    {
        if (path.isEmpty())
        {
            throw new IllegalArgumentException("a file location needs a path");
        }
        final String[] segments = path.split("/", -1);
        for (int i = 0; i < segments.length; i++)
        {
            final String segment = segments[i];
            if (i > 0)
            {
                key.append(segments[i - 1].isEmpty() || segment.isEmpty() ? "%2F" : "/");
            }
            if ("..".equals(segment))
            {
                key.append("%2E%2E");
            }
            else
            {
                escape(key, segment, true);
            }
        }
    }

    private static void escape(final StringBuilder out, final String text, final boolean slash)
    {
        final byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        for (final byte b : bytes)
        {
            final int c = b & 0xFF;
            if (c == '%' || c == '\\' || c == 0 || c >= 0x80 || (slash && c == '/'))
            {
                out.append('%').append(HEX[c >>> 4]).append(HEX[c & 0xF]);
            }
            else
            {
                out.append((char) c);
            }
        }
    }

    /** Decodes {@code %XX} escapes of a key's (ASCII) text as UTF-8. */
    private static String decode(final String text)
    {
        if (text.indexOf('%') < 0)
        {
            return text;
        }
        final byte[] out = new byte[text.length()];
        int n = 0;
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            if (c == '%' && i + 2 < text.length())
            {
                out[n++] = (byte) Integer.parseInt(text, i + 1, i + 3, 16);
                i += 2;
            }
            else
            {
                out[n++] = (byte) c;
            }
        }
        return new String(out, 0, n, StandardCharsets.UTF_8);
    }
}
