package dev.offcache.server.http;

import java.nio.charset.StandardCharsets;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.ByteBuf;

/**
 * The body of {@code POST /ranges}, {@code {"ranges":[[start,end],...]}}, read with the server's Jackson
 * {@link ObjectMapper}: each range a pair of integers with {@code 0 <= start <= end}, at most {@code maxRanges} of
 * them. The pair rule also holds for the ranges of a {@code POST /prefetch} line. A body that breaks a rule is a
 * {@link BadRequestException} whose message the client gets in its 400.
 */
final class RangesBody
{
    private RangesBody()
    {
    }

    /**
     * The ranges of a body.
     *
     * @param body      the request's body (not released here).
     * @param json      the server's mapper.
     * @param maxRanges the most ranges one body may name.
     * @return {@code [start, end)} pairs, in the order given.
     * @throws BadRequestException naming what is wrong.
     */
    static long[][] parse(final ByteBuf body, final ObjectMapper json, final int maxRanges)
        throws BadRequestException
    {
        final JsonNode root = readJson(body, json);
        final JsonNode ranges = null == root ? null : root.get("ranges");
        if (null == ranges || !ranges.isArray())
        {
            throw new BadRequestException("body must be {\"ranges\":[[start,end],...]}");
        }
        if (ranges.size() > maxRanges)
        {
            throw new BadRequestException("too many ranges: " + ranges.size() + " > " + maxRanges);
        }
        final long[][] parsed = new long[ranges.size()][];
        for (int i = 0; i < ranges.size(); i++)
        {
            parsed[i] = pair(ranges.get(i), i);
        }
        return parsed;
    }

    /**
     * One range, {@code [start, end)} as two integers with {@code 0 <= start <= end}.
     *
     * @param pair  the JSON value.
     * @param index its place in the list, for the message.
     * @return {@code {start, end}}.
     * @throws BadRequestException naming what is wrong.
     */
    static long[] pair(final JsonNode pair, final int index) throws BadRequestException
    {
        if (null == pair || !pair.isArray() || pair.size() != 2 ||
            !pair.get(0).isIntegralNumber() || !pair.get(1).isIntegralNumber() ||
            !pair.get(0).canConvertToLong() || !pair.get(1).canConvertToLong())
        {
            throw new BadRequestException("range " + index + " must be [start, end) as two integers");
        }
        final long start = pair.get(0).longValue();
        final long end = pair.get(1).longValue();
        if (start < 0 || end < start)
        {
            throw new BadRequestException("range " + index + " must have 0 <= start <= end: [" + start + ", " +
                end + ")");
        }
        return new long[] {start, end};
    }

    private static JsonNode readJson(final ByteBuf body, final ObjectMapper json) throws BadRequestException
    {
        try
        {
            return json.readTree(body.toString(StandardCharsets.UTF_8));
        }
        catch (final Exception ex)
        {
            throw new BadRequestException("body is not valid JSON");
        }
    }

    /** A request body that cannot be served as sent. */
    static final class BadRequestException extends Exception
    {
        private static final long serialVersionUID = 1L;

        BadRequestException(final String message)
        {
            super(message);
        }
    }
}
