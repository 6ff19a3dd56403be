package dev.offcache.server.http;

import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;

import dev.offcache.server.log.RateLimitedWarning;
import dev.offcache.server.source.RangeSource;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.FileRegion;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCounted;
import org.slf4j.LoggerFactory;

/**
 * Streams one response body, block by block, on its channel's event loop. A chunk the source has at once (a RAM
 * block view, a verified SSD block file) is written without leaving the event loop; any other is read on the
 * source's executor and written when it arrives. Each chunk's bytes are reserved from the
 * global {@link MemoryBudget} before the chunk is read and returned when its socket write completes; at most one
 * read is outstanding, and no read starts while the channel is not writable (a slow reader stops the stream, it does
 * not buffer it). The headers go out with the first chunk, so a failure before it is still a clean error response;
 * a failure after it cuts the connection (the client sees a short body against its Content-Length).
 *
 * <p>With {@code framed}, each segment is preceded by its length as an 8-byte little-endian integer
 * ({@code POST /ranges}). Not thread-safe: every method runs on the channel's event loop.
 */
final class ResponseStream
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
    private final RangeSource source;
    private final MemoryBudget budget;
    private final HttpMetrics metrics;
    private final String endpoint;
    private final String key;
    private final long[] starts;
    private final long[] lengths;
    private final boolean framed;
    private final HttpResponse headers;
    private final boolean keepAlive;
    private final long startNanos;
    private int segment;
    private long positionInSegment;
    private boolean headersSent;
    private boolean reading;
    private boolean finished;
    private boolean unflushed;
    private int chunksInFlight;
    private boolean pumping;
    private boolean repump;

    ResponseStream(
        final ChannelHandlerContext ctx,
        final RequestHandler handler,
        final ServerResources resources,
        final ServerState.InFlight inFlight,
        final String endpoint,
        final String key,
        final long[] starts,
        final long[] lengths,
        final boolean framed,
        final HttpResponse headers,
        final boolean keepAlive,
        final long startNanos)
    {
        this.ctx = ctx;
        this.handler = handler;
        this.inFlight = inFlight;
        this.source = resources.source();
        this.budget = resources.budget();
        this.metrics = resources.metrics();
        this.endpoint = endpoint;
        this.key = key;
        this.starts = starts;
        this.lengths = lengths;
        this.framed = framed;
        this.headers = headers;
        this.keepAlive = keepAlive;
        this.startNanos = startNanos;
    }

    void pump()
    {
        if (pumping)
        {
            // called back from inside a flush (a write completed, writability changed): the running pump goes on
            repump = true;
            return;
        }
        pumping = true;
        try
        {
            do
            {
                repump = false;
                pumpOnce();
            }
            while (repump && !finished && !reading);
        }
        finally
        {
            pumping = false;
        }
    }

    private void pumpOnce()
    {
        while (!finished && !reading)
        {
            if (!ctx.channel().isActive())
            {
                abort();
                return;
            }
            if (headersSent && (!ctx.channel().isWritable() || chunksInFlight >= MAX_CHUNKS_IN_FLIGHT))
            {
                // resumed by channelWritabilityChanged or by a chunk's write completing
                flushWritten();
                return;
            }
            if (segment == starts.length)
            {
                complete();
                return;
            }
            final long segmentLength = lengths[segment];
            if (segmentLength == 0)
            {
                sendHeadersOnce();
                writeFrameLength(0);
                segment++;
                continue;
            }
            final long position = starts[segment] + positionInSegment;
            final int blockSize = source.blockSize();
            final int chunk = (int) Math.min(segmentLength - positionInSegment, blockSize - position % blockSize);
            if (!budget.tryReserve(chunk))
            {
                flushWritten();
                metrics.budgetWaits.increment();
                budget.await(this::wakeUp);
                return;
            }
            final ReferenceCounted now = readNow(position, chunk);
            if (null != now)
            {
                writeChunk(now, chunk);
                continue;
            }
            flushWritten();
            reading = true;
            source.read(key, position, chunk).whenComplete((buf, error) -> onChunkReady(buf, error, chunk));
        }
    }

    private ReferenceCounted readNow(final long position, final int chunk)
    {
        try
        {
            return source.readNow(key, position, chunk);
        }
        catch (final RuntimeException ex)
        {
            // the fast path is only an optimisation: the waiting path reads (or reports) it properly
            return null;
        }
    }

    private void wakeUp()
    {
        try
        {
            ctx.executor().execute(this::pump);
        }
        catch (final RejectedExecutionException ex)
        {
            // the event loop is shutting down: nothing to resume
        }
    }

    private void onChunkReady(final ByteBuf buf, final Throwable error, final int chunk)
    {
        try
        {
            ctx.executor().execute(() -> onChunk(buf, error, chunk));
        }
        catch (final RejectedExecutionException ex)
        {
            if (null != buf)
            {
                buf.release();
            }
            budget.release(chunk);
        }
    }

    private void onChunk(final ByteBuf buf, final Throwable error, final int chunk)
    {
        reading = false;
        if (null != error)
        {
            budget.release(chunk);
            if (finished)
            {
                return;
            }
            if (!headersSent)
            {
                finished = true;
                handler.respondSourceFailure(ctx, endpoint, unwrap(error), keepAlive);
            }
            else
            {
                metrics.streamsAborted.increment();
                CUT_STREAMS.warn("cut the response for {} to {} after its headers: {}", key,
                    ctx.channel().remoteAddress(), unwrap(error).toString());
                abort();
                ctx.close();
            }
            return;
        }
        if (finished || !ctx.channel().isActive())
        {
            buf.release();
            budget.release(chunk);
            abort();
            return;
        }
        writeChunk(buf, chunk);
        pump();
    }

    /** Writes a chunk (a {@link ByteBuf} or a {@link FileRegion}) and returns its budget once the socket took it. */
    private void writeChunk(final ReferenceCounted body, final int chunk)
    {
        sendHeadersOnce();
        if (framed && positionInSegment == 0)
        {
            writeFrameLength(lengths[segment]);
        }
        final Object message = body instanceof ByteBuf buf ? new DefaultHttpContent(buf) : body;
        chunksInFlight++;
        ctx.write(message).addListener((ChannelFutureListener) (f) -> onChunkWritten(chunk));
        metrics.responseBytes.add(chunk);
        positionInSegment += chunk;
        if (positionInSegment == lengths[segment])
        {
            segment++;
            positionInSegment = 0;
        }
        unflushed = true;
    }

    private void onChunkWritten(final int chunk)
    {
        budget.release(chunk);
        chunksInFlight--;
        if (chunksInFlight == MAX_CHUNKS_IN_FLIGHT - 1 && !finished && !reading)
        {
            pump();
        }
    }

    /** Hands written chunks to the socket; called whenever the pump stops short of the end. */
    private void flushWritten()
    {
        if (unflushed)
        {
            unflushed = false;
            ctx.flush();
        }
    }

    private void sendHeadersOnce()
    {
        if (!headersSent)
        {
            headersSent = true;
            metrics.firstByte(System.nanoTime() - startNanos);
            ctx.write(headers);
        }
    }

    private void writeFrameLength(final long length)
    {
        final ByteBuf prefix = ctx.alloc().directBuffer(Long.BYTES, Long.BYTES);
        prefix.writeLongLE(length);
        ctx.write(new DefaultHttpContent(prefix));
        metrics.responseBytes.add(Long.BYTES);
    }

    private void complete()
    {
        finished = true;
        sendHeadersOnce();
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

    void abort()
    {
        finished = true;
        inFlight.end();
    }

    boolean finished()
    {
        return finished;
    }

    private static Throwable unwrap(final Throwable error)
    {
        return error instanceof CompletionException && null != error.getCause() ? error.getCause() : error;
    }
}
