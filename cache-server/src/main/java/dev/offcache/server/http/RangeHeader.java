package dev.offcache.server.http;

import dev.offcache.range.engine.ByteRange;

/**
 * Parses an HTTP {@code Range} header into the one satisfiable {@link ByteRange} it asks for: {@code bytes=S-E}
 * (inclusive end), {@code bytes=S-} or {@code bytes=-N} (the last N bytes). Several ranges in one header are not
 * supported (use {@code POST /ranges}). Shared by the object API and the S3 API.
 */
public final class RangeHeader
{
    private RangeHeader()
    {
    }

    /** Why a Range header could not be served. */
    public static final class RangeException extends Exception
    {
        private static final long serialVersionUID = 1L;

        private final boolean unsatisfiable;

        RangeException(final boolean unsatisfiable, final String message)
        {
            super(message);
            this.unsatisfiable = unsatisfiable;
        }

        /**
         * Whether the range is well formed but lies past the object's end (416) rather than malformed (400).
         *
         * @return true for 416.
         */
        public boolean unsatisfiable()
        {
            return unsatisfiable;
        }
    }

    /**
     * Whether a Range header is in bytes (the unit is case-insensitive). A server ignores a Range in a unit it does
     * not know (RFC 9110, section 14.2) and answers the whole object.
     *
     * @param header the header value.
     * @return false for another unit ({@code items=0-1}) or no unit at all.
     */
    public static boolean isBytes(final String header)
    {
        final int equals = header.indexOf('=');
        return equals >= 0 && header.substring(0, equals).trim().equalsIgnoreCase("bytes");
    }

    /**
     * Parses a Range header against an object size.
     *
     * @param header the header value.
     * @param size   the object's size.
     * @return the range, clamped to the object's end, at least one byte long.
     * @throws RangeException when malformed (400) or unsatisfiable (416).
     */
    public static ByteRange parse(final String header, final long size) throws RangeException
    {
        if (header.length() > 200 || !isBytes(header))
        {
            throw new RangeException(false, "Range must be bytes=S-E, bytes=S- or bytes=-N");
        }
        final String spec = header.substring(header.indexOf('=') + 1).trim();
        final int dash = spec.indexOf('-');
        if (dash < 0 || spec.indexOf(',') >= 0 || spec.indexOf('-', dash + 1) >= 0)
        {
            throw new RangeException(false, "Range must be a single bytes=S-E, bytes=S- or bytes=-N");
        }
        final String first = spec.substring(0, dash).trim();
        final String last = spec.substring(dash + 1).trim();
        if (first.isEmpty())
        {
            final long suffix = parseNumber(last);
            if (suffix == 0)
            {
                throw new RangeException(true, "empty suffix range");
            }
            if (size == 0)
            {
                throw new RangeException(true, "object is empty");
            }
            final long length = Math.min(suffix, size);
            return new ByteRange(size - length, length);
        }
        final long start = parseNumber(first);
        final long end = last.isEmpty() ? Long.MAX_VALUE : parseNumber(last);
        if (end < start)
        {
            throw new RangeException(false, "Range end " + end + " before start " + start);
        }
        if (start >= size)
        {
            throw new RangeException(true, "Range start " + start + " is past the end (" + size + ")");
        }
        final long inclusiveEnd = Math.min(end, size - 1);
        return new ByteRange(start, inclusiveEnd - start + 1);
    }

    /**
     * What a Range header asks for before the object's size is known, so the fetch of its first blocks can start
     * with the size lookup: {@code bytes=S-E} is {@code {S, E - S + 1}}, {@code bytes=S-} is {@code {S, -1}} (the
     * end is not known yet). The header is still {@link #parse parsed} against the size once it is known; this only
     * says where to start.
     *
     * @param header the header value.
     * @return {@code {start, length or -1}}, or {@code null} for a suffix range (it needs the size first) or a header
     *     that {@link #parse} refuses whatever the size.
     */
    public static long[] beforeSize(final String header)
    {
        try
        {
            // against the largest size: only a header malformed or a suffix for any size gives nothing to start on
            final ByteRange range = parse(header, Long.MAX_VALUE);
            final String spec = header.substring(header.indexOf('=') + 1).trim();
            if (spec.startsWith("-"))
            {
                return null;
            }
            return new long[] {range.position(), spec.endsWith("-") ? -1 : range.length()};
        }
        catch (final RangeException ex)
        {
            return null;
        }
    }

    private static long parseNumber(final String text) throws RangeException
    {
        if (text.isEmpty() || text.length() > 18)
        {
            throw new RangeException(false, "Range bound is missing or too large: '" + text + "'");
        }
        for (int i = 0; i < text.length(); i++)
        {
            if (text.charAt(i) < '0' || text.charAt(i) > '9')
            {
                throw new RangeException(false, "Range bound is not a number: '" + text + "'");
            }
        }
        return Long.parseLong(text);
    }
}
