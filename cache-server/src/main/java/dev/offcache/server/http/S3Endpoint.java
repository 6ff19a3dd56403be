package dev.offcache.server.http;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;

import dev.offcache.server.s3.AmzDates;
import dev.offcache.server.s3.Authentication;
import dev.offcache.server.s3.S3Answer;
import dev.offcache.server.s3.S3Api;
import dev.offcache.server.s3.S3ErrorCode;
import dev.offcache.server.s3.S3Exception;
import dev.offcache.server.s3.S3Operation;
import dev.offcache.server.s3.S3Request;
import dev.offcache.server.s3.S3Service;
import dev.offcache.server.s3.SigV4Verifier;
import dev.offcache.server.s3.UploadStream;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One S3 connection's front, in front of the connection's {@link RequestHandler}: it parses the request, verifies
 * its signature, asks the {@link S3Service} for the answer and hands it to the handler, which writes complete answers
 * itself and object bodies through the same engine stream as {@code /obj} (so ordering of pipelined requests,
 * keep-alive, the memory budget, zero-copy and the stream metrics are one implementation). Requests are counted
 * under the endpoint {@code s3_<Operation>} ({@code s3_auth} for signature failures), error answers also by S3 code.
 * Not thread-safe: every method runs on the channel's event loop.
 */
final class S3Endpoint
{
    private static final Logger LOG = LoggerFactory.getLogger(S3Endpoint.class);
    private static final AtomicLong REQUEST_IDS = new AtomicLong(System.nanoTime() & 0xFFFF_FFFFL);
    private static final Endpoint AUTH = Endpoint.S3_AUTH;
    private static final Endpoint OTHER = Endpoint.S3_OTHER;

    private final S3Api api;
    private final ServerResources resources;
    private final SigV4Verifier verifier;
    private long dateSecond = -1;
    private String date;

    S3Endpoint(final S3Api api, final ServerResources resources)
    {
        this.api = api;
        this.resources = resources;
        this.verifier = api.newVerifier();
    }

    void handle(
        final RequestHandler handler,
        final ChannelHandlerContext ctx,
        final FullHttpRequest request,
        final boolean keepAlive,
        final long startNanos)
    {
        final String requestId = Long.toHexString(0x1000_0000_0000_0000L | REQUEST_IDS.incrementAndGet())
            .toUpperCase(Locale.ROOT);
        final boolean head = HttpMethod.HEAD.equals(request.method());
        if (!resources.state().ready())
        {
            deliver(handler, ctx, OTHER, head, S3Service.error(null, new S3Exception(S3ErrorCode.SERVICE_UNAVAILABLE,
                "the server is shutting down"), requestId), requestId, false, startNanos);
            return;
        }
        final S3Request parsed;
        try
        {
            parsed = api.parser().parse(request.method().name(), request.uri(), request.headers());
        }
        catch (final S3Exception ex)
        {
            deliver(handler, ctx, OTHER, head, S3Service.error(null, ex, requestId), requestId, keepAlive, startNanos);
            return;
        }
        if (request.headers().contains(S3BodyStreamer.UNSIZED_BODY) &&
            (parsed.operation() == S3Operation.PUT_OBJECT || parsed.operation() == S3Operation.UPLOAD_PART))
        {
            deliver(handler, ctx, endpointOf(parsed), head, S3Service.error(parsed,
                new S3Exception(S3ErrorCode.MISSING_CONTENT_LENGTH), requestId), requestId, keepAlive, startNanos);
            return;
        }
        final UploadStream upload = request instanceof S3BodyStreamer.Streamed streamed ? streamed.body() : null;
        final Authentication auth;
        try
        {
            auth = null == verifier ? Authentication.DISABLED : verifier.verify(request.method().name(),
                parsed.rawPath(), parsed.query(), request.headers(), request.content(), null != upload,
                api.parser().isVirtualHost(request.headers()) ? "/" + parsed.bucket() + parsed.rawPath() :
                    parsed.rawPath());
        }
        catch (final S3Exception ex)
        {
            deliver(handler, ctx, AUTH, head, S3Service.error(parsed, ex, requestId), requestId,
                keepAliveAfter(upload, keepAlive), startNanos);
            return;
        }
        final Endpoint endpoint = endpointOf(parsed);
        // the service reads a whole body (or claims a streamed one) before it returns; the request is released after
        // this method
        final CompletableFuture<S3Answer> answer =
            api.service().answer(parsed, auth, request.headers(), request.content(), upload, requestId);
        if (answer.isDone() && ctx.executor().inEventLoop())
        {
            deliver(handler, ctx, endpoint, head, answer.join(), requestId, keepAliveAfter(upload, keepAlive),
                startNanos);
            return;
        }
        answer.whenComplete((done, error) ->
        {
            try
            {
                ctx.executor().execute(() -> deliver(handler, ctx, endpoint, head, null != done ? done :
                    S3Service.error(parsed, new S3Exception(S3ErrorCode.INTERNAL_ERROR), requestId), requestId,
                    keepAliveAfter(upload, keepAlive), startNanos));
            }
            catch (final RejectedExecutionException ex)
            {
                // shutting down
            }
        });
    }

