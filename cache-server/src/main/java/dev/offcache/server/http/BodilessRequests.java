package dev.offcache.server.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;

/**
 * Makes a request that has no body (no {@code Content-Length} or one of 0, no {@code Transfer-Encoding}, no
 * {@code Expect}) whole on its own, ahead of the aggregator, which lets a whole request pass untouched: a range GET
 * then costs no composite buffer, no aggregated message and no {@code Content-Length: 0} header added to it. Requests
 * with a body, or asking for {@code 100 Continue}, go on to the aggregator as the codec decoded them (its body limit
 * and continue handling apply). One per connection; runs on its event loop; the request's empty last part is
 * released here.
 */
final class BodilessRequests extends ChannelInboundHandlerAdapter
{
    private HttpRequest pending;

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg)
    {
        if (null != pending && msg instanceof LastHttpContent last)
        {
            final HttpRequest head = pending;
            pending = null;
            // a bodiless request's last part is the codec's shared empty one: nothing to carry over
            last.release();
            final FullHttpRequest whole = new DefaultFullHttpRequest(head.protocolVersion(), head.method(),
                head.uri(), Unpooled.EMPTY_BUFFER, head.headers(), EmptyHttpHeaders.INSTANCE);
            ctx.fireChannelRead(whole);
            return;
        }
        if (msg instanceof HttpRequest request && !(msg instanceof FullHttpRequest) && hasNoBody(request))
        {
            pending = request;
            return;
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx) throws Exception
    {
        // a head without its last part holds no buffer: dropping it is enough
        pending = null;
        super.channelInactive(ctx);
    }

    /** Whether the codec decoded {@code request} cleanly and it carries no body and wants no interim answer. */
    static boolean hasNoBody(final HttpRequest request)
    {
        if (!request.decoderResult().isSuccess())
        {
            return false;
        }
        final HttpHeaders headers = request.headers();
        if (headers.contains(HttpHeaderNames.TRANSFER_ENCODING) || headers.contains(HttpHeaderNames.EXPECT))
        {
            return false;
        }
        final String length = headers.get(HttpHeaderNames.CONTENT_LENGTH);
        return null == length || "0".equals(length);
    }
}
