package dev.offcache.server.http;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.offcache.range.engine.ByteRange;
import dev.offcache.range.engine.SizeProbe;
import dev.offcache.range.origin.ObjectNotFoundException;
import dev.offcache.server.log.RateLimitedWarning;
import dev.offcache.server.log.Secrets;
import dev.offcache.server.s3.S3Answer;
import dev.offcache.server.source.RangeSource;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.EmptyHttpHeaders;
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
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
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
    /** Stateless; the Prometheus text format 0.0.4, without {@code _created} samples. */
    private static final PrometheusTextFormatWriter METRICS_WRITER = new PrometheusTextFormatWriter(false);
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
    private final S3Front s3;
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
    RequestHandler(final ServerResources resources, final S3Front s3)
    {
        this.resources = resources;
        this.s3 = s3;
    }

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
                () -> respondMetrics(ctx, keepAlive));
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
                getObject(ctx, request, key, HttpMethod.HEAD.equals(method), keepAlive, startNanos);
            }
        }
        else if (path.startsWith(RANGES))
        {
            final String key = path.substring(RANGES.length());
            requireMethod(ctx, method, HttpMethod.POST, Endpoint.RANGES, keepAlive, () ->
            {
                if (checkKey(ctx, Endpoint.RANGES, key, keepAlive))
                {
                    postRanges(ctx, request, key, keepAlive, startNanos);
                }
            });
        }
        else if (path.equals("/prefetch"))
        {
            requireMethod(ctx, method, HttpMethod.POST, Endpoint.PREFETCH, keepAlive, () ->
                postPrefetch(ctx, request, keepAlive));
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

    private void getObject(
        final ChannelHandlerContext ctx,
        final FullHttpRequest request,
        final String key,
        final boolean head,
        final boolean keepAlive,
        final long startNanos)
    {
        final List<String> rangeHeaders = request.headers().getAll(HttpHeaderNames.RANGE);
        if (rangeHeaders.size() > 1)
        {
            respond(ctx, Endpoint.OBJ, HttpResponseStatus.BAD_REQUEST, "more than one Range header", keepAlive);
            return;
        }
        // a Range in a unit other than bytes is ignored: the whole object (RFC 9110, section 14.2)
        final String rangeHeader = rangeHeaders.isEmpty() || !RangeHeader.isBytes(rangeHeaders.get(0)) ? null :
            rangeHeaders.get(0);
        final boolean checksummed = !head && request.headers().contains(CHECKSUM_HEADER, CHECKSUM_VALUE, true);
        // a body's size comes with the first GET of its blocks, started now; a HEAD's from the origin's HEAD
        final SizeProbe probe = head ? null : probeFor(key, rangeHeader);
        onSize(ctx, Endpoint.OBJ, key, keepAlive, wantsInterim(request),
            null == probe ? resources.source().size(key) : probe.size(), (size) ->
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
                        final FullHttpResponse refused = error(HttpResponseStatus.REQUESTED_RANGE_NOT_SATISFIABLE,
                            ex.getMessage());
                        refused.headers().set(HttpHeaderNames.CONTENT_RANGE, "bytes */" + size);
                        send(ctx, Endpoint.OBJ, refused, keepAlive);
                    }
                    else
                    {
                        respond(ctx, Endpoint.OBJ, HttpResponseStatus.BAD_REQUEST, ex.getMessage(), keepAlive);
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
                final int block = resources.source().blockSize();
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
                send(ctx, Endpoint.OBJ, full, keepAlive);
                return;
            }
            stream(ctx, Endpoint.OBJ, key, new long[] {start}, new long[] {length}, false, checksummed, response,
                keepAlive, startNanos, probe);
        });
    }

    /**
     * The size lookup of a GET's body: known, or the fetch of the blocks its Range (else the object) starts with,
     * whose answer tells the size; a suffix range (or one that cannot be parsed) asks the size first.
     */
    private SizeProbe probeFor(final String key, final String rangeHeader)
    {
        final RangeSource source = resources.source();
        if (null == rangeHeader || source.sizeNow(key) >= 0)
        {
            return source.sizeForStream(key, 0, -1);
        }
        final long[] asked = RangeHeader.beforeSize(rangeHeader);
        return null == asked ? source.sizeForStream(key, -1, 0) : source.sizeForStream(key, asked[0], asked[1]);
    }

    private void postRanges(
        final ChannelHandlerContext ctx,
        final FullHttpRequest request,
        final String key,
        final boolean keepAlive,
        final long startNanos)
    {
        final long[][] ranges;
        try
        {
            ranges = parseRanges(request.content());
        }
        catch (final BadRequestException ex)
        {
            respond(ctx, Endpoint.RANGES, HttpResponseStatus.BAD_REQUEST, ex.getMessage(), keepAlive);
            return;
        }
        final boolean checksummed = request.headers().contains(CHECKSUM_HEADER, CHECKSUM_VALUE, true);
        final SizeProbe probe = probeFor(key, ranges);
        onSize(ctx, Endpoint.RANGES, key, keepAlive, wantsInterim(request), probe.size(), (size) ->
        {
            final int block = resources.source().blockSize();
            final long[] starts = new long[ranges.length];
            final long[] lengths = new long[ranges.length];
            long total = 0;
            for (int i = 0; i < ranges.length; i++)
            {
                if (ranges[i][0] > size)
                {
                    final FullHttpResponse refused = error(HttpResponseStatus.REQUESTED_RANGE_NOT_SATISFIABLE,
                        "range " + i + " starts at " + ranges[i][0] + ", past the end (" + size + ")");
                    refused.headers().set(HttpHeaderNames.CONTENT_RANGE, "bytes */" + size);
                    refused.headers().set(OBJECT_SIZE, size);
                    send(ctx, Endpoint.RANGES, refused, keepAlive);
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
            stream(ctx, Endpoint.RANGES, key, starts, lengths, true, checksummed, response, keepAlive, startNanos,
                probe);
        });
    }

    /**
     * The size lookup of a {@code POST /ranges} body: if need be, the fetch of the blocks its first non-empty range
     * starts with, through the ranges that follow it in adjoining or shared blocks (so the body's first run of blocks
     * is not cut where the first range ends).
     */
    private SizeProbe probeFor(final String key, final long[][] ranges)
    {
        final RangeSource source = resources.source();
        final long block = source.blockSize();
        int first = 0;
        while (first < ranges.length && ranges[first][1] <= ranges[first][0])
        {
            first++;
        }
        if (first == ranges.length)
        {
            return source.sizeForStream(key, -1, 0);
        }
        final long start = ranges[first][0];
        long end = ranges[first][1];
        for (int i = first + 1; i < ranges.length && ranges[i][0] / block <= (end - 1) / block + 1; i++)
        {
            end = Math.max(end, ranges[i][1]);
        }
        return source.sizeForStream(key, start, end - start);
    }

    /** The chunks of {@code [start, start + length)}: one per block of the grid it touches (a checksum each). */
    private static long chunks(final long start, final long length, final int block)
    {
        return length == 0 ? 0 : (start + length - 1) / block - start / block + 1;
    }

    private long[][] parseRanges(final ByteBuf body) throws BadRequestException
    {
        final JsonNode root = readJson(body);
        final JsonNode ranges = null == root ? null : root.get("ranges");
        if (null == ranges || !ranges.isArray())
        {
            throw new BadRequestException("body must be {\"ranges\":[[start,end],...]}");
        }
        if (ranges.size() > resources.maxRanges())
        {
            throw new BadRequestException("too many ranges: " + ranges.size() + " > " + resources.maxRanges());
        }
        final long[][] parsed = new long[ranges.size()][];
        for (int i = 0; i < ranges.size(); i++)
        {
            parsed[i] = parsePair(ranges.get(i), i);
        }
        return parsed;
    }

    private static long[] parsePair(final JsonNode pair, final int index) throws BadRequestException
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

    private JsonNode readJson(final ByteBuf body) throws BadRequestException
    {
        try
        {
            return resources.json().readTree(body.toString(StandardCharsets.UTF_8));
        }
        catch (final Exception ex)
        {
            throw new BadRequestException("body is not valid JSON");
        }
    }

    private void postPrefetch(final ChannelHandlerContext ctx, final FullHttpRequest request, final boolean keepAlive)
    {
        final String body = request.content().toString(StandardCharsets.UTF_8);
        int accepted = 0;
        int rejected = 0;
        int dropped = 0;
        for (final String line : body.split("\n"))
        {
            if (line.isBlank())
            {
                continue;
            }
            final PrefetchQueue.Request entry = parsePrefetchLine(line);
            if (null == entry)
            {
                rejected++;
            }
            else if (resources.prefetch().offer(entry))
            {
                accepted++;
            }
            else
            {
                dropped++;
            }
        }
        resources.metrics().prefetchAccepted.getAndAdd(accepted);
        resources.metrics().prefetchRejected.getAndAdd(rejected);
        resources.metrics().prefetchDropped.getAndAdd(dropped);
        final ObjectNode result = resources.json().createObjectNode()
            .put("accepted", accepted).put("rejected", rejected).put("dropped", dropped);
        respond(ctx, Endpoint.PREFETCH, HttpResponseStatus.ACCEPTED, result.toString(), keepAlive);
    }

    private PrefetchQueue.Request parsePrefetchLine(final String line)
    {
        try
        {
            final JsonNode node = resources.json().readTree(line);
            if (null == node || !node.isObject())
            {
                return null;
            }
            final JsonNode key = node.get("key");
            final JsonNode size = node.get("size");
            if (null == key || !key.isTextual() || null == size || !size.isIntegralNumber() ||
                !size.canConvertToLong() || size.longValue() < 0 ||
                null != resources.keyPolicy().problemWith(key.textValue()))
            {
                return null;
            }
            final JsonNode ranges = node.get("ranges");
            final List<long[]> parsed = new ArrayList<>();
            if (null == ranges || ranges.isNull())
            {
                parsed.add(new long[] {0, size.longValue()});
            }
            else
            {
                if (!ranges.isArray() || ranges.size() > resources.maxRanges())
                {
                    return null;
                }
                for (int i = 0; i < ranges.size(); i++)
                {
                    final long[] pair = parsePair(ranges.get(i), i);
                    if (pair[1] > size.longValue())
                    {
                        return null;
                    }
                    parsed.add(pair);
                }
            }
            return new PrefetchQueue.Request(key.textValue(), List.copyOf(parsed));
        }
        catch (final Exception ex)
        {
            return null;
        }
    }

    private void respondMetrics(final ChannelHandlerContext ctx, final boolean keepAlive)
    {
        final ByteBuf page = ctx.alloc().buffer(16384);
        try (ByteBufOutputStream out = new ByteBufOutputStream(page))
        {
            METRICS_WRITER.write(out, resources.registry().scrape());
        }
        catch (final IOException | RuntimeException ex)
        {
            page.release();
            respond(ctx, Endpoint.METRICS, HttpResponseStatus.INTERNAL_SERVER_ERROR, "metrics failed: " + ex,
                keepAlive);
            return;
        }
        final FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
            page);
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, PrometheusTextFormatWriter.CONTENT_TYPE);
        send(ctx, Endpoint.METRICS, response, keepAlive);
    }

    /**
     * Waits for the size (a probe's first GET, or a HEAD), then continues on the event loop; a missing object is a
     * 404, a failure a 500. While the size is not known (a slow origin), a client that asked for them
     * ({@value #INTERIM_HEADER}) gets {@code 102 Processing} interim responses, so a healthy server never looks dead
     * to it.
     */
    private void onSize(
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

    private static boolean wantsInterim(final FullHttpRequest request)
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

    @FunctionalInterface
    private interface SizeConsumer
    {
        void accept(long size);
    }

    void stream(
        final ChannelHandlerContext ctx,
        final Endpoint endpoint,
        final String key,
        final long[] starts,
        final long[] lengths,
        final boolean framed,
        final HttpResponse response,
        final boolean keepAlive,
        final long startNanos)
    {
        stream(ctx, endpoint, key, starts, lengths, framed, false, response, keepAlive, startNanos, null);
    }

    private void stream(
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
        writer.start(resources.source().openStream(key, starts, lengths, probe, resources.budget(), ctx.executor(),
            writer));
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

    private void respond(
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

    private FullHttpResponse error(final HttpResponseStatus status, final String message)
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

    /** A request body that cannot be served as sent. */
    private static final class BadRequestException extends Exception
    {
        private static final long serialVersionUID = 1L;

        BadRequestException(final String message)
        {
            super(message);
        }
    }
}
