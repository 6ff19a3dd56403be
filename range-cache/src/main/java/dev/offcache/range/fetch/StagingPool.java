package dev.offcache.range.fetch;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;

import org.agrona.BufferUtil;
import org.agrona.concurrent.ManyToManyConcurrentArrayQueue;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Direct buffers that origin GETs land in before their blocks are split out to the store and the waiters. One
 * buffer holds the largest coalesced GET; at most {@code retained} idle buffers are kept, the rest are freed at
 * once, so idle staging memory stays bounded.
 *
 * <p>Memory: the pool owns every buffer it hands out; {@link #close()} frees idle ones, and a buffer returned
 * after close is freed on return. {@link #liveBuffers()} counts buffers not yet freed, for leak tests.
 */
public final class StagingPool implements AutoCloseable
{
    private final int bufferBytes;
    private final ManyToManyConcurrentArrayQueue<Staging> idle;
    private final AtomicInteger live = new AtomicInteger();
    private volatile boolean closed;

    /**
     * One staging buffer: the direct memory and a view of it.
     */
    public static final class Staging
    {
        final ByteBuffer byteBuffer;
        final UnsafeBuffer view;

        Staging(final ByteBuffer byteBuffer)
        {
            this.byteBuffer = byteBuffer;
            this.view = new UnsafeBuffer(byteBuffer);
        }

        /**
         * A fresh NIO view of the first {@code length} bytes, for an origin to fill.
         *
         * @param length bytes wanted.
         * @return a buffer positioned at 0 with limit {@code length}.
         */
        public ByteBuffer target(final int length)
        {
            return byteBuffer.duplicate().clear().limit(length);
        }

        /**
         * A fresh NIO view of {@code length} bytes from {@code offset}, for one range of a vectored read.
         *
         * @param offset where the range lands in the buffer.
         * @param length bytes wanted.
         * @return a buffer positioned at {@code offset} with limit {@code offset + length}.
         */
        public ByteBuffer target(final int offset, final int length)
        {
            return byteBuffer.duplicate().clear().limit(offset + length).position(offset);
        }

        /**
         * Returns the buffer as an Agrona view.
         *
         * @return the buffer as an Agrona view.
         */
        public UnsafeBuffer view()
        {
            return view;
        }
    }

    /**
     * Creates an instance.
     *
     * @param bufferBytes bytes per buffer.
     * @param retained    idle buffers kept for reuse.
     */
    public StagingPool(final int bufferBytes, final int retained)
    {
        this.bufferBytes = bufferBytes;
        this.idle = new ManyToManyConcurrentArrayQueue<>(Math.max(2, retained));
    }

    /**
     * A buffer of {@link #bufferBytes()} bytes, reused or new.
     *
     * @return the buffer; give it back with {@link #release(Staging)}.
     */
    public Staging acquire()
    {
        final Staging reused = idle.poll();
        if (reused != null)
        {
            return reused;
        }
        live.incrementAndGet();
        return new Staging(ByteBuffer.allocateDirect(bufferBytes));
    }

    /**
     * Returns a buffer once nothing (no origin, no waiter) touches it any more.
     *
     * @param staging the buffer.
     */
    public void release(final Staging staging)
    {
        if (closed || !idle.offer(staging))
        {
            free(staging);
        }
        else if (closed)
        {
            drain();
        }
    }

    /**
     * Returns bytes per buffer.
     *
     * @return bytes per buffer.
     */
    public int bufferBytes()
    {
        return bufferBytes;
    }

    /**
     * Returns buffers allocated and not yet freed.
     *
     * @return buffers allocated and not yet freed.
     */
    public int liveBuffers()
    {
        return live.get();
    }

    /**
     * Frees the idle buffers; busy ones are freed when returned.
     */
    @Override
    public void close()
    {
        closed = true;
        drain();
    }

    private void drain()
    {
        Staging staging;
        while ((staging = idle.poll()) != null)
        {
            free(staging);
        }
    }

    private void free(final Staging staging)
    {
        BufferUtil.free(staging.byteBuffer);
        live.decrementAndGet();
    }
}
