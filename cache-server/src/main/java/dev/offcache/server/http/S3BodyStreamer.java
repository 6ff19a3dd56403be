package dev.offcache.server.http;

import java.nio.channels.ClosedChannelException;

import dev.offcache.server.s3.S3Api;
import dev.offcache.server.s3.S3Exception;
import dev.offcache.server.s3.S3Operation;
import dev.offcache.server.s3.S3Request;
import dev.offcache.server.s3.S3WriteMode;
import dev.offcache.server.s3.UploadStream;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;

/**
 * Sits between the S3 listener's HTTP codec and its aggregator and takes the writes whose bodies go to the origin as
 * they arrive ({@code PutObject}, {@code UploadPart} passed through to an S3 origin, {@link
 * dev.offcache.server.s3.S3Service#streams}): such a request goes on as a {@link Streamed} request with an empty
 * content and its body in an {@link UploadStream}, which the codec's pieces are handed to in order, so neither
 * {@code --max-body-kb} nor the part size bounds them and memory stays bounded by {@link #MAX_BUFFERED_BYTES} per
 * connection (reading pauses while the origin lags). A write to a read-only endpoint that the aggregator would
 * answer itself (one that expects {@code 100-continue}, or whose body is over the bound) goes on the same way, its
 * body unclaimed, to be refused by the S3 front. Every other request passes to the aggregator unchanged. One per
 * connection; runs on its event loop.
 */
final class S3BodyStreamer extends ChannelInboundHandlerAdapter
{
    /** Received body bytes a connection holds at most while the origin lags (then reading pauses). */
    static final long MAX_BUFFERED_BYTES = 1024 * 1024;
    /** S3's largest single PUT (object or part); a longer body is left to the aggregator, which refuses it. */
    private static final long MAX_STREAMED_LENGTH = 5L << 30;

    /**
     * Set here on a request whose body came in HTTP chunks without a length (the aggregator then gives it one, so
     * the S3 front could no longer tell): S3 answers such a write {@code 411 MissingContentLength}. Removed from
     * every request first, so a client cannot set it.
     */
    static final String UNSIZED_BODY = "x-offcache-unsized-body";

    private final S3Api api;
    private final int maxBodyBytes;
    private UploadStream current;

