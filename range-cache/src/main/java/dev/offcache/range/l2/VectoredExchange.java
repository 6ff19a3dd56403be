package dev.offcache.range.l2;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongConsumer;

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
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;

import dev.offcache.range.origin.ContentRangeHeader;

/**
 * Several ranges of one object in one {@code POST /ranges/{key}}: the body is, per range, an 8-byte little-endian
 * length and then that many bytes (the server clamps a range's end to the object, whose size it names in
 * {@code Offcache-Object-Size}). Each range's bytes are copied from Netty's buffers straight into its destination.
 * Anything wrong falls back to the origin for what is missing: ranges already complete stay, the range being read
 * is completed from its delivered offset, the rest are read whole.
 *
 * <p>The request asks for a checksummed body ({@code Offcache-Checksum: crc32c}): inside each range's frame, each
 * chunk (the part of the range in one of the server's blocks) is then followed by its CRC32C, which this exchange
 * checks before it counts the chunk as good. A mismatch does not end the exchange (the framing is intact): the rest of
 * the body is read on, and when it is over the origin reads exactly the damaged chunks again
 * ({@link FallbackReason#CHECKSUM}). A server that answers without checksums is read as plain frames.
 */
final class VectoredExchange extends Exchange
{
    private final String key;
    private final long[] offsets;
    private final ByteBuffer[] destinations;
    private final ByteBuffer[] targets;
    private final int[] delivered;
    private final LongConsumer objectSize;
    private final CompletableFuture<int[]> result;
    private long objectBytes = -1;
    private long announced;
    private long received;
    private int range;
    private int prefixBytes;
    private long frameLength;
    private final ByteBuffer prefix = ByteBuffer.allocate(Long.BYTES).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    private boolean checksummed;
    private long blockSize;
    /** Bytes of the current range's frame before its current chunk (every chunk before it had its CRC read). */
    private int chunkStart;
    private int chunkLeft;
    private ChunkChecksum checksum;
    private DamagedChunks damaged = DamagedChunks.NONE;

    VectoredExchange(
        final L2Client client,
        final CircuitBreaker.Admission admission,
        final String key,
        final long[] offsets,
        final ByteBuffer[] destinations,
        final LongConsumer objectSize,
        final CompletableFuture<int[]> result)
    {
        super(client, admission);
        this.key = key;
        this.offsets = offsets;
        this.destinations = destinations;
        this.objectSize = objectSize;
        this.result = result;
        this.delivered = new int[offsets.length];
        this.targets = new ByteBuffer[offsets.length];
        for (int i = 0; i < offsets.length; i++)
        {
            targets[i] = destinations[i].duplicate();
        }
    }

    @Override
    long bodyBytes()
    {
        long most = 0;
        for (final ByteBuffer destination : destinations)
        {
            most += Long.BYTES + destination.remaining();
        }
        return most;
    }

