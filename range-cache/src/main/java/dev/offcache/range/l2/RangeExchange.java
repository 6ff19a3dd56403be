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

import dev.offcache.range.origin.ContentRangeHeader;

/**
 * A ranged {@code GET /obj/{key}}: the body is copied from Netty's pooled direct buffers straight into the caller's
 * buffer (no heap copy). Anything wrong falls back to the origin; bytes already delivered stay and the origin is
 * asked only for the rest. The object's size in the answer's {@code Content-Range} goes to the size sink, so the
 * engine needs no HEAD for an object it reads for the first time; a {@code 416} with {@code bytes * /size} is an
 * answer too: the range starts at or past the end, nothing to read.
 *
 * <p>The request asks for a checksummed body ({@code Offcache-Checksum: crc32c}): the server then follows each
 * chunk (the part of the range in one of its blocks) with the chunk's CRC32C, which this exchange checks before it
 * counts the chunk as delivered. A mismatch is a fallback ({@link FallbackReason#CHECKSUM}) from the end of the last
 * good chunk, so a byte the server's disk or the network damaged never reaches the caller or its cache. A server that
 * answers without checksums is read as plain HTTP.
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
    /** Checksummed body: bytes of the range whose chunk CRC matched (always a prefix of {@code delivered}). */
    private int verified;
    private boolean checksummed;
    private long blockSize;
    private int chunkLeft;
    private ChunkChecksum checksum;

    RangeExchange(
        final L2Client client,
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
        request.headers().set(HttpHeaderNames.RANGE, "bytes=" + offset + "-" + (offset + length - 1))
            .set(L2Client.CHECKSUM_HEADER, L2Client.CHECKSUM_VALUE);
        return request;
    }

    @Override
    boolean onHeaders(final HttpResponse response)
    {
        final String contentRange = response.headers().get(HttpHeaderNames.CONTENT_RANGE);
        final int status = response.status().code();
        if (status == HttpResponseStatus.REQUESTED_RANGE_NOT_SATISFIABLE.code())
        {
            final long total = ContentRangeHeader.total(contentRange);
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
        final String contentLength = response.headers().get(HttpHeaderNames.CONTENT_LENGTH);
        checksummed = L2Client.CHECKSUM_VALUE.equalsIgnoreCase(response.headers().get(L2Client.CHECKSUM_HEADER));
        final long announced;
        if (checksummed)
        {
            blockSize = ContentRangeHeader.parseLength(response.headers().get(L2Client.BLOCK_SIZE_HEADER));
            final long bytes = ContentRangeHeader.rangeLength(contentRange, offset, length);
            announced = blockSize <= 0 || bytes <= 0 || ContentRangeHeader.parseLength(contentLength) !=
                bytes + (long) Integer.BYTES * chunks(bytes) ? -1 : bytes;
        }
        else
        {
            announced = ContentRangeHeader.expectedLength(contentRange, contentLength, offset, length);
        }
        if (announced <= 0)
        {
            fail(FallbackReason.MALFORMED, null);
            return false;
        }
        expected = announced;
        if (checksummed)
        {
            checksum = new ChunkChecksum();
            chunkLeft = nextChunk();
        }
        reportSize(ContentRangeHeader.total(contentRange));
        return true;
    }

    private void reportSize(final long total)
    {
        if (total >= 0 && objectSize != null)
        {
            objectSize.accept(total);
        }
    }

    /** The chunks {@code bytes} from the offset fall into: one per block of the server's grid they touch. */
    private long chunks(final long bytes)
    {
        return (offset + bytes - 1) / blockSize - offset / blockSize + 1;
    }

    /** The length of the chunk that starts at the delivered offset. */
    private int nextChunk()
    {
        return ChunkChecksum.chunkLength(offset + delivered, blockSize, expected - delivered);
    }

    /** A checksummed body: chunk bytes go to the caller's buffer, each chunk's CRC32C is checked after it. */
    private void onChecksummedBody(final HttpContent content)
    {
        final ByteBuf bytes = content.content();
        while (bytes.isReadable())
        {
            if (chunkLeft > 0)
            {
                final int n = Math.min(chunkLeft, bytes.readableBytes());
                target.limit(target.position() + n);
                bytes.readBytes(target);
                delivered += n;
                chunkLeft -= n;
                continue;
            }
            if (delivered == verified)
            {
                // a byte after the last chunk's CRC: more body than announced
                fail(FallbackReason.MALFORMED, null);
                return;
            }
            if (checksum.takeTrailerByte(bytes))
            {
                if (!checksum.matches(destination, destination.position() + verified, delivered - verified))
                {
                    fail(FallbackReason.CHECKSUM, null);
                    return;
                }
                verified = delivered;
                chunkLeft = delivered == expected ? 0 : nextChunk();
            }
        }
        if (content instanceof LastHttpContent)
        {
            if (verified == expected)
            {
                succeed();
                client.metrics().increment(L2ClientCounters.Counter.L2_HITS);
                client.metrics().add(L2ClientCounters.Counter.L2_BYTES, verified);
                result.complete(verified);
            }
            else
            {
                fail(FallbackReason.SHORT_BODY, null);
            }
        }
    }

    @Override
    void onBody(final HttpContent content)
    {
        if (checksummed && !pastTheEnd)
        {
            onChecksummedBody(content);
            return;
        }
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
                client.metrics().increment(L2ClientCounters.Counter.L2_HITS);
                client.metrics().add(L2ClientCounters.Counter.L2_BYTES, delivered);
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
        // a checksummed body keeps only its verified chunks: the origin rewrites the rest of the buffer
        final int kept = checksummed ? verified : delivered;
        client.metrics().readFallback(reason);
        client.metrics().add(L2ClientCounters.Counter.L2_BYTES, kept);
        client.readFromOrigin(key, offset, destination, kept, result);
    }
}
