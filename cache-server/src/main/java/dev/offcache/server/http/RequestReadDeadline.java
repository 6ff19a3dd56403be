package dev.offcache.server.http;

import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A deadline for reading a whole request (head and body) once its first byte arrived: a client that sends a request
 * a byte at a time (each byte resets the idle timer) holds a connection slot without ever asking for anything, so
 * when the deadline passes and the connection has no request to serve, it is closed and counted. The deadline is
 * armed when a read of raw bytes ({@link #beforeCodec()}, ahead of the HTTP codec) leaves a request unfinished, and
 * disarmed when the codec hands over the request's last part ({@link #afterCodec()}), so a request that arrives in
 * one read costs no timer. A connection whose
 * earlier requests are still being answered (pipelined, with reading paused) is not closed for it: the check is made
 * again a deadline later. One per connection; runs on its event loop.
 */
final class RequestReadDeadline
{
    private static final Logger LOG = LoggerFactory.getLogger(RequestReadDeadline.class);

    private final long timeoutNs;
    private final HttpMetrics metrics;
    private final ChannelInboundHandlerAdapter beforeCodec = new BeforeCodec();
    private final ChannelInboundHandlerAdapter afterCodec = new AfterCodec();
    private boolean inRequest;
    private ScheduledFuture<?> timer;

    RequestReadDeadline(final long timeoutNs, final HttpMetrics metrics)
    {
        this.timeoutNs = timeoutNs;
        this.metrics = metrics;
    }

    /** The handler that goes before the codec: raw bytes arm the deadline. */
    ChannelInboundHandlerAdapter beforeCodec()
    {
        return beforeCodec;
    }

    /** The handler that goes after the codec: a request's last part disarms it. */
    ChannelInboundHandlerAdapter afterCodec()
    {
        return afterCodec;
    }

    private void arm(final ChannelHandlerContext ctx, final long delayNs)
    {
        timer = ctx.executor().schedule(() -> expire(ctx), delayNs, TimeUnit.NANOSECONDS);
    }

    private void expire(final ChannelHandlerContext ctx)
    {
        timer = null;
        if (!inRequest || !ctx.channel().isActive())
        {
            return;
        }
        final RequestHandler handler = ctx.pipeline().get(RequestHandler.class);
        if (null != handler && handler.serving())
        {
            // earlier requests are still answered (reading may be paused meanwhile): not a client holding a slot idle
            arm(ctx, timeoutNs);
            return;
        }
        metrics.connectionsRefused.increment();
        LOG.info("closing connection {}: no complete request within {} ms of its first byte",
            ctx.channel().remoteAddress(), TimeUnit.NANOSECONDS.toMillis(timeoutNs));
        ctx.close();
    }

    private final class BeforeCodec extends ChannelInboundHandlerAdapter
    {
        @Override
        public void channelRead(final ChannelHandlerContext ctx, final Object msg) throws Exception
        {
            if (!inRequest && msg instanceof ByteBuf && ((ByteBuf) msg).isReadable())
            {
                inRequest = true;
            }
            super.channelRead(ctx, msg);
            // armed only when the read left a request unfinished: one that arrived whole costs no timer
            if (inRequest && null == timer && ctx.channel().isActive())
            {
                arm(ctx, timeoutNs);
            }
        }

        @Override
        public void channelInactive(final ChannelHandlerContext ctx) throws Exception
        {
            final ScheduledFuture<?> pending = timer;
            if (null != pending)
            {
                pending.cancel(false);
                timer = null;
            }
            super.channelInactive(ctx);
        }
    }

    private final class AfterCodec extends ChannelInboundHandlerAdapter
    {
        @Override
        public void channelRead(final ChannelHandlerContext ctx, final Object msg) throws Exception
        {
            if (msg instanceof LastHttpContent)
            {
                inRequest = false;
                final ScheduledFuture<?> pending = timer;
                if (null != pending)
                {
                    pending.cancel(false);
                    timer = null;
                }
            }
            else if (msg instanceof HttpRequest && !inRequest)
            {
                // a request decoded from bytes read with the previous one (pipelined): it is under way
                inRequest = true;
            }
            super.channelRead(ctx, msg);
        }
    }
}