    @Override
    HttpRequest request()
    {
        final StringBuilder json = new StringBuilder(16 + 40 * offsets.length).append("{\"ranges\":[");
        for (int i = 0; i < offsets.length; i++)
        {
            json.append(i == 0 ? "[" : ",[").append(offsets[i]).append(',')
                .append(offsets[i] + destinations[i].remaining()).append(']');
        }
        final ByteBuf body = Unpooled.copiedBuffer(json.append("]}"), StandardCharsets.US_ASCII);
        final FullHttpRequest request = new DefaultFullHttpRequest(
            HttpVersion.HTTP_1_1, HttpMethod.POST, client.rangesPath(key), body);
        client.addCommonHeaders(request);
        request.headers()
            .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
            .setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes())
            .set(L2Client.CHECKSUM_HEADER, L2Client.CHECKSUM_VALUE);
        return request;
    }

    @Override
    boolean onHeaders(final HttpResponse response)
    {
        if (response.status().code() != HttpResponseStatus.OK.code())
        {
            fail(FallbackReason.STATUS, null);
            return false;
        }
        announced = ContentRangeHeader.parseLength(response.headers().get(HttpHeaderNames.CONTENT_LENGTH));
        final long most = bodyBytes();
        objectBytes = ContentRangeHeader.parseLength(response.headers().get(L2Client.OBJECT_SIZE_HEADER));
        checksummed = L2Client.CHECKSUM_VALUE.equalsIgnoreCase(response.headers().get(L2Client.CHECKSUM_HEADER));
        if (checksummed)
        {
            blockSize = ContentRangeHeader.parseLength(response.headers().get(L2Client.BLOCK_SIZE_HEADER));
            checksum = new ChunkChecksum();
        }
        if (objectBytes < 0 || (checksummed ? blockSize <= 0 || announced != checksummedLength() :
            announced < (long) Long.BYTES * offsets.length || announced > most))
        {
            fail(FallbackReason.MALFORMED, null);
            return false;
        }
        if (objectSize != null)
        {
            objectSize.accept(objectBytes);
        }
        return true;
    }

    /** The exact length of a checksummed body: per range its frame, its bytes and a CRC per chunk. */
    private long checksummedLength()
    {
        long length = 0;
        for (int i = 0; i < offsets.length; i++)
        {
            final long bytes = expectedFrame(i);
            length += Long.BYTES + bytes +
                (bytes == 0 ? 0 : Integer.BYTES * ((offsets[i] + bytes - 1) / blockSize - offsets[i] / blockSize + 1));
        }
        return length;
    }

    @Override
    void onBody(final HttpContent content)
    {
        final ByteBuf bytes = content.content();
        while (bytes.isReadable() && !done)
        {
            if (range == offsets.length)
            {
                fail(FallbackReason.MALFORMED, null);
                return;
            }
            if (prefixBytes < Long.BYTES)
            {
                final int n = Math.min(Long.BYTES - prefixBytes, bytes.readableBytes());
                bytes.readBytes(prefix.array(), prefixBytes, n);
                prefixBytes += n;
                received += n;
                if (prefixBytes == Long.BYTES)
                {
                    frameLength = prefix.getLong(0);
                    if (frameLength != expectedFrame(range))
                    {
                        fail(FallbackReason.MALFORMED, null);
                        return;
                    }
                    chunkLeft = nextChunk();
                    nextRangeIfDone();
                }
                continue;
            }
            if (chunkLeft > 0)
            {
                final int n = Math.min(chunkLeft, bytes.readableBytes());
                final ByteBuffer target = targets[range];
                target.limit(target.position() + n);
                bytes.readBytes(target);
                delivered[range] += n;
                chunkLeft -= n;
                received += n;
                if (!checksummed)
                {
                    // plain frames: every byte delivered counts (there is no CRC to wait for)
                    chunkStart = delivered[range];
                }
                nextRangeIfDone();
                continue;
            }
            received++;
            if (checksum.takeTrailerByte(bytes))
            {
                checkChunk();
                nextRangeIfDone();
            }
        }
        if (!done && content instanceof LastHttpContent)
        {
            if (range == offsets.length && received == announced)
            {
                succeed();
                long total = 0;
                for (final int n : delivered)
                {
                    total += n;
                }
                if (damaged.count() == 0)
                {
                    client.metrics().increment(L2ClientCounters.Counter.L2_HITS);
                    client.metrics().add(L2ClientCounters.Counter.L2_BYTES, total);
                    result.complete(delivered.clone());
                    return;
                }
                // the answer was complete, some chunks of it wrong: the origin reads exactly those again
                client.metrics().readFallback(FallbackReason.CHECKSUM);
                client.metrics().add(L2ClientCounters.Counter.L2_BYTES, total - damaged.bytes());
                client.readVectoredFromOrigin(key, offsets, destinations, delivered, offsets.length, damaged,
                    objectSize, result);
            }
            else
            {
                fail(FallbackReason.SHORT_BODY, null);
            }
        }
    }

    /** The current chunk's CRC32C is read: a mismatch marks the chunk for the origin, and the next chunk starts. */
    private void checkChunk()
    {
        final ByteBuffer destination = destinations[range];
        if (!checksum.matches(destination, destination.position() + chunkStart, delivered[range] - chunkStart))
        {
            if (damaged == DamagedChunks.NONE)
            {
                damaged = new DamagedChunks();
            }
            damaged.add(range, chunkStart, delivered[range] - chunkStart);
        }
        chunkStart = delivered[range];
        chunkLeft = nextChunk();
    }

    /** The frame length a range must have: what was asked for, clamped where the object ends. */
    private long expectedFrame(final int index)
    {
        return Math.max(0, Math.min(destinations[index].remaining(), objectBytes - offsets[index]));
    }

    /** The length of the current range's next chunk: to the end of its block (checksummed) or of its frame. */
    private int nextChunk()
    {
        final long left = frameLength - delivered[range];
        if (!checksummed || left == 0)
        {
            return (int) left;
        }
        return ChunkChecksum.chunkLength(offsets[range] + delivered[range], blockSize, left);
    }

    /** A range is done when its frame is read whole and (checksummed) every chunk's CRC after it. */
    private void nextRangeIfDone()
    {
        if (prefixBytes == Long.BYTES && delivered[range] == frameLength && chunkStart == delivered[range])
        {
            range++;
            prefixBytes = 0;
            frameLength = 0;
            chunkStart = 0;
            chunkLeft = 0;
        }
    }

    @Override
    void onFailed(final FallbackReason reason, final Throwable cause)
    {
        client.metrics().readFallback(reason);
        if (range < offsets.length)
        {
            // the range being read keeps only the chunks whose CRC was read (all of it, unchecksummed)
            delivered[range] = chunkStart;
        }
        long total = 0;
        for (final int n : delivered)
        {
            total += n;
        }
        if (damaged.count() > 0)
        {
            client.metrics().readFallback(FallbackReason.CHECKSUM);
        }
        client.metrics().add(L2ClientCounters.Counter.L2_BYTES, total - damaged.bytes());
        client.readVectoredFromOrigin(key, offsets, destinations, delivered, range, damaged, objectSize, result);
    }
}
