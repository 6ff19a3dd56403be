package dev.offcache.range.engine;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

import dev.offcache.range.store.FetchClass;

/**
 * A streaming read: windows of {@code windowBlocks} blocks aligned to block boundaries, each read into one of
 * {@code windowsInFlight} window buffers and handed to the handler in order. A buffer is refilled only after the
 * handler's stage for its previous window completes, so one stream holds at most
 * {@code windowsInFlight * windowBlocks * blockSize} bytes however long it is.
 *
 * <p>Memory: the window buffers are direct memory owned by the stream and freed when it ends (after every read
 * into them has finished or been abandoned).
 */
final class StreamOperation
{
    private final RangeCache cache;
    private final ObjectEntry entry;
    private final long objectSize;
    private final long start;
    private final long end;
    private final boolean bypass;
    private final ChunkHandler handler;
    private final long windowBytes;
    private final long firstWindowBase;
    private final int windowCount;
    private final ByteBuffer[] memory;
    private final UnsafeBuffer[] buffers;
    private final ReadFuture[] fills;
    private final CompletableFuture<Void> result = new CompletableFuture<>();
    private final AtomicInteger wip = new AtomicInteger();
    private int delivered;
    private boolean awaitingHandler;
    private boolean awaitingFill;
    private CompletableFuture<?> consumed;
    private boolean freed;

    StreamOperation(
        final RangeCache cache,
        final ObjectEntry entry,
        final long objectSize,
        final long position,
        final long length,
        final boolean bypass,
        final ChunkHandler handler)
    {
        this.cache = cache;
        this.entry = entry;
        this.objectSize = objectSize;
        this.start = position;
        this.end = position + length;
        this.bypass = bypass;
        this.handler = handler;
        this.windowBytes = (long) cache.windowBlocks() * cache.blockSize();
        this.firstWindowBase = position - (position % windowBytes);
        this.windowCount = length == 0 ? 0 : (int) ((end - 1 - firstWindowBase) / windowBytes + 1);
        final int slots = Math.max(1, Math.min(cache.windowsInFlight(), windowCount));
        memory = new ByteBuffer[slots];
        buffers = new UnsafeBuffer[slots];
        fills = new ReadFuture[slots];
    }

    CompletableFuture<Void> start()
    {
        if (windowCount == 0)
        {
            result.complete(null);
            return result;
        }
        try
        {
            for (int i = 0; i < memory.length; i++)
            {
                memory[i] = ByteBuffer.allocateDirect((int) windowBytes);
                buffers[i] = new UnsafeBuffer(memory[i]);
                fills[i] = fill(i);
            }
        }
        catch (final RuntimeException ex)
        {
            finish(ex);
            return result;
        }
        advance();
        return result;
    }

    private ReadFuture fill(final int window)
    {
        final int slot = window % buffers.length;
        final long from = windowStart(window);
        final int length = (int) (windowEnd(window) - from);
        return cache.slowRead(entry, objectSize, FetchClass.DEMAND, bypass,
            List.of(new RangeRequest(from, length, buffers[slot], 0)), new ReadFuture());
    }

    private long windowStart(final int window)
    {
        return Math.max(start, firstWindowBase + window * windowBytes);
    }

    private long windowEnd(final int window)
    {
        return Math.min(end, firstWindowBase + (window + 1) * windowBytes);
    }

    private void advance()
    {
        if (wip.getAndIncrement() != 0)
        {
            return;
        }
        int missed = 1;
        do
        {
            step();
            missed = wip.addAndGet(-missed);
        }
        while (missed != 0);
    }

    private void step()
    {
        while (!result.isDone())
        {
            final int slot = delivered % buffers.length;
            if (awaitingHandler)
            {
                if (!consumed.isDone())
                {
                    return;
                }
                awaitingHandler = false;
                if (consumed.isCompletedExceptionally())
                {
                    finish(causeOf(consumed));
                    return;
                }
                final int next = delivered + buffers.length;
                if (next < windowCount)
                {
                    fills[slot] = fill(next);
                }
                delivered++;
                if (delivered == windowCount)
                {
                    finish(null);
                    return;
                }
                continue;
            }
            final ReadFuture fill = fills[slot];
            if (!fill.isDone())
            {
                if (!awaitingFill)
                {
                    awaitingFill = true;
                    fill.whenComplete((v, t) -> advance());
                }
                return;
            }
            awaitingFill = false;
            if (fill.isCompletedExceptionally())
            {
                finish(causeOf(fill));
                return;
            }
            final long from = windowStart(delivered);
            final CompletionStage<?> stage;
            try
            {
                stage = handler.onChunk(buffers[slot], 0, (int) (windowEnd(delivered) - from), from);
            }
            catch (final Throwable ex)
            {
                finish(ex);
                return;
            }
            consumed = stage == null ? CompletableFuture.completedFuture(null) : stage.toCompletableFuture();
            awaitingHandler = true;
            if (!consumed.isDone())
            {
                consumed.whenComplete((v, t) -> advance());
                return;
            }
        }
    }

    private void finish(final Throwable error)
    {
        // Stop every fill still running before the window memory goes away.
        for (final ReadFuture fill : fills)
        {
            if (fill != null)
            {
                fill.cancel(false);
            }
        }
        if (!freed)
        {
            freed = true;
            for (final ByteBuffer buffer : memory)
            {
                if (buffer != null)
                {
                    BufferUtil.free(buffer);
                }
            }
        }
        if (error == null)
        {
            result.complete(null);
        }
        else
        {
            result.completeExceptionally(error);
        }
    }

    private static Throwable causeOf(final CompletableFuture<?> future)
    {
        try
        {
            future.join();
            return new IllegalStateException("not failed");
        }
        catch (final CompletionException ex)
        {
            return ex.getCause() != null ? ex.getCause() : ex;
        }
        catch (final CancellationException ex)
        {
            return ex;
        }
    }
}
