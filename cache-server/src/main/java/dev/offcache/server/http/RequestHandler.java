package dev.offcache.server.http;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.offcache.range.engine.SizeProbe;
import dev.offcache.range.origin.ObjectNotFoundException;
import dev.offcache.server.log.RateLimitedWarning;
import dev.offcache.server.log.Secrets;
import dev.offcache.server.s3.S3Answer;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection's request handling. Requests (already aggregated and size-bounded by the pipeline) are answered
 * strictly one at a time in arrival order, so pipelined requests get their responses in order; while a response
 * streams, further requests wait in a short queue and reading from the socket pauses once it fills.
 *
 * <p>Every outcome is a response: bad input gets a 4xx with a JSON body, an origin failure before the first byte a
 * 500, and anything unexpected a 500 — the connection may close, the server stays up. Runs on the channel's event
 * loop only.
 *
 * <p>This class holds the connection's state, routes each request and answers it; the bodies of the endpoints are
 * their own classes ({@link ObjectEndpoint}, {@link RangesEndpoint}, {@link PrefetchEndpoint},
 * {@link MetricsEndpoint}), which answer through it.
 */
final class RequestHandler extends ChannelInboundHandlerAdapter
{
    private static final Logger LOG = LoggerFactory.getLogger(RequestHandler.class);
    /** A WARN line for every 5xx answer (but {@code /ready}'s), at most ten a second. */
    private static final RateLimitedWarning SERVER_ERRORS = new RateLimitedWarning(LOG);
    private static final int MAX_QUEUED_REQUESTS = 16;
    /**
     * Most pipelined requests a connection may have waiting. Reading pauses at {@link #MAX_QUEUED_REQUESTS}, but the
     * bytes of one read are decoded whole, so up to a read buffer of small requests can arrive after that; past this
     * bound they are dropped and the connection ends after the last complete response (the client resends them).
     */
    static final int MAX_PIPELINED_REQUESTS = 128;
    private static final String OBJ = "/obj/";
    private static final String RANGES = "/ranges/";
    /** Request header by which a client says it takes {@code 102 Processing} interim responses. */
    static final String INTERIM_HEADER = "Offcache-Interim";
    private static final String INTERIM_VALUE = "102";
    /**
     * Request header by which a client asks for a checksummed body ({@value #CHECKSUM_VALUE}): each chunk of the
     * range that lies in one block is followed by its CRC32C. The answer says so in the same header and names the
     * block size in {@value #BLOCK_SIZE}. Any other client gets plain HTTP.
     */
    static final String CHECKSUM_HEADER = "Offcache-Checksum";
    static final String CHECKSUM_VALUE = "crc32c";
    /** Response header of a checksummed body: the block size that cuts the range into chunks. */
    static final String BLOCK_SIZE = "Offcache-Block-Size";
    /** Response header of {@code POST /ranges}: the object's size (its frames may be clamped to it). */
    static final String OBJECT_SIZE = "Offcache-Object-Size";

    private final ServerResources resources;
    private final S3Endpoint s3;
    private final ArrayDeque<FullHttpRequest> queued = new ArrayDeque<>();
    private boolean busy;
    private String acceptedAuthorization;
    private ResponseStream current;
    /** The access-log record of the request being answered, until its response takes it (null when off). */
    private AccessLog access;
    private ServerState.InFlight inFlight;
    /** The codec will decode no more requests: answer those it handed over, then close after the last. */
    private boolean inputEnded;
    /** A streamed request body waits for the origin ({@link S3BodyStreamer}): reading stays paused meanwhile. */
    private boolean bodyHoldsReads;

    RequestHandler(final ServerResources resources)
    {
        this(resources, null);
    }

    /**
     * A handler for one connection.
     *
     * @param resources what connections share.
     * @param s3        the S3 front of a connection to the S3 listener, or {@code null} for the {@code /obj} API.
     */
    RequestHandler(final ServerResources resources, final S3Endpoint s3)
    {
        this.resources = resources;
        this.s3 = s3;
    }

