package dev.offcache.range.l2;

import java.util.concurrent.TimeUnit;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;

/**
 * One request to the L2 server and its response, from connection to the last body byte. Every method after
 * {@link #start()} runs on the connection's event loop, so the state needs no synchronisation; the exchange
 * finishes exactly once, either by {@link #succeed()} (the connection may be reused) or by {@link #fail} (the
 * connection is closed and the subclass falls back to the origin).
 *
 * <p>Requests ask for interim responses ({@code Offcache-Interim: 102}): while the server looks up the object's size
 * at a slow origin it answers {@code 102 Processing} (first within 150 ms, then every second). An interim response
 * ends the header deadline (the server is alive); from then on the stall timeout bounds the wait for the final
 * headers. The breaker is told a call's outcome once, when the call ends: a complete answer or an error answer is an
 * answer, a call that ended unresponsive (no headers, a stall after them, the read deadline) is not.
 */
abstract class Exchange
{
    final L2Client client;
    final CircuitBreaker.Admission admission;
    Channel channel;
    boolean done;
    boolean headersSeen;
    private boolean interimSeen;
    private boolean interimEndPending;
    private boolean stallArmed;
    boolean keepAlive;
    private boolean reusedConnection;
    private boolean retried;
    private long lastProgressNs;
    private long startNs;
    /** The exchange's one timer (header deadline, stall check, read deadline), cancelled when it ends. */
    private ScheduledFuture<?> timer;
    private long timerAtNs;

    Exchange(final L2Client client, final CircuitBreaker.Admission admission)
    {
        this.client = client;
        this.admission = admission;
    }

    /** The request to send; a fresh object each time (it is written once). */
    abstract HttpRequest request();

    /** Response headers arrived; return false after calling {@link #fail} when they are not acceptable. */
    abstract boolean onHeaders(HttpResponse response);

    /** A part of the body (released by the caller); may finish the exchange. */
    abstract void onBody(HttpContent content);

    /** The exchange is over without an answer we can use: fall back. Runs once. */
    abstract void onFailed(FallbackReason reason, Throwable cause);

    /** How long to wait for response headers, connecting included. */
    long headerDeadlineNs()
    {
        return client.abandonTimeoutNs();
    }

    /** The most body bytes the answer may carry, for the read's overall deadline. */
    long bodyBytes()
    {
        return 0;
    }

    /**
     * How long the whole exchange may take, from its start to its last body byte: the header deadline, one stall
     * timeout, and the body at the minimum read rate. A server that trickles bytes (or interim responses) just
     * inside the stall timeout is given up on at this deadline and the read completes from the origin.
     */
    final long readDeadlineNs()
    {
        return headerDeadlineNs() + client.stallTimeoutNs() + client.transferNs(bodyBytes());
    }

    /** Starts on a pooled connection when one is idle, otherwise on a new one. */
    final void start()
    {
        final Channel pooled = client.pollIdle();
        if (pooled != null)
        {
            reusedConnection = true;
            final EventLoop loop = pooled.eventLoop();
            loop.execute(() ->
            {
                armHeaderDeadline(loop);
                send(pooled);
            });
        }
        else
        {
            final EventLoop loop = client.nextLoop();
            loop.execute(() ->
            {
                armHeaderDeadline(loop);
                connect(loop);
            });
        }
    }

    private void connect(final EventLoop loop)
    {
        final ChannelFuture future = client.connect(loop);
        channel = future.channel();
        future.addListener((f) ->
        {
            if (done)
            {
                future.channel().close();
                return;
            }
            if (!f.isSuccess())
            {
                fail(FallbackReason.CONNECT, f.cause());
                return;
            }
            send(future.channel());
        });
    }

    private void send(final Channel target)
    {
        channel = target;
        if (done)
        {
            client.release(target, false);
            return;
        }
        target.pipeline().get(ClientHandler.class).attach(this);
        target.writeAndFlush(request()).addListener((f) ->
        {
            if (!f.isSuccess())
            {
                onBroken(f.cause());
            }
        });
    }

    private void armHeaderDeadline(final EventLoop loop)
    {
        startNs = System.nanoTime();
        schedule(loop, startNs + headerDeadlineNs());
    }

    private void schedule(final EventLoop loop, final long atNs)
    {
        timerAtNs = atNs;
        timer = loop.schedule(() -> onTimer(loop), Math.max(atNs - System.nanoTime(), 1), TimeUnit.NANOSECONDS);
    }

    /**
     * The one timer of the exchange: before any answer it is the header deadline; once the server answered
     * something (headers or an interim response) it checks the stall timeout and the overall read deadline, and
     * re-arms for the nearer of the two. One timer, cancelled when the exchange ends, so a finished exchange (and
     * the caller's buffer) is not kept reachable by a task waiting seconds in the event loop's queue.
     */
    private void onTimer(final EventLoop loop)
    {
        timer = null;
        if (done)
        {
            return;
        }
        if (!stallArmed)
        {
            fail(FallbackReason.NO_HEADERS, null);
            return;
        }
        final long now = System.nanoTime();
        final long stallAtNs = lastProgressNs + client.stallTimeoutNs();
        final long deadlineAtNs = startNs + readDeadlineNs();
        if (now - stallAtNs >= 0)
        {
            fail(FallbackReason.STALL, null);
        }
        else if (now - deadlineAtNs >= 0)
        {
            fail(FallbackReason.DEADLINE, null);
        }
        else
        {
            schedule(loop, stallAtNs - deadlineAtNs < 0 ? stallAtNs : deadlineAtNs);
        }
    }

