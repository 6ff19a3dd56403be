package dev.offcache.server.s3;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;
import java.util.concurrent.RejectedExecutionException;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaders;

/**
 * The body of one streamed write ({@code PutObject}, {@code UploadPart}) on its way from the client's connection to
 * the origin, in bounded memory: the transport {@linkplain #offer offers} the body's pieces as the HTTP codec decodes
 * them, and the origin's client takes them as a {@link Flow.Publisher} of decoded bytes at its own pace. At most
 * {@code maxBufferedBytes} of received bytes wait here; past that the transport is asked to stop reading the
 * connection ({@link Reads}) until the origin has taken half. A body of at most half that length is held until its
 * last byte is in and then handed over whole, as a client sending from memory would.
 *
 * <p>What was signed is checked on the way: {@code aws-chunked} chunk signatures and trailing checksums
 * ({@link AwsChunkedBody.Decoder}), a body SHA-256 named in {@code x-amz-content-sha256} and {@code Content-MD5}.
 * A body hash can only be checked once the last byte is in, so the last decoded piece is held back until then: a
 * body that does not match fails the stream before the origin has the whole object, so the origin's upload fails
 * (no object or part is written) and the client is answered with this stream's {@link #failure()}
 * ({@code XAmzContentSHA256Mismatch}, {@code BadDigest}, {@code SignatureDoesNotMatch}, {@code InvalidArgument}).
 *
 * <p>Threading: every method but {@link #subscribe} and {@link #failure} runs on the connection's event loop
 * ({@code executor}); the subscriber's calls are moved onto it. Memory: the offered buffers are owned here until
 * decoded (then released); the decoded pieces are heap buffers owned by the subscriber.
 */
public final class UploadStream implements Flow.Publisher<ByteBuffer>
{
    /** The transport's control over reading the connection; called on the event loop. */
    public interface Reads
    {
        /** Stop reading the connection. */
        void pause();

        /** Read the connection again. */
        void resume();
    }

    private final Executor executor;
    private final Reads reads;
    private final long maxBufferedBytes;
    private final ArrayDeque<ByteBuf> received = new ArrayDeque<>();
    private long receivedBytes;
    private long peakBufferedBytes;
    private boolean paused;
    private boolean ended;
    private boolean claimed;
    private boolean terminated;
    private volatile S3Exception failure;
    private Throwable abort;

    private long length = -1;
    private long decoded;
    private AwsChunkedBody.Decoder chunked;
    private MessageDigest sha256;
    private String expectedSha256;
    private MessageDigest md5;
    private byte[] expectedMd5;
    private ByteBuffer out;

    private Flow.Subscriber<? super ByteBuffer> subscriber;
    /** Whether a piece went to a subscriber: then a retry cannot have the body, unless it is kept whole. */
    private boolean emitted;
    /**
     * A body held whole (at most half the buffer): what went out, kept until the request is answered, so a retry
     * of the origin's client after the whole body was sent gets it again. Null for a streamed body.
     */
    private ArrayList<ByteBuffer> sent;
    /** Every piece went out and every check passed. */
    private boolean complete;
    private long demand;
    private ByteBuffer pending;

    /**
     * A stream.
     *
     * @param executor         the connection's event loop.
     * @param reads            pauses and resumes reading the connection.
     * @param maxBufferedBytes received bytes held at most before reading pauses.
     */
    public UploadStream(final Executor executor, final Reads reads, final long maxBufferedBytes)
    {
        this.executor = executor;
        this.reads = reads;
        this.maxBufferedBytes = maxBufferedBytes;
    }

    /**
     * Takes the next piece of the body as received (owned from now on).
     *
     * @param piece the bytes.
     */
    public void offer(final ByteBuf piece)
    {
        if (terminated || !piece.isReadable())
        {
            piece.release();
            return;
        }
        received.add(piece);
        receivedBytes += piece.readableBytes();
        peakBufferedBytes = Math.max(peakBufferedBytes, receivedBytes + (null == pending ? 0 : pending.remaining()));
        if (receivedBytes >= maxBufferedBytes && !paused)
        {
            paused = true;
            reads.pause();
        }
        drain();
    }

    /** The body's last piece was offered. */
    public void end()
    {
        ended = true;
        drain();
    }

    /**
     * The body will not be complete (the connection closed): the origin's upload fails.
     *
     * @param cause why.
     */
    public void abort(final Throwable cause)
    {
        if (!terminated)
        {
            abort = cause;
            terminate();
            if (null != subscriber)
            {
                subscriber.onError(cause);
            }
        }
    }

    /**
     * Called when the request is done with: a body nobody {@linkplain #claim claimed} (the request was refused
     * before it reached the origin) is dropped as it arrives.
     */
    public void requestDone()
    {
        if (!claimed && !terminated)
        {
            terminate();
        }
        sent = null;
    }

