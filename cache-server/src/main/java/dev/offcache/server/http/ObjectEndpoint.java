package dev.offcache.server.http;

import static dev.offcache.server.http.RequestHandler.BLOCK_SIZE;
import static dev.offcache.server.http.RequestHandler.CHECKSUM_HEADER;
import static dev.offcache.server.http.RequestHandler.CHECKSUM_VALUE;
import static dev.offcache.server.http.RequestHandler.chunks;
import static dev.offcache.server.http.RequestHandler.wantsInterim;

import java.util.List;

import dev.offcache.range.engine.ByteRange;
import dev.offcache.range.engine.RangeCache;
import dev.offcache.range.engine.SizeProbe;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;

/**
 * The {@code /obj/KEY} endpoint ({@code GET} and {@code HEAD}): one object, or one byte range of it, streamed from the
 * engine. Stateless; it answers through the connection's {@link RequestHandler}, on its event loop.
 */
final class ObjectEndpoint
{
    private ObjectEndpoint()
    {
    }

    /**
     * Answers {@code GET} or {@code HEAD /obj/KEY}: the whole object, or the one byte range its {@code Range} header
     * asks for (a 206), plain or checksummed; a HEAD only the headers.
     */
    static void serve(
        final RequestHandler handler,
        final ChannelHandlerContext ctx,
        final FullHttpRequest request,
        final String key,
        final boolean head,
        final boolean keepAlive,
        final long startNanos)
    {
        final ServerResources resources = handler.resources();
        final List<String> rangeHeaders = request.headers().getAll(HttpHeaderNames.RANGE);
        if (rangeHeaders.size() > 1)
        {
            handler.respond(ctx, Endpoint.OBJ, HttpResponseStatus.BAD_REQUEST, "more than one Range header", keepAlive);
            return;
        }
        // a Range in a unit other than bytes is ignored: the whole object (RFC 9110, section 14.2)
        final String rangeHeader = rangeHeaders.isEmpty() || !RangeHeader.isBytes(rangeHeaders.get(0)) ? null :
            rangeHeaders.get(0);
        final boolean checksummed = !head && request.headers().contains(CHECKSUM_HEADER, CHECKSUM_VALUE, true);
        // a body's size comes with the first GET of its blocks, started now; a HEAD's from the origin's HEAD
        final SizeProbe probe = head ? null : probeFor(resources, key, rangeHeader);
        handler.onSize(ctx, Endpoint.OBJ, key, keepAlive, wantsInterim(request),
            null == probe ? resources.engine().sizeAsync(key) : probe.size(), (size) ->
        {
            final HttpResponse response;
            final long start;
            final long length;
            if (null == rangeHeader || head)
            {
                response = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
                start = 0;
                length = size;
            }
            else
            {
                final ByteRange range;
                try
                {
                    range = RangeHeader.parse(rangeHeader, size);
                }
                catch (final RangeHeader.RangeException ex)
                {
                    if (ex.unsatisfiable())
                    {
                        final FullHttpResponse refused = handler.error(
                            HttpResponseStatus.REQUESTED_RANGE_NOT_SATISFIABLE, ex.getMessage());
                        refused.headers().set(HttpHeaderNames.CONTENT_RANGE, "bytes */" + size);
                        handler.send(ctx, Endpoint.OBJ, refused, keepAlive);
                    }
                    else
                    {
                        handler.respond(ctx, Endpoint.OBJ, HttpResponseStatus.BAD_REQUEST, ex.getMessage(), keepAlive);
                    }
                    return;
                }
                response = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.PARTIAL_CONTENT);
                response.headers().set(HttpHeaderNames.CONTENT_RANGE,
                    "bytes " + range.position() + "-" + (range.position() + range.length() - 1) + "/" + size);
                start = range.position();
                length = range.length();
            }
            response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_OCTET_STREAM)
                .set(HttpHeaderNames.ACCEPT_RANGES, HttpHeaderValues.BYTES)
                .set(HttpHeaderNames.CONTENT_LENGTH, length);
            if (checksummed)
            {
                final int block = resources.engine().blockSize();
                response.headers()
                    .set(CHECKSUM_HEADER, CHECKSUM_VALUE)
                    .set(BLOCK_SIZE, block)
                    .set(HttpHeaderNames.CONTENT_LENGTH, length + Integer.BYTES * chunks(start, length, block));
            }
            HttpUtil.setKeepAlive(response, keepAlive);
            if (head)
            {
                final FullHttpResponse full = new DefaultFullHttpResponse(
                    HttpVersion.HTTP_1_1, HttpResponseStatus.OK, Unpooled.EMPTY_BUFFER, response.headers(),
                    EmptyHttpHeaders.INSTANCE);
                handler.send(ctx, Endpoint.OBJ, full, keepAlive);
                return;
            }
            handler.stream(ctx, Endpoint.OBJ, key, new long[] {start}, new long[] {length}, false, checksummed,
                response, keepAlive, startNanos, probe);
        });
    }

    /**
     * The size lookup of a GET's body: known, or the fetch of the blocks its Range (else the object) starts with,
     * whose answer tells the size; a suffix range (or one that cannot be parsed) asks the size first.
     */
    private static SizeProbe probeFor(final ServerResources resources, final String key, final String rangeHeader)
    {
        final RangeCache engine = resources.engine();
        if (null == rangeHeader || engine.sizeNow(key) >= 0)
        {
            return engine.sizeForStream(key, 0, -1);
        }
        final long[] asked = RangeHeader.beforeSize(rangeHeader);
        return null == asked ? engine.sizeForStream(key, -1, 0) : engine.sizeForStream(key, asked[0], asked[1]);
    }
}
