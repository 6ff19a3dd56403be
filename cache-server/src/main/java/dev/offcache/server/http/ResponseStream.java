package dev.offcache.server.http;

import java.nio.ByteBuffer;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;

import org.agrona.BufferUtil;
import org.slf4j.LoggerFactory;

import dev.offcache.core.checksum.Crc32c;
import dev.offcache.core.slab.BlockRef;
import dev.offcache.range.engine.BlockStream;
import dev.offcache.range.engine.StreamSink;
import dev.offcache.range.store.BlockFile;
import dev.offcache.server.source.BlockByteBuf;
import dev.offcache.server.source.BlockFileRegion;
import dev.offcache.server.log.RateLimitedWarning;
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
    /** A WARN line for every response cut after its headers (a source failure mid-body), at most ten a second. */
    private static final RateLimitedWarning CUT_STREAMS =
        new RateLimitedWarning(LoggerFactory.getLogger(ResponseStream.class));

    /**
     * Chunks one stream may have handed to Netty and not yet seen written. Netty's writability does not count file
     * regions (they hold no heap or direct memory), so without this a slow reader of a long range of SSD blocks
     * would hold an open file and a budget reservation for every block of it.
     */
    static final int MAX_CHUNKS_IN_FLIGHT = 2;

    private final ChannelHandlerContext ctx;
    private final RequestHandler handler;
    private final ServerState.InFlight inFlight;
    private final MemoryBudget budget;
    private final HttpMetrics metrics;
    private final String endpoint;
    private final long[] lengths;
    private final boolean framed;
    private final boolean checksummed;
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
    /** A part of a block file is being read on the SSD tier's threads: nothing else goes out until it has. */
    private boolean reading;
    /** The stream completed while a part was being read: complete the response once it is written. */
    private boolean completeAfterRead;
    private BlockStream stream;
    /** The request's access-log record, or {@code null} when the access log is off. */
    private AccessLog access;
    /** Body bytes of the object handed to the connection, for the access log. */
    private long bodyBytes;

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
     * Sets the request's access-log record, written when this response completes or is cut.
     *
     * @param entry the record, or {@code null} when the access log is off.
     */
    void accessLog(final AccessLog entry)
    {
        access = entry;
        if (null != entry)
        {
            entry.ranges(lengths.length);
        }
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
        final long checksum = checksummed ? chunkCrc(ref, offset, length) : -1;
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
            // room for the CRC after the bytes: one buffer and one write per chunk
            buf = ctx.alloc().directBuffer(length + trailerBytes()).writeBytes(copy);
        }
        finally
        {
            BufferUtil.free(copy);
        }
        return write(withTrailer(buf, length), length);
    }

    /**
     * A part of a block file (no recorded CRC covers it): read on the SSD tier's reader threads (never here, on the
     * event loop), then checksummed and sent from memory. The stream pauses meanwhile, so the body stays in order.
     */
    private boolean writeFromFile(final BlockFile file, final int offset, final int length)
    {
        final ByteBuf buf = ctx.alloc().directBuffer(length + Integer.BYTES);
        reading = true;
        paused = true;
        final CompletableFuture<Void> read;
        try
        {
            read = file.readAsync(offset, buf.nioBuffer(0, length));
        }
        catch (final RuntimeException ex)
        {
            onFileRead(file, buf, length, ex);
            return false;
        }
        if (read.isCompletedExceptionally())
        {
            onFileRead(file, buf, length, failureOf(read));
            return false;
        }
        if (read.isDone())
        {
            // read on this thread (a store without reader threads): send it as any chunk
            reading = false;
            paused = false;
            file.release();
            buf.writerIndex(length);
            return write(withTrailer(buf, length), length);
        }
        read.whenComplete((ignored, error) ->
        {
            try
            {
                ctx.executor().execute(() -> onFileRead(file, buf, length, error));
            }
            catch (final RejectedExecutionException ex)
            {
                // the event loop is shutting down: nothing will send it
                file.release();
                buf.release();
                budget.release(length);
            }
        });
        return false;
    }

    /** The part of a block file is in (or failed): it goes out with its CRC, then the stream goes on. */
    private void onFileRead(final BlockFile file, final ByteBuf buf, final int length, final Throwable error)
    {
        file.release();
        reading = false;
        if (finished || null != error)
        {
            buf.release();
            budget.release(length);
            if (!finished)
            {
                onError(error instanceof CompletionException && null != error.getCause() ? error.getCause() : error);
            }
            return;
        }
        buf.writerIndex(length);
        final boolean more = write(withTrailer(buf, length), length);
        if (completeAfterRead)
        {
            completeAfterRead = false;
            onComplete();
            return;
        }
        if (more && null != stream)
        {
            paused = false;
            stream.resume();
        }
        else
        {
            flush();
        }
    }

    private static Throwable failureOf(final CompletableFuture<Void> done)
    {
        try
        {
            done.join();
            return new IllegalStateException("read completed without failing");
        }
        catch (final CompletionException | CancellationException ex)
        {
            return null == ex.getCause() ? ex : ex.getCause();
        }
    }

    /**
     * A whole block's CRC is the one recorded when its slot was filled (no pass over the bytes here; a slot damaged
     * since then is caught by the client); a part of a block, or a slot without one, is computed now.
     */
    private static long chunkCrc(final BlockRef ref, final int offset, final int length)
    {
        final long recorded = ref.crc32c();
        if (offset == 0 && length == ref.length() && recorded >= 0)
        {
            return recorded;
        }
        return Crc32c.compute(ref.buffer(), offset, length) & 0xFFFF_FFFFL;
    }

    private int trailerBytes()
    {
        return checksummed ? Integer.BYTES : 0;
    }

    /** Appends the CRC32C of the buffer's {@code length} bytes when the response is checksummed. */
    private ByteBuf withTrailer(final ByteBuf buf, final int length)
    {
        if (checksummed)
        {
            buf.writeInt(crcOf(buf, length));
            metrics.responseBytes.getAndAdd(Integer.BYTES);
        }
        return buf;
    }

    /** Over the buffer's memory in place: no view, no copy (a pooled direct buffer has an address). */
    private static int crcOf(final ByteBuf buf, final int length)
    {
        if (buf.hasMemoryAddress())
        {
            return Crc32c.compute(buf.memoryAddress() + buf.readerIndex(), length);
        }
        return Crc32c.compute(buf.nioBuffer(buf.readerIndex(), length), 0, length);
    }

    /** Writes a chunk's CRC32C after it when the response is checksummed; passes {@code more} on. */
    private boolean writeChecksum(final boolean more, final long checksum)
    {
        if (checksum >= 0)
        {
            final ByteBuf tail = ctx.alloc().directBuffer(Integer.BYTES, Integer.BYTES);
            tail.writeInt((int) checksum);
            ctx.write(tail);
            metrics.responseBytes.getAndAdd(Integer.BYTES);
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
        if (reading)
        {
            // the last chunk is still being read from its file: complete after it went out
            completeAfterRead = true;
            return;
        }
        writeFramesUpTo(lengths.length - 1);
        finished = true;
        final int status = headers.status().code();
        ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT).addListener((ChannelFutureListener) (f) ->
        {
            metrics.completed(System.nanoTime() - startNanos);
            inFlight.end();
            if (null != access)
            {
                access.complete(endpoint, status, bodyBytes, f.isSuccess() ? null : "cut");
            }
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
        CUT_STREAMS.warn("response body failed after its headers, cutting the connection: {}", error.toString());
        metrics.streamsAborted.increment();
        finished = true;
        inFlight.end();
        logCut();
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
            logCut();
        }
    }

    private void logCut()
    {
        if (null != access)
        {
            access.complete(endpoint, headers.status().code(), bodyBytes, "cut");
        }
    }

    private void resumeIfReady()
    {
        if (paused && !reading && !finished && chunksInFlight < MAX_CHUNKS_IN_FLIGHT && ctx.channel().isWritable())
        {
            paused = false;
            stream.resume();
        }
    }

    private boolean write(final Object message, final int length)
    {
        writing[(writingHead + chunksInFlight) % MAX_CHUNKS_IN_FLIGHT] = length;
        chunksInFlight++;
        metrics.responseBytes.getAndAdd(length);
        bodyBytes += length;
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
            metrics.responseBytes.getAndAdd(Long.BYTES);
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
