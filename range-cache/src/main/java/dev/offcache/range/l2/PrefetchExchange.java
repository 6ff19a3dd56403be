package dev.offcache.range.l2;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;

/**
 * One {@code POST /prefetch} with an NDJSON body. It is admitted as {@link CircuitBreaker.Admission#SKIP}, so its
 * outcome never moves the breaker (a prefetch is never a probe). Completes with the server's answer text, or
 * exceptionally when the server did not accept it.
 */
final class PrefetchExchange extends Exchange
{
    private static final int MAX_ANSWER_BYTES = 4096;

    private final byte[] body;
    private final CompletableFuture<String> result;
    private final StringBuilder answer = new StringBuilder();

    PrefetchExchange(final L2Client client, final byte[] body, final CompletableFuture<String> result)
    {
        super(client, CircuitBreaker.Admission.SKIP);
        this.body = body;
        this.result = result;
    }

    /** No caller waits for a prefetch, so it may wait longer for the answer; the deadline only bounds resources. */
    @Override
    long headerDeadlineNs()
    {
        return client.abandonTimeoutNs() + client.stallTimeoutNs();
    }

    @Override
    HttpRequest request()
    {
        final ByteBuf content = Unpooled.wrappedBuffer(body);
        final FullHttpRequest request = new DefaultFullHttpRequest(
            HttpVersion.HTTP_1_1, HttpMethod.POST, client.prefetchPath(), content);
        client.addCommonHeaders(request);
        request.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/x-ndjson");
        request.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.length);
        request.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
        return request;
    }

    @Override
    boolean onHeaders(final HttpResponse response)
    {
        if (response.status().code() / 100 != 2)
        {
            fail(FallbackReason.STATUS, null);
            return false;
        }
        return true;
    }

    @Override
    void onBody(final HttpContent content)
    {
        if (answer.length() + content.content().readableBytes() > MAX_ANSWER_BYTES)
        {
            fail(FallbackReason.MALFORMED, null);
            return;
        }
        answer.append(content.content().toString(StandardCharsets.UTF_8));
        if (content instanceof LastHttpContent)
        {
            succeed();
            result.complete(answer.toString());
        }
    }

    @Override
    void onFailed(final FallbackReason reason, final Throwable cause)
    {
        result.completeExceptionally(new IllegalStateException("POST /prefetch failed: " + reason.tag(), cause));
    }
}
