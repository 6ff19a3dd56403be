package dev.offcache.server.s3;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Flow;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A streamed body and the origin client's retries: a retry takes the whole body while none of it went to an earlier
 * attempt, and fails at once after some did (the body cannot be sent twice).
 */
class UploadStreamTest
{
    private static final UploadStream.Reads NO_READS = new UploadStream.Reads()
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

    @Test
    void aRetryTakesTheWholeBodyWhenTheFirstAttemptGotNoneOfIt()
    {
        final UploadStream body = stream(6);
        final Collector first = new Collector();
        body.subscribe(first);
        body.offer(Unpooled.wrappedBuffer(new byte[] {1, 2, 3}));
        // the first attempt's connection fails before it asked for the body
        first.subscription.cancel();
        final Collector retry = new Collector();
        body.subscribe(retry);
        retry.subscription.request(Long.MAX_VALUE);
        body.offer(Unpooled.wrappedBuffer(new byte[] {4, 5, 6}));
        body.end();
        assertTrue(retry.completed);
        assertNull(retry.error);
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6}, retry.bytes.toByteArray());
        assertEquals(0, first.bytes.size());
        assertEquals(List.of(), first.signals);
    }

    @Test
    void aBodyOfAtMostHalfTheBufferIsHandedOverWholeOnceItsLastByteIsIn()
    {
        final UploadStream body = stream(6);
        final Collector first = new Collector();
        body.subscribe(first);
        first.subscription.request(Long.MAX_VALUE);
        body.offer(Unpooled.wrappedBuffer(new byte[] {1, 2, 3}));
        body.offer(Unpooled.wrappedBuffer(new byte[] {4, 5}));
        assertEquals(0, first.bytes.size(), "nothing is sent before the body is in");
        // the origin answered on the headers alone (say 501) and the attempt ended: a retry still has the body
        first.subscription.cancel();
        final Collector retry = new Collector();
        body.subscribe(retry);
        retry.subscription.request(Long.MAX_VALUE);
        body.offer(Unpooled.wrappedBuffer(new byte[] {6}));
        assertEquals(0, retry.bytes.size());
        body.end();
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6}, retry.bytes.toByteArray());
        assertTrue(retry.completed);
        assertNull(retry.error);
        assertEquals(0, first.bytes.size());
    }

    @Test
    void aRetryAfterABodyHeldWholeWentOutGetsTheSameBytesUntilTheRequestIsAnswered()
    {
        final UploadStream body = stream(6);
        final Collector first = new Collector();
        body.subscribe(first);
        first.subscription.request(Long.MAX_VALUE);
        body.offer(Unpooled.wrappedBuffer(new byte[] {1, 2, 3}));
        body.offer(Unpooled.wrappedBuffer(new byte[] {4, 5, 6}));
        body.end();
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6}, first.bytes.toByteArray());
        assertTrue(first.completed);
        // the origin's answer was lost (its connection reset after the body went): the client's retry
        final Collector retry = new Collector();
        body.subscribe(retry);
        retry.subscription.request(1);
        assertArrayEquals(new byte[] {1, 2, 3}, retry.bytes.toByteArray(), "as demanded");
        retry.subscription.request(5);
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6}, retry.bytes.toByteArray());
        assertTrue(retry.completed);
        assertNull(retry.error);
        assertTrue(body.answered());
        final Collector late = new Collector();
        body.subscribe(late);
        assertTrue(late.error instanceof IllegalStateException, "nothing is kept once answered: " + late.error);
    }

    @Test
    void aRetryFailsOnceAPieceWentToAnEarlierAttempt()
    {
        // a body longer than half the buffer streams as it comes
        final UploadStream body = stream(6, 8);
        final Collector first = new Collector();
        body.subscribe(first);
        first.subscription.request(Long.MAX_VALUE);
        body.offer(Unpooled.wrappedBuffer(new byte[] {1, 2, 3}));
        body.offer(Unpooled.wrappedBuffer(new byte[] {4, 5}));
        // the first piece went (the last is held back until the end)
        assertArrayEquals(new byte[] {1, 2, 3}, first.bytes.toByteArray());
        first.subscription.cancel();
        final Collector retry = new Collector();
        body.subscribe(retry);
        assertTrue(retry.error instanceof IllegalStateException, String.valueOf(retry.error));
        assertEquals(0, retry.bytes.size());
    }

    @Test
    void aSecondSubscriberWhileTheFirstHoldsTheBodyWithoutPiecesReplacesIt()
    {
        final UploadStream body = stream(2);
        final Collector first = new Collector();
        body.subscribe(first);
        final Collector retry = new Collector();
        body.subscribe(retry);
        // the first attempt's late demand is ignored: it is detached
        first.subscription.request(10);
        retry.subscription.request(10);
        body.offer(Unpooled.wrappedBuffer(new byte[] {7, 8}));
        body.end();
        assertEquals(0, first.bytes.size());
        assertArrayEquals(new byte[] {7, 8}, retry.bytes.toByteArray());
        assertTrue(retry.completed);
    }

    private static UploadStream stream(final int length)
    {
        return stream(length, 1024);
    }

    private static UploadStream stream(final int length, final long maxBufferedBytes)
    {
        final UploadStream body = new UploadStream(Runnable::run, NO_READS, maxBufferedBytes);
        body.claim(Authentication.DISABLED, new DefaultHttpHeaders().set("Content-Length", length));
        return body;
    }

    private static final class Collector implements Flow.Subscriber<ByteBuffer>
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final List<String> signals = new ArrayList<>();
        Flow.Subscription subscription;
        boolean completed;
        Throwable error;

        @Override
        public void onSubscribe(final Flow.Subscription s)
        {
            subscription = s;
        }

        @Override
        public void onNext(final ByteBuffer item)
        {
            final byte[] piece = new byte[item.remaining()];
            item.get(piece);
            bytes.write(piece, 0, piece.length);
        }

        @Override
        public void onError(final Throwable throwable)
        {
            error = throwable;
            signals.add("error");
        }

        @Override
        public void onComplete()
        {
            completed = true;
            signals.add("complete");
        }
    }
}
