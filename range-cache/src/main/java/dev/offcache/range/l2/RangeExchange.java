package dev.offcache.range.l2;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.LastHttpContent;

/**
 * A ranged {@code GET /obj/{key}}: the body is copied from Netty's pooled direct buffers straight into the caller's
 * buffer (no heap copy). Anything wrong falls back to the origin; bytes already delivered stay and the origin is
 * asked only for the rest.
 */
final class RangeExchange extends Exchange
{
    private final String key;
    private final long offset;
    private final ByteBuffer destination;
    private final int length;
    private final CompletableFuture<Integer> result;
    private final ByteBuffer target;
    private long expected;
    private int delivered;

    RangeExchange(
        final L2Origin client,
        final CircuitBreaker.Admission admission,
        final String key,
        final long offset,
        final ByteBuffer destination,
        final CompletableFuture<Integer> result)
    {
        super(client, admission);
        this.key = key;
        this.offset = offset;
        this.destination = destination;
        this.length = destination.remaining();
        this.result = result;
        this.target = destination.duplicate();
    }

    @Override
    HttpRequest request()
    {
        final HttpRequest request = client.newRequest(HttpMethod.GET, client.objectPath(key));
        request.headers().set(HttpHeaderNames.RANGE, "bytes=" + offset + "-" + (offset + length - 1));
        return request;
    }

    @Override
    boolean onHeaders(final HttpResponse response)
    {
        if (response.status().code() != HttpResponseStatus.PARTIAL_CONTENT.code())
        {
            fail(FallbackReason.STATUS, null);
            return false;
        }
        final long announced = ContentRange.expectedLength(
            response.headers().get(HttpHeaderNames.CONTENT_RANGE),
            response.headers().get(HttpHeaderNames.CONTENT_LENGTH),
            offset, length);
        if (announced <= 0)
        {
            fail(FallbackReason.MALFORMED, null);
            return false;
        }
        expected = announced;
        return true;
    }

    @Override
    void onBody(final HttpContent content)
    {
        final ByteBuf bytes = content.content();
        final int n = bytes.readableBytes();
        if (delivered + (long) n > expected)
        {
            fail(FallbackReason.MALFORMED, null);
            return;
        }
        if (n > 0)
        {
            target.limit(target.position() + n);
            bytes.getBytes(bytes.readerIndex(), target);
            delivered += n;
        }
        if (content instanceof LastHttpContent)
        {
            if (delivered == expected)
            {
                succeed();
                client.metrics().increment(L2ClientMetrics.Counter.L2_HITS);
                client.metrics().add(L2ClientMetrics.Counter.L2_BYTES, delivered);
                result.complete(delivered);
            }
            else
            {
                fail(FallbackReason.SHORT_BODY, null);
            }
        }
    }

    @Override
    void onFailed(final FallbackReason reason, final Throwable cause)
    {
        client.metrics().readFallback(reason);
        client.metrics().add(L2ClientMetrics.Counter.L2_BYTES, delivered);
        client.readFromOrigin(key, offset, destination, delivered, result);
    }
}
