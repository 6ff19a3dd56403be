package dev.offcache.server.http;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;

/**
 * {@code 102 Processing} interim responses for one request whose final headers wait for the object's size (a HEAD at
 * a slow origin): the first after {@link #FIRST_MS}, then one every {@link #EVERY_MS} until the size is known. A
 * client that asked for them ({@code Offcache-Interim: 102}) sees the server answer at once, so a healthy server with
 * a slow origin never trips its abandon timeout or its circuit breaker.
 *
 * <p>The bytes are written below the HTTP codec (through its context), so the codec's pairing of requests and
 * responses is not disturbed; no body follows an interim response. Runs on the channel's event loop.
 */
final class InterimResponses implements Runnable
{
    /** Delay before the first interim response: well inside a client's header deadline (500 ms by default). */
    static final long FIRST_MS = 150;
    /** Delay between interim responses: well inside a client's stall timeout (3 s by default). */
    static final long EVERY_MS = 1000;

    private static final ByteBuf PROCESSING = Unpooled.unreleasableBuffer(Unpooled.directBuffer(32)
        .writeBytes("HTTP/1.1 102 Processing\r\n\r\n".getBytes(StandardCharsets.US_ASCII))).asReadOnly();

    private final ChannelHandlerContext ctx;
    private final Future<?> awaited;
    private final HttpMetrics metrics;
    private ScheduledFuture<?> timer;
    private boolean stopped;

    InterimResponses(final ChannelHandlerContext ctx, final Future<?> awaited, final HttpMetrics metrics)
    {
        this.ctx = ctx;
        this.awaited = awaited;
        this.metrics = metrics;
        this.timer = ctx.executor().schedule(this, FIRST_MS, TimeUnit.MILLISECONDS);
    }

    @Override
    public void run()
    {
        if (stopped || awaited.isDone() || !ctx.channel().isActive())
        {
            return;
        }
        final ChannelHandlerContext codec = ctx.pipeline().context("codec");
        if (null == codec)
        {
            return;
        }
        codec.writeAndFlush(PROCESSING.duplicate());
        metrics.interimResponses.increment();
        timer = ctx.executor().schedule(this, EVERY_MS, TimeUnit.MILLISECONDS);
    }

    /** The final headers are about to go out: no more interim responses. */
    void stop()
    {
        stopped = true;
        timer.cancel(false);
    }
}