    /** What connections share, for the endpoints. */
    ServerResources resources()
    {
        return resources;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Connection state: one request at a time, in arrival order
    // ---------------------------------------------------------------------------------------------------------------

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg)
    {
        if (!(msg instanceof FullHttpRequest request))
        {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (inputEnded)
        {
            request.release();
            return;
        }
        if (queued.size() >= MAX_PIPELINED_REQUESTS)
        {
            request.release();
            endInput(ctx, "more than " + MAX_PIPELINED_REQUESTS + " pipelined requests");
            return;
        }
        queued.add(request);
        if (queued.size() >= MAX_QUEUED_REQUESTS)
        {
            ctx.channel().config().setAutoRead(false);
        }
        handleNext(ctx);
    }

    private void handleNext(final ChannelHandlerContext ctx)
    {
        while (!busy && !queued.isEmpty())
        {
            final FullHttpRequest request = queued.poll();
            busy = true;
            inFlight = resources.state().new InFlight();
            try
            {
                handle(ctx, request);
            }
            catch (final RuntimeException ex)
            {
                LOG.warn("unexpected failure handling {} {}", request.method(),
                    Secrets.redactTarget(request.uri()), ex);
                if (busy)
                {
                    respond(ctx, Endpoint.OTHER, HttpResponseStatus.INTERNAL_SERVER_ERROR, "internal error", false);
                }
            }
            finally
            {
                request.release();
            }
        }
        resumeReadsIfIdle(ctx);
    }

    private void resumeReadsIfIdle(final ChannelHandlerContext ctx)
    {
        if (queued.size() < MAX_QUEUED_REQUESTS / 2 && !ctx.channel().config().isAutoRead() && !inputEnded &&
            !bodyHoldsReads)
        {
            ctx.channel().config().setAutoRead(true);
        }
    }

    /**
     * Pauses or resumes reading for a streamed request body whose origin lags (its bounded buffer is full, or half
     * drained again); the pipelining bound's pause stays in force either way.
     */
    void holdReadsForBody(final ChannelHandlerContext ctx, final boolean hold)
    {
        bodyHoldsReads = hold;
        if (hold)
        {
            ctx.channel().config().setAutoRead(false);
        }
        else
        {
            resumeReadsIfIdle(ctx);
        }
    }

    /**
     * Checks the bearer key. A connection that presents the header it already proved is not hashed again: comparing
     * with its own earlier header can only tell a client what it sent itself, so plain equality leaks nothing.
     */
    private boolean authorized(final String authorization)
    {
        if (null != authorization && authorization.equals(acceptedAuthorization))
        {
            return true;
        }
        if (resources.apiKeys().allows(authorization))
        {
            acceptedAuthorization = authorization;
            return true;
        }
        return false;
    }

    /** Whether a request of this connection is being answered or waits to be. */
    boolean serving()
    {
        return busy || !queued.isEmpty();
    }

    /** Called when the current response is fully written (or handed to the socket). */
    void responseDone(final ChannelHandlerContext ctx, final boolean keepAlive)
    {
        busy = false;
        current = null;
        if (keepAlive && ctx.channel().isActive())
        {
            handleNext(ctx);
            if (!busy && inputEnded && queued.isEmpty())
            {
                // the last accepted request is answered: close once its bytes are out (an empty write completes
                // after every write before it), so no response is cut
                ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
            }
        }
        else
        {
            releaseQueued();
        }
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Routing
    // ---------------------------------------------------------------------------------------------------------------

    private void handle(final ChannelHandlerContext ctx, final FullHttpRequest request)
    {
        final long startNanos = System.nanoTime();
        access = AccessLog.begin(request, startNanos, ctx.channel().remoteAddress());
        // after the codec gave up on the connection, its last accepted request says it ends
        final boolean keepAlive = HttpUtil.isKeepAlive(request) && !(inputEnded && queued.isEmpty());
        if (!request.decoderResult().isSuccess())
        {
            respond(ctx, Endpoint.OTHER, HttpResponseStatus.BAD_REQUEST, "malformed HTTP request", false);
            return;
        }
        if (null != s3)
        {
            s3.handle(this, ctx, request, keepAlive, startNanos);
            return;
        }
        final String uri = request.uri();
        final int query = uri.indexOf('?');
        final String path;
        try
        {
            path = PercentDecoder.decode(query < 0 ? uri : uri.substring(0, query));
        }
        catch (final IllegalArgumentException ex)
        {
            respond(ctx, Endpoint.OTHER, HttpResponseStatus.BAD_REQUEST, ex.getMessage(), keepAlive);
            return;
        }
        final HttpMethod method = request.method();
        if (path.equals("/health"))
        {
            respond(ctx, Endpoint.HEALTH, HttpResponseStatus.OK, json("status", "ok"), keepAlive);
            return;
        }
        if (path.equals("/ready"))
        {
            final boolean ready = resources.state().ready();
            respondJson(ctx, Endpoint.READY, ready ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE,
                json("status", ready ? "ready" : "not ready"), keepAlive);
            return;
        }
        if (resources.state().closing())
        {
            respond(ctx, Endpoint.OTHER, HttpResponseStatus.SERVICE_UNAVAILABLE, "server is shutting down", false);
            return;
        }
        if (null != resources.apiKeys() && !authorized(request.headers().get(HttpHeaderNames.AUTHORIZATION)))
        {
            respond(ctx, Endpoint.AUTH, HttpResponseStatus.UNAUTHORIZED, "missing or wrong bearer API key", keepAlive);
            return;
        }
        if (path.equals("/metrics"))
        {
            requireMethod(ctx, method, HttpMethod.GET, Endpoint.METRICS, keepAlive,
                () -> MetricsEndpoint.serve(this, ctx, keepAlive));
        }
        else if (path.startsWith(OBJ))
        {
            if (!HttpMethod.GET.equals(method) && !HttpMethod.HEAD.equals(method))
            {
                respondNotAllowed(ctx, Endpoint.OBJ, "GET, HEAD", keepAlive);
                return;
            }
            final String key = path.substring(OBJ.length());
            if (checkKey(ctx, Endpoint.OBJ, key, keepAlive))
            {
                ObjectEndpoint.serve(this, ctx, request, key, HttpMethod.HEAD.equals(method), keepAlive, startNanos);
            }
        }
        else if (path.startsWith(RANGES))
        {
            final String key = path.substring(RANGES.length());
            requireMethod(ctx, method, HttpMethod.POST, Endpoint.RANGES, keepAlive, () ->
            {
                if (checkKey(ctx, Endpoint.RANGES, key, keepAlive))
                {
                    RangesEndpoint.serve(this, ctx, request, key, keepAlive, startNanos);
                }
            });
        }
        else if (path.equals("/prefetch"))
        {
            requireMethod(ctx, method, HttpMethod.POST, Endpoint.PREFETCH, keepAlive, () ->
                PrefetchEndpoint.serve(this, ctx, request, keepAlive));
        }
        else
        {
            respond(ctx, Endpoint.OTHER, HttpResponseStatus.NOT_FOUND, "no such endpoint", keepAlive);
        }
    }

    private void requireMethod(
        final ChannelHandlerContext ctx,
        final HttpMethod method,
        final HttpMethod wanted,
        final Endpoint endpoint,
        final boolean keepAlive,
        final Runnable action)
    {
        if (wanted.equals(method))
        {
            action.run();
        }
        else
        {
            respondNotAllowed(ctx, endpoint, wanted.name(), keepAlive);
        }
    }

    /** A 405 names the methods the resource takes in {@code Allow} (RFC 9110, section 15.5.6). */
    private void respondNotAllowed(
        final ChannelHandlerContext ctx, final Endpoint endpoint, final String allow, final boolean keepAlive)
    {
        final FullHttpResponse response = error(HttpResponseStatus.METHOD_NOT_ALLOWED, "use " + allow);
        response.headers().set(HttpHeaderNames.ALLOW, allow);
        send(ctx, endpoint, response, keepAlive);
    }

    private boolean checkKey(
        final ChannelHandlerContext ctx, final Endpoint endpoint, final String key, final boolean keepAlive)
    {
        final String problem = resources.keyPolicy().problemWith(key);
        if (null != problem)
        {
            respond(ctx, endpoint, HttpResponseStatus.BAD_REQUEST, "bad object key: " + problem, keepAlive);
            return false;
        }
        return true;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Waiting for the size, streaming, answering
    // ---------------------------------------------------------------------------------------------------------------

    /** The chunks of {@code [start, start + length)}: one per block of the grid it touches (a checksum each). */
    static long chunks(final long start, final long length, final int block)
    {
        return length == 0 ? 0 : (start + length - 1) / block - start / block + 1;
    }

    /**
     * Waits for the size (a probe's first GET, or a HEAD), then continues on the event loop; a missing object is a
     * 404, a failure a 500. While the size is not known (a slow origin), a client that asked for them
     * ({@value #INTERIM_HEADER}) gets {@code 102 Processing} interim responses, so a healthy server never looks dead
     * to it.
     */
    void onSize(
        final ChannelHandlerContext ctx,
        final Endpoint endpoint,
        final String key,
        final boolean keepAlive,
        final boolean interim,
        final CompletableFuture<Long> size,
        final SizeConsumer then)
    {
        if (size.isDone() && ctx.executor().inEventLoop())
        {
            // a remembered size: carry on here rather than queue a task behind other connections' work
            final Long known = size.isCompletedExceptionally() || size.isCancelled() ? null : size.join();
            onSizeKnown(ctx, endpoint, key, keepAlive, then, known, null == known ? failureOf(size) : null);
            return;
        }
        final InterimResponses interims = interim ? new InterimResponses(ctx, size, resources.metrics()) : null;
        size.whenComplete((known, error) ->
        {
            try
            {
                ctx.executor().execute(() ->
                {
                    if (null != interims)
                    {
                        interims.stop();
                    }
                    onSizeKnown(ctx, endpoint, key, keepAlive, then, known, error);
                });
            }
            catch (final RejectedExecutionException ex)
            {
                // shutting down
            }
        });
    }

    static boolean wantsInterim(final FullHttpRequest request)
    {
        return request.protocolVersion().equals(HttpVersion.HTTP_1_1) &&
            request.headers().contains(INTERIM_HEADER, INTERIM_VALUE, true);
    }

    private void onSizeKnown(
        final ChannelHandlerContext ctx,
        final Endpoint endpoint,
        final String key,
        final boolean keepAlive,
        final SizeConsumer then,
        final Long size,
        final Throwable error)
    {
        if (null != error)
        {
            respondSourceFailure(ctx, endpoint, unwrap(error), keepAlive);
            return;
        }
        try
        {
            then.accept(size);
        }
        catch (final RuntimeException ex)
        {
            LOG.warn("unexpected failure serving {}", key, ex);
            respond(ctx, endpoint, HttpResponseStatus.INTERNAL_SERVER_ERROR, "internal error", false);
        }
    }

    private static Throwable failureOf(final CompletableFuture<Long> done)
    {
        try
        {
            done.join();
            return new IllegalStateException("size future completed without a value");
        }
        catch (final CompletionException | CancellationException ex)
        {
            return ex;
        }
    }

    /** What an endpoint does once the object's size is known, on the event loop. */
    @FunctionalInterface
    interface SizeConsumer
    {
        void accept(long size);
    }

    /**
     * Streams the ranges of an object as the response's body ({@link ResponseStream}); {@code probe} is the size
     * lookup whose first GET the stream continues, or null.
     */
    void stream(
        final ChannelHandlerContext ctx,
        final Endpoint endpoint,
        final String key,
        final long[] starts,
        final long[] lengths,
        final boolean framed,
        final boolean checksummed,
        final HttpResponse response,
        final boolean keepAlive,
        final long startNanos,
        final SizeProbe probe)
    {
        final ResponseStream writer = new ResponseStream(ctx, this, resources, key, inFlight, endpoint, lengths,
            framed, checksummed, response, keepAlive, startNanos);
        current = writer;
        writer.accessLog(access);
        access = null;
        writer.start(resources.engine().openStream(key, starts, lengths, resources.budget(), ctx.executor(), writer,
            probe));
    }

    /** Writes a response whose body is read straight from the origin ({@link OriginBodyWriter}). */
    void streamFromOrigin(
        final ChannelHandlerContext ctx, final Endpoint endpoint, final HttpResponse response,
        final S3Answer.OriginBody body, final boolean keepAlive, final long startNanos)
    {
        final AccessLog entry = access;
        access = null;
        new OriginBodyWriter(ctx, this, resources.metrics(), inFlight, entry, endpoint, response, body, keepAlive,
            startNanos).start();
    }

    void respondSourceFailure(
        final ChannelHandlerContext ctx, final Endpoint endpoint, final Throwable error, final boolean keepAlive)
    {
        if (error instanceof ObjectNotFoundException)
        {
            respond(ctx, endpoint, HttpResponseStatus.NOT_FOUND, error.getMessage(), keepAlive);
        }
        else
        {
            LOG.warn("origin failure: {}", error.toString());
            respond(ctx, endpoint, HttpResponseStatus.INTERNAL_SERVER_ERROR, "origin read failed", keepAlive);
        }
    }

    void respond(
        final ChannelHandlerContext ctx,
        final Endpoint endpoint,
        final HttpResponseStatus status,
        final String messageOrJson,
        final boolean keepAlive)
    {
        if (status.code() < 300)
        {
            respondJson(ctx, endpoint, status, messageOrJson, keepAlive);
            return;
        }
        final FullHttpResponse response = error(status, messageOrJson);
        if (status.code() == 401)
        {
            response.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer");
        }
        send(ctx, endpoint, response, keepAlive);
    }

    /** A JSON body as it is, whatever the status (a 503 from {@code /ready} is not an error to wrap). */
    private void respondJson(
        final ChannelHandlerContext ctx,
        final Endpoint endpoint,
        final HttpResponseStatus status,
        final String json,
        final boolean keepAlive)
    {
        final FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
            Unpooled.copiedBuffer(json, StandardCharsets.UTF_8));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
        send(ctx, endpoint, response, keepAlive);
    }

    FullHttpResponse error(final HttpResponseStatus status, final String message)
    {
        final ObjectNode body = resources.json().createObjectNode()
            .put("status", status.code())
            .put("error", status.reasonPhrase())
            .put("message", message);
        final FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
            Unpooled.copiedBuffer(body.toString(), StandardCharsets.UTF_8));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
        return response;
    }

    void send(
        final ChannelHandlerContext ctx, final Endpoint endpoint, final FullHttpResponse response,
        final boolean keepAlive)
    {
        if (!response.headers().contains(HttpHeaderNames.CONTENT_LENGTH))
        {
            HttpUtil.setContentLength(response, response.content().readableBytes());
        }
        HttpUtil.setKeepAlive(response, keepAlive);
        resources.metrics().request(endpoint, response.status().code());
        if (response.status().code() >= 500 && Endpoint.READY != endpoint)
        {
            SERVER_ERRORS.warn("answered {} on {} to {}: {}", response.status().code(), endpoint,
                ctx.channel().remoteAddress(), response.content().toString(0,
                    Math.min(300, response.content().readableBytes()), StandardCharsets.UTF_8));
        }
        resources.metrics().responseBytes.getAndAdd(response.content().readableBytes());
        final ServerState.InFlight sent = inFlight;
        final AccessLog entry = access;
        access = null;
        final int status = response.status().code();
        final int bytes = response.content().readableBytes();
        ctx.writeAndFlush(response).addListener((ChannelFutureListener) (f) ->
        {
            sent.end();
            if (null != entry)
            {
                entry.complete(endpoint.label(), status, bytes, f.isSuccess() ? null : "cut");
            }
            if (!keepAlive)
            {
                f.channel().close();
            }
        });
        responseDone(ctx, keepAlive);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Channel events and the end of input
    // ---------------------------------------------------------------------------------------------------------------

    @Override
    public void channelWritabilityChanged(final ChannelHandlerContext ctx)
    {
        if (null != current)
        {
            current.writabilityChanged();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx)
    {
        if (null != current)
        {
            current.abort();
            current = null;
        }
        busy = false;
        if (null != inFlight)
        {
            inFlight.end();
        }
        if (null != access)
        {
            // the connection closed before the request was answered (e.g. while its size was being looked up)
            access.complete("-", 0, 0, "closed");
            access = null;
        }
        releaseQueued();
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
    {
        if (cause instanceof DecoderException && !inputEnded)
        {
            // the codec decodes nothing more of this connection, but the requests it handed over are whole
            endInput(ctx, null == cause.getCause() ? cause.toString() : cause.getCause().getMessage());
            return;
        }
        LOG.debug("connection {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }

    /**
     * Takes no further request from this connection: those accepted are answered, then the connection ends after the
     * last complete response (its {@code Connection: close}), so no response is cut; the client resends the rest on a
     * new connection. Counted with the connections closed by a limit.
     */
    private void endInput(final ChannelHandlerContext ctx, final String why)
    {
        inputEnded = true;
        ctx.channel().config().setAutoRead(false);
        resources.metrics().connectionsRefused.increment();
        final int accepted = queued.size() + (busy ? 1 : 0);
        LOG.warn("connection {}: {}; answering the {} requests accepted before, then closing",
            ctx.channel().remoteAddress(), why, accepted);
        if (accepted == 0)
        {
            ctx.close();
        }
    }

    private void releaseQueued()
    {
        FullHttpRequest request;
        while (null != (request = queued.poll()))
        {
            request.release();
        }
    }

    private static String json(final String field, final String value)
    {
        return "{\"" + field + "\":\"" + value + "\"}";
    }

    private static Throwable unwrap(final Throwable error)
    {
        return error instanceof CompletionException && null != error.getCause() ? error.getCause() : error;
    }
}
