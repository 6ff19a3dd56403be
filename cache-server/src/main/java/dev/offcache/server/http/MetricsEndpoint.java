package dev.offcache.server.http;

import java.io.IOException;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;

/** The {@code GET /metrics} endpoint: the server's Prometheus registry, scraped into one pooled buffer per answer. */
final class MetricsEndpoint
{
    /** Stateless; the Prometheus text format 0.0.4, without {@code _created} samples. */
    private static final PrometheusTextFormatWriter METRICS_WRITER = new PrometheusTextFormatWriter(false);

    private MetricsEndpoint()
    {
    }

    /** Answers {@code GET /metrics}: the registry's scrape in the Prometheus text format. */
    static void serve(final RequestHandler handler, final ChannelHandlerContext ctx, final boolean keepAlive)
    {
        final ByteBuf page = ctx.alloc().buffer(16384);
        try (ByteBufOutputStream out = new ByteBufOutputStream(page))
        {
            METRICS_WRITER.write(out, handler.resources().registry().scrape());
        }
        catch (final IOException | RuntimeException ex)
        {
            page.release();
            handler.respond(ctx, Endpoint.METRICS, HttpResponseStatus.INTERNAL_SERVER_ERROR, "metrics failed: " + ex,
                keepAlive);
            return;
        }
        final FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
            page);
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, PrometheusTextFormatWriter.CONTENT_TYPE);
        handler.send(ctx, Endpoint.METRICS, response, keepAlive);
    }
}