    /**
     * Called once the request is answered: whatever of the body is still to come is dropped.
     *
     * @return whether the body was received to its end, so the connection can take the next request.
     */
    public boolean answered()
    {
        if (!terminated)
        {
            terminate();
        }
        sent = null;
        return ended && null == abort;
    }

    /**
     * Claims the body for a write to the origin and says how it is to be checked; on the event loop, once.
     *
     * @param auth    the request's verified signature (its payload hash says the body's form).
     * @param headers the request's headers ({@code Content-Length}, {@code x-amz-decoded-content-length},
     *                {@code x-amz-trailer}, {@code Content-MD5}).
     * @return the decoded body's length, what the origin is told.
     * @throws S3Exception on headers that do not describe the body.
     */
    public long claim(final Authentication auth, final HttpHeaders headers)
    {
        if (claimed)
        {
            throw new IllegalStateException("claimed twice");
        }
        claimed = true;
        final String payloadHash = auth.payloadHash();
        if (AwsChunkedBody.isStreaming(payloadHash))
        {
            length = parseLength(headers.get("x-amz-decoded-content-length"), "x-amz-decoded-content-length");
            chunked = new AwsChunkedBody().decoder(auth, length, headers.get("x-amz-trailer"), (from, index, n) ->
            {
                from.getBytes(index, out.array(), out.arrayOffset() + out.position(), n);
                out.position(out.position() + n);
            });
        }
        else
        {
            length = parseLength(headers.get("Content-Length"), "Content-Length");
            if (payloadHash.length() == 64)
            {
                sha256 = SignatureV4.newSha256();
                expectedSha256 = payloadHash;
            }
        }
        final String contentMd5 = headers.get("Content-MD5");
        if (null != contentMd5)
        {
            expectedMd5 = S3Service.contentMd5(contentMd5);
            try
            {
                md5 = MessageDigest.getInstance("MD5");
            }
            catch (final NoSuchAlgorithmException ex)
            {
                throw new IllegalStateException(ex);
            }
        }
        return length;
    }

    /**
     * The check the body failed, if it failed one: the client's answer (the origin's upload failed for it).
     *
     * @return the error, or {@code null}.
     */
    public S3Exception failure()
    {
        return failure;
    }

    /**
     * The most received bytes held at once (waiting for the origin, including the held-back piece), for tests.
     *
     * @return the peak in bytes.
     */
    public long peakBufferedBytes()
    {
        return peakBufferedBytes;
    }

    /**
     * Subscribes the origin's client. A second subscriber is the client's retry: it takes the body only if nothing
     * of it went to the first (the first attempt's connection failed before the body was sent, say, a pooled
     * connection the origin had closed), and the first is detached; else it fails at once, as the body went once.
     */
    @Override
    public void subscribe(final Flow.Subscriber<? super ByteBuffer> s)
    {
        onLoop(() ->
        {
            if (complete && null != sent)
            {
                replay(s);
                return;
            }
            if (!claimed || null != subscriber && emitted)
            {
                // a retry of the origin's client: the body went once and cannot be sent again
                s.onSubscribe(new Flow.Subscription()
                {
                    @Override
                    public void request(final long n)
                    {
                    }

                    @Override
                    public void cancel()
                    {
                    }
                });
                s.onError(new IllegalStateException("a streamed request body can be sent once only"));
                return;
            }
            subscriber = s;
            demand = 0;
            s.onSubscribe(new Flow.Subscription()
            {
                @Override
                public void request(final long n)
                {
                    onLoop(() ->
                    {
                        if (subscriber != s)
                        {
                            return;
                        }
                        if (n <= 0)
                        {
                            fail(new S3Exception(S3ErrorCode.INTERNAL_ERROR, "bad demand " + n), true);
                            return;
                        }
                        demand = demand + n < 0 ? Long.MAX_VALUE : demand + n;
                        drain();
                    });
                }

                @Override
                public void cancel()
                {
                    onLoop(() ->
                    {
                        if (subscriber != s)
                        {
                            return;
                        }
                        if (emitted)
                        {
                            terminate();
                        }
                        else
                        {
                            // nothing was sent: a retry may take the body (else the answer drops it)
                            subscriber = null;
                            demand = 0;
                        }
                    });
                }
            });
            if (terminated)
            {
                s.onError(null != failure ? failure : null != abort ? abort :
                    new IllegalStateException("the request body was dropped"));
                return;
            }
            drain();
        });
    }

    private void onLoop(final Runnable action)
    {
        try
        {
            executor.execute(action);
        }
        catch (final RejectedExecutionException ex)
        {
            // the connection's event loop is gone: the connection closed, which aborted the stream
        }
    }

