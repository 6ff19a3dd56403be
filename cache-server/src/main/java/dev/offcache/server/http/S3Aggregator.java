package dev.offcache.server.http;

import java.nio.charset.StandardCharsets;

import dev.offcache.server.s3.S3ErrorCode;
import dev.offcache.server.s3.S3Exception;
import dev.offcache.server.s3.S3Xml;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;

/**
 * The S3 listener's request aggregator: as Netty's, bounded by {@code --max-body-kb}, but a body over the bound is
 * refused the way S3 refuses it ({@code EntityTooLarge} in an XML error document) and the connection closed, rather
 * than with a bare 413 an S3 client cannot parse. (A write to a read-only endpoint never gets here unless its body
 * is small and whole: {@link S3BodyStreamer} hands it on at its head, for the S3 front to refuse.)
 */
final class S3Aggregator extends HttpObjectAggregator
{
    S3Aggregator(final int maxBodyBytes)
    {
        super(maxBodyBytes);
    }

    @Override
    protected Object newContinueResponse(
        final HttpMessage start, final int maxContentLength, final ChannelPipeline pipeline)
    {
        final Object standard = super.newContinueResponse(start, maxContentLength, pipeline);
        if (standard instanceof FullHttpResponse response && response.status().code() == 413 &&
            start instanceof HttpRequest request)
        {
            response.release();
            return refusal(HttpResponseStatus.BAD_REQUEST, tooLarge(), request.uri());
        }
        return standard;
    }

    @Override
    protected void handleOversizedMessage(final ChannelHandlerContext ctx, final HttpMessage oversized)
        throws Exception
    {
        if (!(oversized instanceof HttpRequest request))
        {
            super.handleOversizedMessage(ctx, oversized);
            return;
        }
        ctx.writeAndFlush(refusal(HttpResponseStatus.BAD_REQUEST, tooLarge(), request.uri()))
            .addListener(ChannelFutureListener.CLOSE);
    }

    private S3Exception tooLarge()
    {
        return new S3Exception(S3ErrorCode.ENTITY_TOO_LARGE)
            .with("MaxSizeAllowed", Integer.toString(maxContentLength()));
    }

    /** An S3 error answered before the body, closing the connection (the body may be on its way). */
    private static FullHttpResponse refusal(final HttpResponseStatus status, final S3Exception error, final String uri)
    {
        final FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
            Unpooled.copiedBuffer(S3Xml.error(error, uri, "-"), StandardCharsets.UTF_8));
        response.headers()
            .set(HttpHeaderNames.CONTENT_TYPE, "application/xml")
            .set(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes())
            .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        return response;
    }
}
