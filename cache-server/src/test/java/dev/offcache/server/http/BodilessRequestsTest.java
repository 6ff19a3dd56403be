package dev.offcache.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.HttpResponseStatus;
import org.junit.jupiter.api.Test;

/**
 * The bodiless-request shortcut in front of the aggregator, on the server's codec and aggregator: what reaches the
 * handler is the request the client sent (method, URI, headers, body) whichever path it took, in order, and no
 * buffer is left unreleased.
 */
class BodilessRequestsTest
{
    private static final int MAX_BODY = 1024;

    private static EmbeddedChannel channel()
    {
        return new EmbeddedChannel(new HttpResponseEncoder(), new HttpRequestDecoder(), new BodilessRequests(),
            new HttpObjectAggregator(MAX_BODY));
    }

    private static List<FullHttpRequest> send(final EmbeddedChannel channel, final String... parts)
    {
        for (final String part : parts)
        {
            channel.writeInbound(Unpooled.copiedBuffer(part, StandardCharsets.US_ASCII));
        }
        final List<FullHttpRequest> out = new ArrayList<>();
        for (Object msg = channel.readInbound(); null != msg; msg = channel.readInbound())
        {
            out.add(assertInstanceOf(FullHttpRequest.class, msg));
        }
        return out;
    }

    /** Releases {@code request}: true when its body went back to zero or is the shared empty buffer (never freed). */
    private static boolean released(final FullHttpRequest request)
    {
        return request.release() || request.content() == Unpooled.EMPTY_BUFFER;
    }

    @Test
    void aBodilessGetIsWholeWithItsHeadersAndNoAddedLength()
    {
        final EmbeddedChannel channel = channel();
        final List<FullHttpRequest> got = send(channel,
            "GET /obj/a%20b?x=1 HTTP/1.1\r\nHost: h\r\nRange: bytes=0-65535\r\nAuthorization: Bearer k\r\n\r\n");
        assertEquals(1, got.size());
        final FullHttpRequest request = got.get(0);
        assertTrue(request.decoderResult().isSuccess());
        assertEquals("GET", request.method().name());
        assertEquals("/obj/a%20b?x=1", request.uri());
        assertEquals("bytes=0-65535", request.headers().get(HttpHeaderNames.RANGE));
        assertEquals("Bearer k", request.headers().get(HttpHeaderNames.AUTHORIZATION));
        assertEquals(3, request.headers().size(), "no Content-Length added: " + request.headers());
        assertEquals(0, request.content().readableBytes());
        assertTrue(released(request));
        assertFalse(channel.finish());
    }

    @Test
    void pipelinedRequestsOfBothKindsArriveInOrderAndWhole()
    {
        final EmbeddedChannel channel = channel();
        // one read carrying a HEAD, a POST with a body, a GET with Content-Length 0 and a chunked PUT, the last split
        final List<FullHttpRequest> got = send(channel,
            "HEAD /obj/a HTTP/1.1\r\nHost: h\r\n\r\n"
                + "POST /ranges HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\na 0-9\nb 1-2"
                + "GET /obj/c HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n"
                + "PUT /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc",
            "\r\n2\r\nde\r\n0\r\n\r\n");
        assertEquals(List.of("HEAD /obj/a", "POST /ranges", "GET /obj/c", "PUT /x"),
            got.stream().map(r -> r.method() + " " + r.uri()).toList());
        assertEquals("", got.get(0).content().toString(StandardCharsets.US_ASCII));
        assertEquals("a 0-9\nb 1-2", got.get(1).content().toString(StandardCharsets.US_ASCII));
        assertEquals("", got.get(2).content().toString(StandardCharsets.US_ASCII));
        assertEquals("abcde", got.get(3).content().toString(StandardCharsets.US_ASCII));
        for (final FullHttpRequest request : got)
        {
            assertTrue(request.decoderResult().isSuccess());
            assertTrue(released(request), "released to zero: " + request.method());
        }
        assertFalse(channel.finish());
    }

    @Test
    void aRequestAskingForContinueStillGetsItFromTheAggregator()
    {
        final EmbeddedChannel channel = channel();
        final List<FullHttpRequest> got = send(channel,
            "GET /obj/a HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\n\r\n");
        final ByteBuf interim = channel.readOutbound();
        final String text = interim.toString(StandardCharsets.US_ASCII);
        interim.release();
        assertTrue(text.startsWith("HTTP/1.1 100 Continue"), "got: " + text);
        assertEquals(1, got.size());
        assertEquals("/obj/a", got.get(0).uri());
        assertTrue(released(got.get(0)));
        assertFalse(channel.finish());
    }

    @Test
    void aBodyOverTheLimitIsRefusedByTheAggregatorAsBefore()
    {
        final EmbeddedChannel channel = new EmbeddedChannel(new HttpRequestDecoder(), new BodilessRequests(),
            new HttpObjectAggregator(MAX_BODY));
        channel.pipeline().addFirst(new HttpResponseEncoder());
        assertEquals(List.of(), send(channel,
            "POST /ranges HTTP/1.1\r\nHost: h\r\nContent-Length: " + (MAX_BODY + 1) + "\r\n\r\n"));
        final Object refused = channel.readOutbound();
        assertInstanceOf(ByteBuf.class, refused);
        final String text = ((ByteBuf) refused).toString(StandardCharsets.US_ASCII);
        ((ByteBuf) refused).release();
        assertTrue(text.startsWith("HTTP/1.1 " + HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE.code()), text);
        channel.finishAndReleaseAll();
    }

    @Test
    void aRequestTheCodecCouldNotParseGoesOnWithItsFailure()
    {
        final EmbeddedChannel channel = channel();
        final List<FullHttpRequest> got = send(channel,
            "GET /obj/a HTTP/1.1\r\nHost: h\r\nContent-Length: abc\r\n\r\n");
        assertEquals(1, got.size());
        assertTrue(got.get(0).decoderResult().isFailure());
        got.get(0).release();
        channel.finishAndReleaseAll();
    }

    @Test
    void onlyCleanBodilessHeadsTakeTheShortcut()
    {
        final EmbeddedChannel decoder = new EmbeddedChannel(new HttpRequestDecoder());
        decoder.writeInbound(Unpooled.copiedBuffer("GET / HTTP/1.1\r\nContent-Length: 7\r\n\r\n",
            StandardCharsets.US_ASCII));
        final io.netty.handler.codec.http.HttpRequest withLength = decoder.readInbound();
        assertFalse(BodilessRequests.hasNoBody(withLength));
        withLength.headers().set(HttpHeaderNames.CONTENT_LENGTH, "0");
        assertTrue(BodilessRequests.hasNoBody(withLength));
        withLength.headers().set(HttpHeaderNames.TRANSFER_ENCODING, "chunked");
        assertFalse(BodilessRequests.hasNoBody(withLength));
        withLength.headers().remove(HttpHeaderNames.TRANSFER_ENCODING).set(HttpHeaderNames.EXPECT, "100-continue");
        assertFalse(BodilessRequests.hasNoBody(withLength));
        decoder.finishAndReleaseAll();
    }
}
