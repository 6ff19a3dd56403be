package dev.offcache.range.l2;

import java.util.concurrent.CompletableFuture;

import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.LastHttpContent;

import dev.offcache.range.origin.ContentRangeHeader;

/**
 * A {@code HEAD /obj/{key}} for an object's size; anything but a 200 with a valid {@code Content-Length} falls back
 * to the origin's size.
 */
final class HeadExchange extends Exchange
{
    private final String key;
    private final CompletableFuture<Long> result;
    private long size = -1;

    HeadExchange(
        final L2Client client, final CircuitBreaker.Admission admission, final String key,
        final CompletableFuture<Long> result)
    {
        super(client, admission);
        this.key = key;
        this.result = result;
    }

    @Override
    HttpRequest request()
    {
        return client.newRequest(HttpMethod.HEAD, client.objectPath(key));
    }

    @Override
    boolean onHeaders(final HttpResponse response)
    {
        if (response.status().code() != HttpResponseStatus.OK.code())
        {
            fail(FallbackReason.STATUS, null);
            return false;
        }
        size = ContentRangeHeader.parseLength(response.headers().get(HttpHeaderNames.CONTENT_LENGTH));
        if (size < 0)
        {
            fail(FallbackReason.MALFORMED, null);
            return false;
        }
        return true;
    }

    @Override
    void onBody(final HttpContent content)
    {
        if (content.content().isReadable())
        {
            fail(FallbackReason.MALFORMED, null);
            return;
        }
        if (content instanceof LastHttpContent)
        {
            succeed();
            client.metrics().increment(L2ClientCounters.Counter.HEAD_HITS);
            result.complete(size);
        }
    }

    @Override
    void onFailed(final FallbackReason reason, final Throwable cause)
    {
        client.metrics().headFallback(reason);
        client.sizeFromOrigin(key, result);
    }
}
