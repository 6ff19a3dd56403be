package dev.offcache.range.l2;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongConsumer;

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
 * asked only for the rest. The object's size in the answer's {@code Content-Range} goes to the size sink, so the
 * engine needs no HEAD for an object it reads for the first time; a {@code 416} with {@code bytes * /size} is an
 * answer too: the range starts at or past the end, nothing to read.
 */
final class RangeExchange extends Exchange
{
    private final String key;
    private final long offset;
    private final ByteBuffer destination;
    private final int length;
    private final CompletableFuture<Integer> result;
    private final ByteBuffer target;
    private final LongConsumer objectSize;
    private long expected;
    private boolean pastTheEnd;
    private int delivered;

    RangeExchange(
        final L2Origin client,
        final CircuitBreaker.Admission admission,
        final String key,
        final long offset,
        final ByteBuffer destination,
        final LongConsumer objectSize,
        final CompletableFuture<Integer> result)
    {
        super(client, admission);
        this.objectSize = objectSize;
        this.key = key;
        this.offset = offset;
        this.destination = destination;
        this.length = destination.remaining();
        this.result = result;
        this.target = destination.duplicate();
    }

    @Override
    long bodyBytes()
    {
        return length;
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
        final String contentRange = response.headers().get(HttpHeaderNames.CONTENT_RANGE);
        final int status = response.status().code();
        if (status == HttpResponseStatus.REQUESTED_RANGE_NOT_SATISFIABLE.code())
        {
            final long total = ContentRange.total(contentRange);
            if (total < 0 || total > offset)
            {
                fail(total < 0 ? FallbackReason.STATUS : FallbackReason.MALFORMED, null);
                return false;
            }
            // the range starts past the end: the answer is "no bytes" (its body is an error text); it tells the size
            expected = 0;
            pastTheEnd = true;
            reportSize(total);
            return true;
        }
        if (status != HttpResponseStatus.PARTIAL_CONTENT.code())
        {
            fail(FallbackReason.STATUS, null);
            return false;
        }
        final long announced = ContentRange.expectedLength(
            contentRange, response.headers().get(HttpHeaderNames.CONTENT_LENGTH), offset, length);
        if (announced <= 0)
        {
            fail(FallbackReason.MALFORMED, null);
            return false;
        }
        expected = announced;
        reportSize(ContentRange.total(contentRange));
        return true;
    }

    private void reportSize(final long total)
    {
        if (total >= 0 && objectSize != null)
        {
            objectSize.accept(total);
        }
    }

    @Override
    void onBody(final HttpContent content)
    {
        final ByteBuf bytes = content.content();
        final int n = pastTheEnd ? 0 : bytes.readableBytes();
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