    private void deliver(
        final RequestHandler handler,
        final ChannelHandlerContext ctx,
        final Endpoint endpoint,
        final boolean head,
        final S3Answer answer,
        final String requestId,
        final boolean keepAlive,
        final long startNanos)
    {
        try
        {
            final HttpHeaders headers = answer.headers()
                .set("x-amz-request-id", requestId)
                .set("x-amz-id-2", requestId)
                .set("Date", date())
                .set("Server", "offcache");
            if (answer instanceof S3Answer.Complete complete)
            {
                if (null != complete.errorCode())
                {
                    resources.metrics().s3Error(complete.errorCode());
                }
                final FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                    HttpResponseStatus.valueOf(complete.status()), head || complete.body().isEmpty() ?
                    Unpooled.EMPTY_BUFFER : Unpooled.copiedBuffer(complete.body(), StandardCharsets.UTF_8),
                    headers, EmptyHttpHeaders.INSTANCE);
                handler.send(ctx, endpoint, response, keepAlive);
                return;
            }
            if (answer instanceof S3Answer.OriginBody fromOrigin)
            {
                final HttpResponse response = new DefaultHttpResponse(HttpVersion.HTTP_1_1,
                    HttpResponseStatus.valueOf(fromOrigin.status()), headers);
                if (head || fromOrigin.length() == 0)
                {
                    handler.send(ctx, endpoint, new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                        response.status(), Unpooled.EMPTY_BUFFER, headers, EmptyHttpHeaders.INSTANCE), keepAlive);
                    return;
                }
                HttpUtil.setKeepAlive(response, keepAlive);
                handler.streamFromOrigin(ctx, endpoint, response, fromOrigin, keepAlive, startNanos);
                return;
            }
            final S3Answer.ObjectBody body = (S3Answer.ObjectBody) answer;
            if (head || body.length() == 0)
            {
                handler.send(ctx, endpoint, new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                    HttpResponseStatus.valueOf(body.status()), Unpooled.EMPTY_BUFFER, headers,
                    EmptyHttpHeaders.INSTANCE), keepAlive);
                return;
            }
            final HttpResponse response = new DefaultHttpResponse(HttpVersion.HTTP_1_1,
                HttpResponseStatus.valueOf(body.status()), headers);
            HttpUtil.setKeepAlive(response, keepAlive);
            handler.stream(ctx, endpoint, body.key(), new long[] {body.start()}, new long[] {body.length()}, false,
                false, response, keepAlive, startNanos, null);
        }
        catch (final RuntimeException ex)
        {
            LOG.warn("unexpected failure answering an S3 request", ex);
            handler.send(ctx, endpoint, new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                HttpResponseStatus.INTERNAL_SERVER_ERROR), false);
        }
    }

    /**
     * Whether the connection stays open after an answer: an answer given before a streamed body was all received
     * (a refusal, the origin's early error) leaves the rest of the body on the wire, which is dropped by closing.
     */
    private static boolean keepAliveAfter(final UploadStream upload, final boolean keepAlive)
    {
        return null == upload ? keepAlive : upload.answered() && keepAlive;
    }

    private static Endpoint endpointOf(final S3Request request)
    {
        return Endpoint.s3(request.operation());
    }

    private String date()
    {
        final long now = api.clock().millis();
        if (now / 1000 != dateSecond)
        {
            dateSecond = now / 1000;
            date = AmzDates.formatHttpDate(now);
        }
        return date;
    }
}