    private void drain()
    {
        if (terminated)
        {
            releaseReceived();
            return;
        }
        if (null == subscriber)
        {
            return;
        }
        if (!ended && !paused && length >= 0 && length <= maxBufferedBytes / 2)
        {
            // A body that fits goes to the origin whole, once in: as a client writing from memory would send it. An
            // origin that answers on the headers alone and closes (S3Proxy's 501 for a header it does not
            // implement) is then heard, not reset by a piece written after its close; the body is not sent yet, so
            // a retry may still take it. Past half the buffer a body streams, and reading pauses at the buffer.
            return;
        }
        if (null == sent && !emitted && ended && !paused && length >= 0 && length <= maxBufferedBytes / 2)
        {
            sent = new ArrayList<>();
        }
        try
        {
            while (demand > 0 && !received.isEmpty())
            {
                final ByteBuf piece = received.poll();
                receivedBytes -= piece.readableBytes();
                final ByteBuffer decodedPiece;
                try
                {
                    decodedPiece = decode(piece);
                }
                finally
                {
                    piece.release();
                }
                if (paused && receivedBytes <= maxBufferedBytes / 2)
                {
                    paused = false;
                    reads.resume();
                }
                if (decodedPiece.hasRemaining())
                {
                    if (null != pending)
                    {
                        emit();
                    }
                    pending = decodedPiece;
                }
            }
            if (received.isEmpty() && ended)
            {
                finishChecks();
                if (null != pending)
                {
                    if (demand == 0)
                    {
                        return;
                    }
                    emit();
                }
                terminated = true;
                complete = true;
                subscriber.onComplete();
            }
        }
        catch (final S3Exception ex)
        {
            fail(ex, true);
        }
    }

    private void emit()
    {
        final ByteBuffer piece = pending;
        pending = null;
        demand--;
        emitted = true;
        if (null != sent)
        {
            sent.add(piece.duplicate());
        }
        subscriber.onNext(piece);
    }

    /** A retry after a body held whole went out: the same bytes again, as demanded. */
    private void replay(final Flow.Subscriber<? super ByteBuffer> s)
    {
        final ArrayList<ByteBuffer> pieces = sent;
        s.onSubscribe(new Flow.Subscription()
        {
            private int next;
            private boolean done;

            @Override
            public void request(final long n)
            {
                onLoop(() ->
                {
                    long wanted = n;
                    while (!done && wanted > 0 && next < pieces.size())
                    {
                        wanted--;
                        s.onNext(pieces.get(next++).duplicate());
                    }
                    if (!done && next == pieces.size())
                    {
                        done = true;
                        s.onComplete();
                    }
                });
            }

            @Override
            public void cancel()
            {
                onLoop(() -> done = true);
            }
        });
    }

    private ByteBuffer decode(final ByteBuf piece)
    {
        final int n = piece.readableBytes();
        out = ByteBuffer.allocate(n);
        if (null != chunked)
        {
            chunked.feed(piece);
        }
        else
        {
            piece.getBytes(piece.readerIndex(), out.array(), 0, n);
            out.position(n);
            if (null != sha256)
            {
                sha256.update(out.array(), 0, n);
            }
        }
        out.flip();
        if (null != md5)
        {
            md5.update(out.array(), 0, out.limit());
        }
        decoded += out.remaining();
        if (decoded > length)
        {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "the body is longer than its declared length");
        }
        final ByteBuffer piece2 = out;
        out = null;
        return piece2;
    }

    private void finishChecks()
    {
        if (null != chunked)
        {
            chunked.finish();
        }
        if (decoded != length)
        {
            throw new S3Exception(S3ErrorCode.INCOMPLETE_BODY);
        }
        if (null != sha256)
        {
            final String actual = SignatureV4.hex(sha256.digest());
            sha256 = null;
            if (!actual.equals(expectedSha256))
            {
                throw new S3Exception(S3ErrorCode.CONTENT_SHA256_MISMATCH)
                    .with("ClientComputedContentSHA256", expectedSha256)
                    .with("S3ComputedContentSHA256", actual);
            }
        }
        if (null != md5)
        {
            final byte[] actual = md5.digest();
            md5 = null;
            if (!MessageDigest.isEqual(actual, expectedMd5))
            {
                throw new S3Exception(S3ErrorCode.BAD_DIGEST);
            }
        }
    }

    private void fail(final S3Exception error, final boolean tell)
    {
        if (terminated)
        {
            return;
        }
        failure = error;
        terminate();
        if (tell && null != subscriber)
        {
            subscriber.onError(error);
        }
    }

    /** From now on the body is dropped as it arrives; reading goes on (to the end of the body, or a close). */
    private void terminate()
    {
        terminated = true;
        if (!complete)
        {
            sent = null;
        }
        pending = null;
        releaseReceived();
        if (paused)
        {
            paused = false;
            reads.resume();
        }
    }

    private void releaseReceived()
    {
        ByteBuf piece;
        while (null != (piece = received.poll()))
        {
            piece.release();
        }
        receivedBytes = 0;
    }

    private static long parseLength(final String value, final String name)
    {
        try
        {
            final long parsed = Long.parseLong(null == value ? "-1" : value.trim());
            if (parsed >= 0)
            {
                return parsed;
            }
        }
        catch (final NumberFormatException ex)
        {
            // answered below
        }
        throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, name + " is missing or not a number")
            .with("ArgumentName", name);
    }
}
