package dev.offcache.range.l2;

import dev.offcache.range.origin.ContentRangeHeader;

/**
 * Checks the length headers of a ranged answer against the range asked for. Never allocates.
 */
final class ContentRange
{
    private ContentRange()
    {
    }

    /**
     * The number of body bytes a 206 answer must carry, or -1 when its headers are missing or disagree with the
     * request: {@code Content-Range: bytes S-E/T} must start at the offset, end inside the range (earlier only
     * where the object ends, {@code E = T - 1}), and {@code Content-Length} must equal {@code E - S + 1}.
     */
    static long expectedLength(
        final String contentRange, final String contentLength, final long offset, final int length)
    {
        final long bytes = contentLength == null ? -1 : rangeLength(contentRange, offset, length);
        return bytes >= 0 && parseLength(contentLength) == bytes ? bytes : -1;
    }

    /**
     * The number of range bytes a 206 answer's {@code Content-Range: bytes S-E/T} announces, or -1 when it is missing
     * or disagrees with the request (as {@link #expectedLength}, without looking at {@code Content-Length}).
     */
    static long rangeLength(final String contentRange, final long offset, final int length)
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
        final long start = parse(contentRange, 6, dash);
        final long end = parse(contentRange, dash + 1, slash);
        final boolean totalUnknown = slash + 2 == contentRange.length() && contentRange.charAt(slash + 1) == '*';
        final long total = totalUnknown ? -1 : parse(contentRange, slash + 1, contentRange.length());
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
     * A {@code Content-Length} value, or -1 when missing or not a non-negative decimal.
     */
    static long parseLength(final String value)
    {
        return value == null ? -1 : parse(value, 0, value.length());
    }

    private static long parse(final CharSequence text, final int from, final int to)
    {
        return ContentRangeHeader.decimal(text, from, to);
    }
}
