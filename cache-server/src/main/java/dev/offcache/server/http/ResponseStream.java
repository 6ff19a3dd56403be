package dev.offcache.server.http;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

import org.agrona.BufferUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.offcache.core.checksum.Crc32c;
import dev.offcache.core.slab.BlockRef;
import dev.offcache.range.engine.BlockStream;
import dev.offcache.range.engine.StreamSink;
import dev.offcache.range.store.BlockFile;
import dev.offcache.server.source.BlockByteBuf;
import dev.offcache.server.source.BlockFileRegion;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;

/**
 * Writes one response to its connection: the headers at once (as soon as the object's size is known, before any
 * byte of the body is fetched, so a slow origin never looks like a dead server), then the body as the engine's
 * {@link BlockStream} hands it over, chunk by chunk, all on the channel's event loop.
 *
 * <p>RAM blocks go out as zero-copy views of their slots ({@link BlockByteBuf}), verified SSD blocks as file regions
 * sent with sendfile ({@link BlockFileRegion}), anything else from a copy. Each chunk's bytes were reserved from the
 * global {@link MemoryBudget} by the stream; they go back when the socket has written the chunk. At most
 * {@link #MAX_CHUNKS_IN_FLIGHT} chunks are handed to Netty and not yet written, and none while the channel is not
 * writable: the stream pauses (its look-ahead stays bounded by the budget) and resumes when the socket drains. A
 * failure after the headers cuts the connection, so the client sees a body shorter than its {@code Content-Length}
 * (the L2 client then completes the rest from the origin).
 *
 * <p>With {@code framed}, each range is preceded by its length as an 8-byte little-endian integer
 * ({@code POST /ranges}). With {@code checksummed}, each chunk (the part of the range in one block) is followed by
 * the CRC32C of its bytes, 4 bytes big-endian ({@code Offcache-Checksum: crc32c}, see {@code docs/cache-server.md}):
 * a whole SSD block sent from its file carries the CRC recorded when the block was written, so damage on disk since
 * its last check reaches the client as a mismatch, not as wrong bytes; other chunks carry the CRC of the bytes read
 * to send them. Not thread-safe: every method runs on the channel's event loop.
 */
final class ResponseStream implements StreamSink, ChannelFutureListener
{
    /**
     * Chunks one stream may have handed to Netty and not yet seen written. Netty's writability does not count file
     * regions (they hold no heap or direct memory), so without this a slow reader of a long range of SSD blocks
     * would hold an open file and a budget reservation for every block of it.
     */
    static final int MAX_CHUNKS_IN_FLIGHT = 2;

    private static final Logger LOG = LoggerFactory.getLogger(ResponseStream.class);

    private final ChannelHandlerContext ctx;
    private final RequestHandler handler;
    private final ServerState.InFlight inFlight;
    private final MemoryBudget budget;
    private final HttpMetrics metrics;
    private final String endpoint;
    private final long[] lengths;
    private final boolean framed;
    private final boolean checksummed;
    private CRC32C crc;
    private final HttpResponse headers;
    private final boolean keepAlive;
    private final long startNanos;
    private final int[] writing = new int[MAX_CHUNKS_IN_FLIGHT];
    private int writingHead;
    private int chunksInFlight;
    private int framesWritten;
    private boolean unflushed;
    private boolean paused;
    private boolean finished;
    private BlockStream stream;

    ResponseStream(
        final ChannelHandlerContext ctx,
        final RequestHandler handler,
        final ServerResources resources,
        final ServerState.InFlight inFlight,
        final String endpoint,
        final long[] lengths,
        final boolean framed,
        final boolean checksummed,
        final HttpResponse headers,
        final boolean keepAlive,
        final long startNanos)
    {
        this.checksummed = checksummed;
        this.ctx = ctx;
        this.handler = handler;
        this.inFlight = inFlight;
        this.budget = resources.budget();
        this.metrics = resources.metrics();
        this.endpoint = endpoint;
        this.lengths = lengths;
        this.framed = framed;
        this.headers = headers;
        this.keepAlive = keepAlive;
        this.startNanos = startNanos;
    }

    /**
     * Writes the headers, then starts the body; the first flush (after the hits that are ready at once) sends both.
     *
     * @param body the body's stream, not started.
     */
    void start(final BlockStream body)
    {
        stream = body;
        ctx.write(headers);
        unflushed = true;
        metrics.firstByte(System.nanoTime() - startNanos);
        body.start();
    }

    @Override
    public boolean onMemory(final int range, final long position, final BlockRef ref, final int offset,
        final int length)
    {
        writeFramesUpTo(range);
        final long checksum = checksummed ? Crc32c.compute(ref.buffer(), offset, length) & 0xFFFF_FFFFL : -1;
        // the HTTP encoder takes a bare ByteBuf as body content once the headers went out: no wrapper per chunk
        return writeChecksum(write(BlockByteBuf.wrap(ref, offset, length), length), checksum);
    }

    @Override
    public boolean onFile(final int range, final long position, final BlockFile file, final int offset,
        final int length)
    {
        writeFramesUpTo(range);
        if (checksummed)
        {
            if (offset == 0 && length == file.length() && file.crc32c() >= 0)
            {
                // the CRC recorded with the block, not one of the bytes sent: a file damaged since is caught
                final long recorded = file.crc32c();
                return writeChecksum(write(new BlockFileRegion(file, offset, length), length), recorded);
            }
            return writeFromFile(file, offset, length);
        }
        return write(new BlockFileRegion(file, offset, length), length);
    }

