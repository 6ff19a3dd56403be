package dev.offcache.server.http;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;

import org.agrona.BufferUtil;
import org.slf4j.LoggerFactory;

import dev.offcache.core.checksum.Crc32c;
import dev.offcache.core.slab.BlockRef;
import dev.offcache.range.engine.BlockStream;
import dev.offcache.range.engine.RangeCache;
import dev.offcache.range.engine.StreamSink;
import dev.offcache.range.store.BlockFile;
import dev.offcache.range.store.DamagedBlockException;
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
 * <p>A part of an SSD block is never sent from its file: it is read on the SSD tier's threads, which check the chunks
 * it touches against the CRC32C recorded for them when the block was written ({@link BlockFile#readAsync}), and sent
 * from memory. A part that fails the check ({@link DamagedBlockException}: the tier dropped the block) is read again
 * through a stream of its own (a <em>repair</em>), which finds the block missing and fetches it from the origin; the
 * response goes on after it, so no damaged byte goes out and the reader never sees the damage.
 *
 * <p>With {@code framed}, each range is preceded by its length as an 8-byte little-endian integer
 * ({@code POST /ranges}). With {@code checksummed}, each chunk (the part of the range in one block) is followed by
 * the CRC32C of its bytes, 4 bytes big-endian ({@code Offcache-Checksum: crc32c}, see {@code docs/cache-server.md}):
 * a whole SSD block sent from its file carries the CRC recorded when the block was written, so damage on disk since
 * its last check reaches the client as a mismatch, not as wrong bytes; other chunks carry the CRC of the bytes read
 * to send them (checked against the recorded chunk CRCs first, for a part of an SSD block). Not thread-safe: every
 * method runs on the channel's event loop.
 */
final class ResponseStream implements StreamSink, ChannelFutureListener
{
    /** A WARN line for every response cut after its headers (a stream failure mid-body), at most ten a second. */
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
    private final RangeCache engine;
    private final String key;
    private final ServerState.InFlight inFlight;
    private final MemoryBudget budget;
    private final HttpMetrics metrics;
    private final Endpoint endpoint;
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
    /** The stream completed while a part was being read or repaired: complete the response once it is written. */
    private boolean completeAfterRead;
    /** The repair completed while its part was being read: the body's stream goes on once it is written. */
    private boolean completeRepairAfterRead;
    private BlockStream stream;
    /** Re-reads a chunk that failed its store's check; while it runs, the body's own stream waits. Null when none. */
    private BlockStream repair;
    /** The request's access-log record, or {@code null} when the access log is off. */
    private AccessLog access;
    /** Body bytes of the object handed to the connection, for the access log. */
    private long bodyBytes;

    ResponseStream(
        final ChannelHandlerContext ctx,
        final RequestHandler handler,
        final ServerResources resources,
        final String key,
        final ServerState.InFlight inFlight,
        final Endpoint endpoint,
        final long[] lengths,
        final boolean framed,
        final boolean checksummed,
        final HttpResponse headers,
        final boolean keepAlive,
        final long startNanos)
    {
        this.checksummed = checksummed;
        this.ctx = ctx;
        this.key = key;
        this.engine = resources.engine();
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
        return memoryChunk(ref, offset, length);
    }

    private boolean memoryChunk(final BlockRef ref, final int offset, final int length)
    {
        final long checksum = checksummed ? chunkCrc(ref, offset, length) : -1;
        // the HTTP encoder takes a bare ByteBuf as body content once the headers went out: no wrapper per chunk
        return writeChecksum(write(BlockByteBuf.wrap(ref, offset, length), length), checksum);
    }

    @Override
    public boolean onFile(final int range, final long position, final BlockFile file, final int offset,
        final int length)
    {
        writeFramesUpTo(range);
        return fileChunk(position, file, offset, length);
    }

    /**
     * A whole block goes out from its file (sendfile), with the CRC recorded when it was written when checksummed (not
     * one of the bytes sent: a file damaged since is caught by the client); a part is read and checked first.
     */
    private boolean fileChunk(final long position, final BlockFile file, final int offset, final int length)
    {
        if (offset != 0 || length != file.length())
        {
            return writeFromFile(position, file, offset, length);
        }
        if (checksummed)
        {
            final long recorded = file.crc32c();
            if (recorded < 0)
            {
                return writeFromFile(position, file, offset, length);
            }
            return writeChecksum(write(new BlockFileRegion(file, offset, length), length), recorded);
        }
        return write(new BlockFileRegion(file, offset, length), length);
    }

    @Override
    public boolean onCopy(final int range, final long position, final ByteBuffer copy)
    {
        writeFramesUpTo(range);
        return copyChunk(copy);
    }

    private boolean copyChunk(final ByteBuffer copy)
    {
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
     * A part of a block file: read on the SSD tier's reader threads (never here, on the event loop), which check it
     * against the chunk CRCs recorded with the block, then sent from memory (with the CRC of its bytes when
     * checksummed). The stream pauses meanwhile, so the body stays in order.
     */
    private boolean writeFromFile(final long position, final BlockFile file, final int offset, final int length)
    {
        final ByteBuf buf = ctx.alloc().directBuffer(length + trailerBytes());
        reading = true;
        paused = true;
        CompletableFuture<Void> read;
        try
        {
            read = file.readAsync(offset, buf.nioBuffer(0, length));
        }
        catch (final RuntimeException ex)
        {
            read = CompletableFuture.failedFuture(ex);
        }
        if (read.isDone() && !read.isCompletedExceptionally())
        {
            // read on this thread (a store without reader threads): send it as any chunk
            reading = false;
            paused = false;
            file.release();
            buf.writerIndex(length);
            return write(withTrailer(buf, length), length);
        }
        // a failure goes through the executor too: a repair it starts must not resume the stream inside its drain
        read.whenComplete((ignored, error) ->
        {
            try
            {
                ctx.executor().execute(() -> onFileRead(position, file, buf, length, error));
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

    /**
     * The part of a block file is in (or failed): it goes out with its CRC, then the stream goes on. A part that
     * failed its check is read again by a repair stream.
     */
    private void onFileRead(
        final long position, final BlockFile file, final ByteBuf buf, final int length, final Throwable error)
    {
        file.release();
        reading = false;
        if (finished || null != error)
        {
            buf.release();
            budget.release(length);
            if (!finished)
            {
                final Throwable cause = unwrap(error);
                if (cause instanceof DamagedBlockException && null == repair)
                {
                    startRepair(position, length);
                }
                else
                {
                    onError(cause);
                }
            }
            return;
        }
        buf.writerIndex(length);
        final boolean more = write(withTrailer(buf, length), length);
        if (completeRepairAfterRead)
        {
            completeRepairAfterRead = false;
            repairDone();
            return;
        }
        if (null == repair && completeAfterRead)
        {
            completeAfterRead = false;
            onComplete();
            return;
        }
        final BlockStream active = null != repair ? repair : stream;
        if (more && null != active)
        {
            paused = false;
            active.resume();
        }
        else
        {
            flush();
        }
    }

    private static Throwable unwrap(final Throwable error)
    {
        return error instanceof CompletionException && null != error.getCause() ? error.getCause() : error;
    }

    /**
     * Reads {@code [position, position + length)} of the object again through a stream of its own: the store dropped
     * the damaged block, so the lookup misses and the bytes come from the origin (or a fetch in flight for the block).
     * Its chunks go out in the place of the failed one (same range frame, same CRC framing: the part lies in one
     * block); the body's own stream waits (paused) and goes on when the repair completes.
     */
    private void startRepair(final long position, final int length)
    {
        metrics.repairedChunks.increment();
        final RepairSink sink = new RepairSink();
        try
        {
            repair = engine.openStream(key, new long[] {position}, new long[] {length}, budget, ctx.executor(), sink);
        }
        catch (final RuntimeException ex)
        {
            onError(ex);
            return;
        }
        paused = false;
        repair.start();
    }

    /** The repair handed over its last chunk: the body's own stream goes on. */
    private void repairDone()
    {
        repair = null;
        if (completeAfterRead)
        {
            completeAfterRead = false;
            onComplete();
            return;
        }
        paused = true;
        resumeIfReady();
    }

    /** Takes a repair stream's chunks as the body's own (no range frames: the failed chunk's frame is written). */
    private final class RepairSink implements StreamSink
    {
        @Override
        public boolean onMemory(final int range, final long position, final BlockRef ref, final int offset,
            final int length)
        {
            return memoryChunk(ref, offset, length);
        }

        @Override
        public boolean onFile(final int range, final long position, final BlockFile file, final int offset,
            final int length)
        {
            return fileChunk(position, file, offset, length);
        }

        @Override
        public boolean onCopy(final int range, final long position, final ByteBuffer copy)
        {
            return copyChunk(copy);
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
                // its last chunk is still being read from a file: onFileRead ends the repair after sending it
                completeRepairAfterRead = true;
                return;
            }
            repairDone();
        }

        @Override
        public void onError(final Throwable error)
        {
            ResponseStream.this.onError(error);
        }
    }

    /**
     * A whole block's CRC is the one recorded when its slot was filled (no pass over the bytes here; a slot damaged
     * since then is caught by the client). A part's is computed now, in the same pass that checks the 64 KiB chunks it
     * touches against the CRCs recorded at the fill: a slot damaged since gets a CRC that does not match the bytes
     * sent (the complement of theirs), so the client takes the chunk from the origin instead (counted in
     * {@code damaged_ram_chunks}; the slot is dropped when it is evicted: its spill fails the same check). A slot
     * without recorded CRCs gets the CRC of its bytes.
     */
    private long chunkCrc(final BlockRef ref, final int offset, final int length)
    {
        final long recorded = ref.crc32c();
        final int blockLength = ref.length();
        if (offset == 0 && length == blockLength && recorded >= 0)
        {
            return recorded;
        }
        final int[] chunks = ref.chunkCrc32c();
        if (null == chunks)
        {
            return Crc32c.compute(ref.buffer(), offset, length) & 0xFFFF_FFFFL;
        }
        final long checked = Crc32c.checkedPart(ref.buffer(), blockLength, chunks, offset, length);
        if (checked >= 0)
        {
            return checked;
        }
        metrics.damagedRamChunks.increment();
        return ~Crc32c.compute(ref.buffer(), offset, length) & 0xFFFF_FFFFL;
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
        if (reading || null != repair)
        {
            // the last chunk is still being read from its file or repaired: complete after it went out
            completeAfterRead = true;
            return;
        }
        writeFramesUpTo(lengths.length - 1);
        finished = true;
        endBody(ctx, handler, metrics, inFlight, access, endpoint, headers.status().code(), bodyBytes, keepAlive,
            startNanos);
    }

    /**
     * Ends a streamed response's body: the last content, counted and logged once written, and the connection's next
     * request (or its close).
     */
    static void endBody(
        final ChannelHandlerContext ctx, final RequestHandler handler, final HttpMetrics metrics,
        final ServerState.InFlight inFlight, final AccessLog access, final Endpoint endpoint, final int status,
        final long bodyBytes, final boolean keepAlive, final long startNanos)
    {
        ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT).addListener((ChannelFutureListener) (f) ->
        {
            metrics.completed(System.nanoTime() - startNanos);
            inFlight.end();
            if (null != access)
            {
                access.complete(endpoint.label(), status, bodyBytes, f.isSuccess() ? null : "cut");
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
        cancelStreams();
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
        cancelStreams();
        if (!finished)
        {
            finished = true;
            inFlight.end();
            logCut();
        }
    }

    /** The body's stream and a repair return what they hold (a no-op for one that has ended). */
    private void cancelStreams()
    {
        if (null != repair)
        {
            repair.cancel();
            repair = null;
        }
        if (null != stream)
        {
            stream.cancel();
        }
    }

    private void logCut()
    {
        if (null != access)
        {
            access.complete(endpoint.label(), headers.status().code(), bodyBytes, "cut");
        }
    }

    private void resumeIfReady()
    {
        if (paused && !reading && !finished && chunksInFlight < MAX_CHUNKS_IN_FLIGHT && ctx.channel().isWritable())
        {
            paused = false;
            (null != repair ? repair : stream).resume();
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