    private void cancelTimer()
    {
        final ScheduledFuture<?> pending = timer;
        if (pending != null)
        {
            timer = null;
            pending.cancel(false);
        }
    }

    final void onMessage(final Object msg)
    {
        try
        {
            if (done)
            {
                return;
            }
            if (msg instanceof HttpResponse && isInterim((HttpResponse) msg))
            {
                onInterim();
                return;
            }
            if (interimEndPending && msg instanceof LastHttpContent && !(msg instanceof HttpResponse))
            {
                // the decoder ends an interim response with an empty last part: it is not this exchange's body
                interimEndPending = false;
                return;
            }
            if (msg instanceof HttpResponse)
            {
                final HttpResponse response = (HttpResponse) msg;
                headersSeen = true;
                if (response.decoderResult().isFailure())
                {
                    fail(FallbackReason.MALFORMED, response.decoderResult().cause());
                    return;
                }
                keepAlive = HttpUtil.isKeepAlive(response);
                if (!onHeaders(response))
                {
                    return;
                }
                progress();
                if (!stallArmed)
                {
                    armStallCheck();
                }
            }
            if (!done && msg instanceof HttpContent)
            {
                final HttpContent content = (HttpContent) msg;
                if (content.decoderResult().isFailure())
                {
                    final Throwable cause = content.decoderResult().cause();
                    // The decoder reports a connection closed (FIN) before the announced length as a failed part.
                    fail(cause instanceof PrematureChannelClosureException ? FallbackReason.SHORT_BODY :
                        FallbackReason.MALFORMED, cause);
                    return;
                }
                progress();
                onBody(content);
            }
        }
        finally
        {
            ReferenceCountUtil.release(msg);
        }
    }

    private static boolean isInterim(final HttpResponse response)
    {
        final int code = response.status().code();
        return code >= 100 && code < 200 && code != 101 && response.decoderResult().isSuccess();
    }

    private void onInterim()
    {
        if (!interimSeen)
        {
            interimSeen = true;
            progress();
            armStallCheck();
        }
        else
        {
            progress();
        }
        interimEndPending = true;
    }

    final void onBroken(final Throwable cause)
    {
        if (done)
        {
            return;
        }
        if (!headersSeen && !interimSeen && reusedConnection && !retried)
        {
            // An idle keep-alive connection the server already closed: not a sign of trouble, try a fresh one.
            retried = true;
            reusedConnection = false;
            final EventLoop loop = channel.eventLoop();
            detachAndClose();
            connect(loop);
            return;
        }
        if (!headersSeen)
        {
            fail(FallbackReason.CLOSED_BEFORE_HEADERS, cause);
        }
        else
        {
            // A clean close (FIN) before the announced length is a short body; an error or reset is a broken stream.
            fail(cause == null ? FallbackReason.SHORT_BODY : FallbackReason.BROKEN_STREAM, cause);
        }
    }

    final void progress()
    {
        lastProgressNs = System.nanoTime();
    }

    /**
     * The server answered something: from now on the stall timeout and the read deadline bound the exchange. The
     * pending header deadline fires first unless it is later than the first stall check could be (an abandon
     * timeout configured above the stall timeout): then the timer moves to that check.
     */
    private void armStallCheck()
    {
        stallArmed = true;
        final long stallAtNs = lastProgressNs + client.stallTimeoutNs();
        if (timer != null && timerAtNs - stallAtNs > 0)
        {
            cancelTimer();
            schedule(channel.eventLoop(), stallAtNs);
        }
    }

    /** The answer was complete and good: the connection goes back to the pool when the server keeps it. */
    final void succeed()
    {
        done = true;
        cancelTimer();
        client.breaker().onAnswered(admission);
        final Channel used = channel;
        used.pipeline().get(ClientHandler.class).detach();
        client.release(used, keepAlive);
    }

    /** Gives up on L2 for this exchange; the subclass falls back to the origin. */
    final void fail(final FallbackReason reason, final Throwable cause)
    {
        if (done)
        {
            return;
        }
        done = true;
        cancelTimer();
        detachAndClose();
        // The breaker hears of a call once, when it ends: headers followed by a stalled body are no answer, so they
        // must not reset the count of unresponsive calls (they would, reported at the headers, and a server that
        // stalls every body would never open it).
        if (reason.unresponsive())
        {
            client.breaker().onUnresponsive(admission);
        }
        else
        {
            client.breaker().onAnswered(admission);
        }
        onFailed(reason, cause);
    }

    private void detachAndClose()
    {
        final Channel used = channel;
        if (used != null)
        {
            final ClientHandler handler = used.pipeline().get(ClientHandler.class);
            if (handler != null)
            {
                handler.detach();
            }
            used.close();
        }
    }
}
