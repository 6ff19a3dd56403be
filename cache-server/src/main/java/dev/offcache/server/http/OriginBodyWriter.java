package dev.offcache.server.http;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;

import org.slf4j.LoggerFactory;

import dev.offcache.range.origin.OriginException;
import dev.offcache.server.log.RateLimitedWarning;
import dev.offcache.server.s3.S3Answer;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpResponse;

/**
 * Writes one response whose body is read straight from the origin, past the cache (an S3 key the cache does not
 * serve, {@link S3Answer.OriginBody}): the headers at once, then the body in pieces of at most {@link #PIECE} bytes,
 * one at a time — the next is read when the socket has taken the last — so a connection holds at most one piece of
 * direct memory (the connection's allocator; released once written or on failure). A failed read after the headers
 * (the origin failed, or holds another version now) cuts the connection short of its {@code Content-Length}, as
 * {@link ResponseStream} does. Not thread-safe: every method runs on the channel's event loop.
 */
final class OriginBodyWriter
{
    /** The largest piece read from the origin and held at once. */
    static final int PIECE = 256 * 1024;
    private static final RateLimitedWarning CUT =
        new RateLimitedWarning(LoggerFactory.getLogger(OriginBodyWriter.class));

    private final ChannelHandlerContext ctx;
    private final RequestHandler handler;
    private final HttpMetrics metrics;
    private final ServerState.InFlight inFlight;
    private final AccessLog access;
    private final Endpoint endpoint;
    private final HttpResponse headers;
    private final S3Answer.OriginReader reader;
    private final long end;
    private final boolean keepAlive;
    private final long startNanos;
    private long position;
    private long bodyBytes;
    private boolean finished;

    OriginBodyWriter(
        final ChannelHandlerContext ctx,
        final RequestHandler handler,
        final HttpMetrics metrics,
        final ServerState.InFlight inFlight,
        final AccessLog access,
        final Endpoint endpoint,
        final HttpResponse headers,
        final S3Answer.OriginBody body,
        final boolean keepAlive,
        final long startNanos)
    {
        this.ctx = ctx;
        this.handler = handler;
        this.metrics = metrics;
        this.inFlight = inFlight;
        this.access = access;
        this.endpoint = endpoint;
        this.headers = headers;
        this.reader = body.reader();
        this.position = body.start();
        this.end = body.start() + body.length();
        this.keepAlive = keepAlive;
        this.startNanos = startNanos;
    }

    /** Sends the headers and starts reading the body. */
    void start()
    {
        ctx.writeAndFlush(headers);
        metrics.firstByte(System.nanoTime() - startNanos);
        readNext();
    }

    private void readNext()
    {
        if (position >= end)
        {
            complete();
            return;
        }
        final int length = (int) Math.min(PIECE, end - position);
        final ByteBuf piece = ctx.alloc().directBuffer(length, length);
        final ByteBuffer destination = piece.nioBuffer(0, length);
        CompletableFuture<Integer> read;
        try
        {
            read = reader.read(position, destination);
        }
        catch (final RuntimeException ex)
        {
            read = CompletableFuture.failedFuture(ex);
        }
        read.whenComplete((count, error) ->
        {
            try
            {
                ctx.executor().execute(() -> onRead(piece, length, count, error));
            }
            catch (final RejectedExecutionException ex)
            {
                // the event loop is shutting down: the connection goes with it
                piece.release();
            }
        });
    }

    private void onRead(final ByteBuf piece, final int length, final Integer count, final Throwable error)
    {
        if (finished || !ctx.channel().isActive())
        {
            piece.release();
            fail(null);
            return;
        }
        if (null != error || null == count || count != length)
        {
            piece.release();
            fail(null != error ? error : new OriginException(null == count ? "the origin's read gave no byte count" :
                "the origin's object ended " + (length - count) + " bytes before the size it stated"));
            return;
        }
        piece.writerIndex(length);
        position += length;
        bodyBytes += length;
        metrics.responseBytes.getAndAdd(length);
        ctx.writeAndFlush(piece).addListener((ChannelFutureListener) (f) ->
        {
            if (f.isSuccess())
            {
                readNext();
            }
            else
            {
                fail(f.cause());
            }
        });
    }

    private void complete()
    {
        finished = true;
        ResponseStream.endBody(ctx, handler, metrics, inFlight, access, endpoint, headers.status().code(), bodyBytes,
            keepAlive, startNanos);
    }

    /** Cuts the response: what went out stays short of its length, and the connection closes. */
    private void fail(final Throwable error)
    {
        if (finished)
        {
            return;
        }
        finished = true;
        if (null != error)
        {
            CUT.warn("response body read from the origin failed after its headers, cutting the connection: {}",
                error.toString());
        }
        metrics.streamsAborted.increment();
        inFlight.end();
        if (null != access)
        {
            access.complete(endpoint.label(), headers.status().code(), bodyBytes, "cut");
        }
        ctx.close();
    }
}
