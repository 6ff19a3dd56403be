package dev.offcache.server.http;

import static dev.offcache.server.http.RequestHandler.BLOCK_SIZE;
import static dev.offcache.server.http.RequestHandler.CHECKSUM_HEADER;
import static dev.offcache.server.http.RequestHandler.CHECKSUM_VALUE;
import static dev.offcache.server.http.RequestHandler.OBJECT_SIZE;
import static dev.offcache.server.http.RequestHandler.chunks;
import static dev.offcache.server.http.RequestHandler.wantsInterim;

import dev.offcache.range.engine.RangeCache;
import dev.offcache.range.engine.SizeProbe;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;

/**
 * The {@code POST /ranges/KEY} endpoint: many byte ranges of one object in one framed response, streamed from the
 * engine. Stateless; it answers through the connection's {@link RequestHandler}, on its event loop.
 */
final class RangesEndpoint
{
    private RangesEndpoint()
    {
    }

    /**
     * Answers {@code POST /ranges/KEY}: every range of the body ({@link RangesBody}) in one response, each as a frame
     * (its length, then its bytes), plain or checksummed; an end past the object is clamped.
     */
    static void serve(
        final RequestHandler handler,
        final ChannelHandlerContext ctx,
        final FullHttpRequest request,
        final String key,
        final boolean keepAlive,
        final long startNanos)
    {
        final ServerResources resources = handler.resources();
        final long[][] ranges;
        try
        {
            ranges = RangesBody.parse(request.content(), resources.json(), resources.maxRanges());
        }
        catch (final RangesBody.BadRequestException ex)
        {
            handler.respond(ctx, Endpoint.RANGES, HttpResponseStatus.BAD_REQUEST, ex.getMessage(), keepAlive);
            return;
        }
        final boolean checksummed = request.headers().contains(CHECKSUM_HEADER, CHECKSUM_VALUE, true);
        final SizeProbe probe = probeFor(resources, key, ranges);
        handler.onSize(ctx, Endpoint.RANGES, key, keepAlive, wantsInterim(request), probe.size(), (size) ->
        {
            final int block = resources.engine().blockSize();
            final long[] starts = new long[ranges.length];
            final long[] lengths = new long[ranges.length];
            long total = 0;
            for (int i = 0; i < ranges.length; i++)
            {
                if (ranges[i][0] > size)
                {
                    final FullHttpResponse refused = handler.error(HttpResponseStatus.REQUESTED_RANGE_NOT_SATISFIABLE,
                        "range " + i + " starts at " + ranges[i][0] + ", past the end (" + size + ")");
                    refused.headers().set(HttpHeaderNames.CONTENT_RANGE, "bytes */" + size);
                    refused.headers().set(OBJECT_SIZE, size);
                    handler.send(ctx, Endpoint.RANGES, refused, keepAlive);
                    return;
                }
                // an end past the object is clamped, as for a Range header: the frame says how many bytes follow
                starts[i] = ranges[i][0];
                lengths[i] = Math.min(ranges[i][1], size) - ranges[i][0];
                total += Long.BYTES + lengths[i] +
                    (checksummed ? Integer.BYTES * chunks(starts[i], lengths[i], block) : 0);
            }
            final HttpResponse response = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
            response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_OCTET_STREAM)
                .set(HttpHeaderNames.CONTENT_LENGTH, total)
                .set(OBJECT_SIZE, size);
            if (checksummed)
            {
                response.headers().set(CHECKSUM_HEADER, CHECKSUM_VALUE).set(BLOCK_SIZE, block);
            }
            HttpUtil.setKeepAlive(response, keepAlive);
            handler.stream(ctx, Endpoint.RANGES, key, starts, lengths, true, checksummed, response, keepAlive,
                startNanos, probe);
        });
    }

    /**
     * The size lookup of a {@code POST /ranges} body: if need be, the fetch of the blocks its first non-empty range
     * starts with, through the ranges that follow it in adjoining or shared blocks (so the body's first run of blocks
     * is not cut where the first range ends).
     */
    private static SizeProbe probeFor(final ServerResources resources, final String key, final long[][] ranges)
    {
        final RangeCache engine = resources.engine();
        final long block = engine.blockSize();
        int first = 0;
        while (first < ranges.length && ranges[first][1] <= ranges[first][0])
        {
            first++;
        }
        if (first == ranges.length)
        {
            return engine.sizeForStream(key, -1, 0);
        }
        final long start = ranges[first][0];
        long end = ranges[first][1];
        for (int i = first + 1; i < ranges.length && ranges[i][0] / block <= (end - 1) / block + 1; i++)
        {
            end = Math.max(end, ranges[i][1]);
        }
        return engine.sizeForStream(key, start, end - start);
    }
}