    @Override
    public boolean onCopy(final int range, final long position, final ByteBuffer copy)
    {
        writeFramesUpTo(range);
        final int length = copy.remaining();
        final ByteBuf buf;
        try
        {
            buf = ctx.alloc().directBuffer(length, length).writeBytes(copy);
        }
        finally
        {
            BufferUtil.free(copy);
        }
        final long checksum = checksummed ? crcOf(buf) : -1;
        return writeChecksum(write(buf, length), checksum);
    }

    /** A part of a block file (no recorded CRC covers it): read, checksummed and sent from memory. */
    private boolean writeFromFile(final BlockFile file, final int offset, final int length)
    {
        final ByteBuf buf = ctx.alloc().directBuffer(length, length);
        try
        {
            long at = file.dataPosition() + offset;
            while (buf.isWritable())
            {
                final int n = buf.writeBytes(file.channel(), at, buf.writableBytes());
                if (n < 0)
                {
                    throw new IOException("block file ended early");
                }
                at += n;
            }
        }
        catch (final IOException ex)
        {
            buf.release();
            file.release();
            budget.release(length);
            onError(ex);
            return false;
        }
        file.release();
        final long checksum = crcOf(buf);
        return writeChecksum(write(buf, length), checksum);
    }

    private long crcOf(final ByteBuf buf)
    {
        if (null == crc)
        {
            crc = new CRC32C();
        }
        crc.reset();
        crc.update(buf.nioBuffer(buf.readerIndex(), buf.readableBytes()));
        return crc.getValue();
    }

    /** Writes a chunk's CRC32C after it when the response is checksummed; passes {@code more} on. */
    private boolean writeChecksum(final boolean more, final long checksum)
    {
        if (checksum >= 0)
        {
            final ByteBuf tail = ctx.alloc().directBuffer(Integer.BYTES, Integer.BYTES);
            tail.writeInt((int) checksum);
            ctx.write(tail);
            metrics.responseBytes.add(Integer.BYTES);
            unflushed = true;
        }
        return more;
    }

    @Override
    public void onIdle()
    {
        flush();
    }

    @Override
    public void onComplete()
    {
        writeFramesUpTo(lengths.length - 1);
        finished = true;
        final int status = headers.status().code();
        ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT).addListener((ChannelFutureListener) (f) ->
        {
            metrics.completed(System.nanoTime() - startNanos);
            inFlight.end();
            if (!keepAlive || !f.isSuccess())
            {
                f.channel().close();
            }
        });
        metrics.request(endpoint, status);
        handler.responseDone(ctx, keepAlive);
    }

    @Override
    public void onError(final Throwable error)
    {
        if (finished)
        {
            return;
        }
        LOG.warn("response body failed after its headers, cutting the connection: {}", error.toString());
        metrics.streamsAborted.increment();
        finished = true;
        inFlight.end();
        // what was handed over goes out first (the headers at least), then the connection closes short of the
        // Content-Length: the client completes the rest elsewhere
        if (unflushed || chunksInFlight > 0)
        {
            unflushed = false;
            ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        }
        else
        {
            ctx.close();
        }
    }

    /** A chunk's write finished: its bytes go back to the budget, and a paused stream may go on. */
    @Override
    public void operationComplete(final ChannelFuture future)
    {
        budget.release(writing[writingHead]);
        writingHead = (writingHead + 1) % MAX_CHUNKS_IN_FLIGHT;
        chunksInFlight--;
        resumeIfReady();
    }

    /** The channel's writability changed. */
    void writabilityChanged()
    {
        resumeIfReady();
    }

    /** The connection is gone: the stream returns what it holds. */
    void abort()
    {
        if (null != stream)
        {
            stream.cancel();
        }
        if (!finished)
        {
            finished = true;
            inFlight.end();
        }
    }

    private void resumeIfReady()
    {
        if (paused && !finished && chunksInFlight < MAX_CHUNKS_IN_FLIGHT && ctx.channel().isWritable())
        {
            paused = false;
            stream.resume();
        }
    }

    private boolean write(final Object message, final int length)
    {
        writing[(writingHead + chunksInFlight) % MAX_CHUNKS_IN_FLIGHT] = length;
        chunksInFlight++;
        metrics.responseBytes.add(length);
        unflushed = true;
        ctx.write(message).addListener(this);
        if (chunksInFlight >= MAX_CHUNKS_IN_FLIGHT || !ctx.channel().isWritable())
        {
            // resumed by a chunk's write completing or by channelWritabilityChanged; the stream flushes (onIdle)
            // when it stops, and a completion during that flush resumes it
            paused = true;
            return false;
        }
        return true;
    }

    /** Writes the length prefix of every range up to {@code range} not written yet (ranges with no chunk are empty). */
    private void writeFramesUpTo(final int range)
    {
        if (!framed)
        {
            return;
        }
        while (framesWritten <= range)
        {
            final ByteBuf prefix = ctx.alloc().directBuffer(Long.BYTES, Long.BYTES);
            prefix.writeLongLE(lengths[framesWritten++]);
            ctx.write(prefix);
            metrics.responseBytes.add(Long.BYTES);
            unflushed = true;
        }
    }

    private void flush()
    {
        if (unflushed)
        {
            unflushed = false;
            ctx.flush();
        }
    }

    boolean finished()
    {
        return finished;
    }
}