    S3BodyStreamer(final S3Api api, final int maxBodyBytes)
    {
        this.api = api;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg) throws Exception
    {
        if (null != current && msg instanceof HttpContent content)
        {
            final UploadStream body = current;
            if (msg instanceof LastHttpContent)
            {
                current = null;
            }
            body.offer(content.content());
            if (msg instanceof LastHttpContent)
            {
                body.end();
            }
            return;
        }
        if (msg instanceof HttpRequest request)
        {
            request.headers().remove(UNSIZED_BODY);
            if (!HttpUtil.isContentLengthSet(request) && HttpUtil.isTransferEncodingChunked(request))
            {
                request.headers().set(UNSIZED_BODY, "true");
            }
        }
        if (msg instanceof HttpRequest request && !(msg instanceof FullHttpRequest) &&
            request.decoderResult().isSuccess() && refusedAtItsHead(request))
        {
            // no 100 Continue (the Expect header stays, it may be signed): the S3 front answers the refusal
            // (counted, logged) and, as the body is not all in, closes the connection, dropping whatever of it the
            // client sends anyway
            current = new UploadStream(ctx.executor(), NO_READ_CONTROL, MAX_BUFFERED_BYTES);
            ctx.fireChannelRead(new Streamed(request, current));
            return;
        }
        if (msg instanceof HttpRequest request && !(msg instanceof FullHttpRequest) &&
            request.decoderResult().isSuccess() && streams(request))
        {
            final UploadStream body = new UploadStream(ctx.executor(), new UploadStream.Reads()
            {
                @Override
                public void pause()
                {
                    final RequestHandler handler = ctx.pipeline().get(RequestHandler.class);
                    if (null != handler)
                    {
                        handler.holdReadsForBody(ctx, true);
                    }
                }

                @Override
                public void resume()
                {
                    final RequestHandler handler = ctx.pipeline().get(RequestHandler.class);
                    if (null != handler)
                    {
                        handler.holdReadsForBody(ctx, false);
                    }
                }
            }, MAX_BUFFERED_BYTES);
            if (HttpUtil.is100ContinueExpected(request))
            {
                // as the aggregator would: the client may send the body now
                ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE,
                    Unpooled.EMPTY_BUFFER));
                request.headers().remove(HttpHeaderNames.EXPECT);
            }
            current = body;
            ctx.fireChannelRead(new Streamed(request, body));
            return;
        }
        ctx.fireChannelRead(msg);
    }

    /**
     * A write to a read-only endpoint ({@code --s3-api-writes REFUSE}) that would not reach the S3 front as a whole
     * request (it asks {@code 100-continue}, or its body is chunked or over {@code
     * --max-body-kb}): it goes on at once with its body unclaimed, so it is refused like any other write, with the
     * same error, counters and access-log line, and the client is not asked for a body that would be thrown away.
     */
    private boolean refusedAtItsHead(final HttpRequest request)
    {
        if (api.writes() != S3WriteMode.REFUSE ||
            !(HttpMethod.PUT.equals(request.method()) || HttpMethod.POST.equals(request.method())))
        {
            return false;
        }
        // a small whole body (or none: no length, not chunked) is aggregated and refused like any request
        if (!HttpUtil.is100ContinueExpected(request) && !HttpUtil.isTransferEncodingChunked(request) &&
            HttpUtil.getContentLength(request, 0L) <= maxBodyBytes)
        {
            return false;
        }
        try
        {
            return api.parser().parse(request.method().name(), request.uri(), request.headers()).operation().kind() ==
                S3Operation.Kind.WRITE;
        }
        catch (final S3Exception ex)
        {
            // answered by the S3 front from the aggregated request
            return false;
        }
    }

    private boolean streams(final HttpRequest request)
    {
        if (!HttpMethod.PUT.equals(request.method()) || !HttpUtil.isContentLengthSet(request) ||
            HttpUtil.isTransferEncodingChunked(request))
        {
            return false;
        }
        final String decoded = request.headers().get("x-amz-decoded-content-length");
        try
        {
            final long length = null != decoded ? Long.parseLong(decoded.trim()) : HttpUtil.getContentLength(request);
            if (length < 0 || length > MAX_STREAMED_LENGTH)
            {
                return false;
            }
            final S3Request parsed = api.parser().parse(request.method().name(), request.uri(), request.headers());
            return api.service().streams(parsed);
        }
        catch (final NumberFormatException | S3Exception ex)
        {
            // answered by the S3 front from the aggregated request
            return false;
        }
    }

    /** A refused body is dropped as it arrives; reading never pauses for it. */
    private static final UploadStream.Reads NO_READ_CONTROL = new UploadStream.Reads()
    {
        @Override
        public void pause()
        {
        }

        @Override
        public void resume()
        {
        }
    };

    @Override
    public void channelInactive(final ChannelHandlerContext ctx) throws Exception
    {
        if (null != current)
        {
            current.abort(new ClosedChannelException());
            current = null;
        }
        super.channelInactive(ctx);
    }

    /**
     * A request whose body is streamed: no content of its own, the body in {@link #body()}. Releasing it drops a
     * body that no write claimed.
     */
    static final class Streamed extends DefaultFullHttpRequest
    {
        private final UploadStream body;

        Streamed(final HttpRequest head, final UploadStream body)
        {
            super(head.protocolVersion(), head.method(), head.uri(), Unpooled.EMPTY_BUFFER, head.headers(),
                EmptyHttpHeaders.INSTANCE);
            setDecoderResult(head.decoderResult());
            this.body = body;
        }

        UploadStream body()
        {
            return body;
        }

        @Override
        public boolean release()
        {
            body.requestDone();
            return super.release();
        }

        @Override
        public boolean release(final int decrement)
        {
            body.requestDone();
            return super.release(decrement);
        }
    }
}
