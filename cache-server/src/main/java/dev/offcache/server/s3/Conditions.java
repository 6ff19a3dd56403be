package dev.offcache.server.s3;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;

/**
 * Evaluates the conditional headers of a {@code GetObject} or {@code HeadObject} the way S3 does (RFC 9110's
 * order): {@code If-Match}, else {@code If-Unmodified-Since}, failing with 412; then {@code If-None-Match}, else
 * {@code If-Modified-Since}, answering 304. So a 412 wins over a 304, {@code If-Match} true with
 * {@code If-Unmodified-Since} false is a 200, and {@code If-None-Match} false with {@code If-Modified-Since} true is a
 * 304, as S3 documents. Entity tags compare strongly for {@code If-Match} and weakly for {@code If-None-Match};
 * {@code *} matches any object; S3's leniency for unquoted tags is kept. Dates compare at one-second resolution; an
 * unparsable date, a future {@code If-Modified-Since} or an unknown last-modified time leaves its condition out.
 * Stateless and thread-safe.
 */
public final class Conditions
{
    private Conditions()
    {
    }

    /** What the conditions say. */
    public enum Outcome
    {
        /** Serve the object. */
        PROCEED,
        /** Answer 304 Not Modified. */
        NOT_MODIFIED,
        /** Answer 412 Precondition Failed. */
        PRECONDITION_FAILED
    }

    /**
     * The outcome and, for a 412, the header that failed.
     *
     * @param outcome   the outcome.
     * @param condition the failed header's name, or {@code null}.
     */
    public record Result(Outcome outcome, String condition)
    {
        /** No condition stops the request. */
        public static final Result PROCEED = new Result(Outcome.PROCEED, null);
        /** A 304. */
        public static final Result NOT_MODIFIED = new Result(Outcome.NOT_MODIFIED, null);
    }

    /**
     * Evaluates a request's conditions against an object version.
     *
     * @param headers            the request headers.
     * @param etag               the object's entity tag as sent in {@code ETag} (quoted).
     * @param lastModifiedMillis its last-modified time, or -1 when unknown.
     * @param nowMillis          the server's time.
     * @return the outcome.
     */
    public static Result evaluate(
        final HttpHeaders headers, final String etag, final long lastModifiedMillis, final long nowMillis)
    {
        final String ifMatch = headers.get(HttpHeaderNames.IF_MATCH);
        if (null != ifMatch)
        {
            if (!matches(ifMatch, etag, false))
            {
                return new Result(Outcome.PRECONDITION_FAILED, "If-Match");
            }
        }
        else
        {
            final long unmodifiedSince = AmzDates.parseHttpDate(headers.get(HttpHeaderNames.IF_UNMODIFIED_SINCE));
            if (unmodifiedSince >= 0 && lastModifiedMillis >= 0 &&
                seconds(lastModifiedMillis) > seconds(unmodifiedSince))
            {
                return new Result(Outcome.PRECONDITION_FAILED, "If-Unmodified-Since");
            }
        }
        final String ifNoneMatch = headers.get(HttpHeaderNames.IF_NONE_MATCH);
        if (null != ifNoneMatch)
        {
            return matches(ifNoneMatch, etag, true) ? Result.NOT_MODIFIED : Result.PROCEED;
        }
        final long modifiedSince = AmzDates.parseHttpDate(headers.get(HttpHeaderNames.IF_MODIFIED_SINCE));
        if (modifiedSince >= 0 && modifiedSince <= nowMillis && lastModifiedMillis >= 0 &&
            seconds(lastModifiedMillis) <= seconds(modifiedSince))
        {
            return Result.NOT_MODIFIED;
        }
        return Result.PROCEED;
    }

    /**
     * Whether a list of entity tags ({@code "a", W/"b"}, or {@code *}) names an object's tag.
     *
     * @param header the header value.
     * @param etag   the object's tag, quoted.
     * @param weak   weak comparison ({@code W/} tags match too) rather than strong.
     * @return true on a match.
     */
    static boolean matches(final String header, final String etag, final boolean weak)
    {
        final String value = header.trim();
        if (value.equals("*"))
        {
            return true;
        }
        final String opaque = unquote(etag);
        int i = 0;
        while (i < value.length())
        {
            while (i < value.length() && (value.charAt(i) == ' ' || value.charAt(i) == ',' || value.charAt(i) == '\t'))
            {
                i++;
            }
            if (i >= value.length())
            {
                break;
            }
            boolean weakTag = false;
            if (value.startsWith("W/", i))
            {
                weakTag = true;
                i += 2;
            }
            final int start;
            final int end;
            if (i < value.length() && value.charAt(i) == '"')
            {
                start = i + 1;
                final int close = value.indexOf('"', start);
                end = close < 0 ? value.length() : close;
                i = close < 0 ? value.length() : close + 1;
            }
            else
            {
                start = i;
                int stop = value.indexOf(',', i);
                stop = stop < 0 ? value.length() : stop;
                end = trimEnd(value, start, stop);
                i = stop;
            }
            if ((weak || !weakTag) && end - start == opaque.length() && value.regionMatches(start, opaque, 0,
                opaque.length()))
            {
                return true;
            }
        }
        return false;
    }

    private static int trimEnd(final String value, final int start, final int stop)
    {
        int end = stop;
        while (end > start && (value.charAt(end - 1) == ' ' || value.charAt(end - 1) == '\t'))
        {
            end--;
        }
        return end;
    }

    private static String unquote(final String etag)
    {
        String tag = etag;
        if (tag.startsWith("W/"))
        {
            tag = tag.substring(2);
        }
        return tag.length() >= 2 && tag.charAt(0) == '"' && tag.charAt(tag.length() - 1) == '"' ?
            tag.substring(1, tag.length() - 1) : tag;
    }

    private static long seconds(final long millis)
    {
        return Math.floorDiv(millis, 1000);
    }
}
