package dev.offcache.range.origin;

/**
 * Reads the object's size from an HTTP {@code Content-Range} value, for every origin and tier that learns sizes from
 * ranged answers (the HTTP and S3 origins, the L2 client). Never allocates.
 */
public final class ContentRangeHeader
{
    private ContentRangeHeader()
    {
    }

    /**
     * The complete length of a {@code Content-Range} value ({@code bytes S-E/T} or {@code bytes *}{@code /T}, the
     * unit case-insensitive), or -1 when it is missing, unknown ({@code *}) or malformed.
     *
     * @param contentRange the header value, or {@code null}.
     * @return the object's size, or -1.
     */
    public static long total(final String contentRange)
    {
        if (contentRange == null || !contentRange.regionMatches(true, 0, "bytes ", 0, 6))
        {
            return -1;
        }
        final int slash = contentRange.indexOf('/', 6);
        return slash < 0 ? -1 : decimal(contentRange, slash + 1, contentRange.length());
    }

    /**
     * A non-negative decimal of at most 18 digits in {@code text[from, to)}.
     *
     * @param text the characters.
     * @param from the first digit.
     * @param to   after the last digit.
     * @return the value, or -1 when empty, too long or not all digits.
     */
    public static long decimal(final CharSequence text, final int from, final int to)
    {
        if (from >= to || to - from > 18)
        {
            return -1;
        }
        long value = 0;
        for (int i = from; i < to; i++)
        {
            final char c = text.charAt(i);
            if (c < '0' || c > '9')
            {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }
}
