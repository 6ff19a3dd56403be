package dev.offcache.range.origin;

/**
 * Reads HTTP {@code Content-Range} and length values: the object's size, for every origin and tier that learns sizes
 * from ranged answers (the HTTP and S3 origins, the L2 client), and the check of a 206 answer's length headers
 * against the range asked for (the L2 client). Never allocates.
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
     * The number of body bytes a 206 answer must carry, or -1 when its headers are missing or disagree with the
     * request: {@code Content-Range: bytes S-E/T} must start at the offset, end inside the range (earlier only
     * where the object ends, {@code E = T - 1}), and {@code Content-Length} must equal {@code E - S + 1}.
     *
     * @param contentRange  the {@code Content-Range} value, or {@code null}.
     * @param contentLength the {@code Content-Length} value, or {@code null}.
     * @param offset        the first byte asked for.
     * @param length        the number of bytes asked for.
     * @return the body length, or -1.
     */
    public static long expectedLength(
        final String contentRange, final String contentLength, final long offset, final int length)
    {
        final long bytes = contentLength == null ? -1 : rangeLength(contentRange, offset, length);
        return bytes >= 0 && parseLength(contentLength) == bytes ? bytes : -1;
    }

    /**
     * The number of range bytes a 206 answer's {@code Content-Range: bytes S-E/T} announces, or -1 when it is missing
     * or disagrees with the request (as {@link #expectedLength}, without looking at {@code Content-Length}). The unit
     * must be lower case here, as the L2 server writes it.
     *
     * @param contentRange the {@code Content-Range} value, or {@code null}.
     * @param offset       the first byte asked for.
     * @param length       the number of bytes asked for.
     * @return the range's length, or -1.
     */
    public static long rangeLength(final String contentRange, final long offset, final int length)
    {
        if (contentRange == null || !contentRange.startsWith("bytes "))
        {
            return -1;
        }
        final int dash = contentRange.indexOf('-', 6);
        final int slash = contentRange.indexOf('/', dash + 1);
        if (dash < 0 || slash < 0)
        {
            return -1;
        }
        final long start = decimal(contentRange, 6, dash);
        final long end = decimal(contentRange, dash + 1, slash);
        final boolean totalUnknown = slash + 2 == contentRange.length() && contentRange.charAt(slash + 1) == '*';
        final long total = totalUnknown ? -1 : decimal(contentRange, slash + 1, contentRange.length());
        final long lastAsked = offset + length - 1;
        if (start != offset || end < start || end > lastAsked || (!totalUnknown && (total < 0 || end >= total)))
        {
            return -1;
        }
        if (end < lastAsked && total != end + 1)
        {
            return -1;
        }
        return end - start + 1;
    }

    /**
     * A {@code Content-Length} (or other byte-count header) value.
     *
     * @param value the header value, or {@code null}.
     * @return the value, or -1 when missing or not a non-negative decimal.
     */
    public static long parseLength(final String value)
    {
        return value == null ? -1 : decimal(value, 0, value.length());
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
