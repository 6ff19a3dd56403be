package dev.offcache.server.tier;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * File I/O straight between a {@link FileChannel} and an Agrona buffer: through the buffer's own
 * {@link ByteBuffer} when it has one (no copy), else through a per-thread off-heap staging buffer (an off-heap to
 * off-heap copy, never onto the heap).
 */
final class DirectBuffers
{
    private static final int STAGING_BYTES = 256 * 1024;
    private static final ThreadLocal<ByteBuffer> STAGING =
        ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(STAGING_BYTES));

    private DirectBuffers()
    {
    }

    static void readFully(
        final FileChannel channel,
        final long position,
        final MutableDirectBuffer target,
        final int offset,
        final int length) throws IOException
    {
        final ByteBuffer view = viewOf(target, offset, length);
        if (null != view)
        {
            readFully(channel, position, view);
            return;
        }
        final ByteBuffer staging = STAGING.get();
        int done = 0;
        while (done < length)
        {
            staging.clear().limit(Math.min(STAGING_BYTES, length - done));
            while (staging.hasRemaining())
            {
                final int read = channel.read(staging, position + done + staging.position());
                if (read < 0)
                {
                    throw new EOFException("file ended at " + (position + done + staging.position()));
                }
            }
            staging.flip();
            final int chunk = staging.remaining();
            target.putBytes(offset + done, staging, 0, chunk);
            done += chunk;
        }
    }

    /**
     * Reads from {@code position} until {@code target} is full, with positional reads (the channel's own position is
     * left alone); the target's position moves to its limit.
     */
    static void readFully(final FileChannel channel, final long position, final ByteBuffer target) throws IOException
    {
        long filePosition = position;
        while (target.hasRemaining())
        {
            final int read = channel.read(target, filePosition);
            if (read < 0)
            {
                throw new EOFException("file ended at " + filePosition);
            }
            filePosition += read;
        }
    }

    /**
     * This thread's off-heap staging buffer ({@value #STAGING_BYTES} bytes), for a caller that reads bytes only to
     * look at them; the buffer is the thread's, and readFully and writeFully of Agrona buffers without a
     * {@link ByteBuffer} use it too, so the caller is done with it before calling them.
     */
    static ByteBuffer staging()
    {
        return STAGING.get();
    }

    static void writeFully(
        final FileChannel channel, final DirectBuffer source, final int offset, final int length) throws IOException
    {
        final ByteBuffer view = viewOf(source, offset, length);
        if (null != view)
        {
            while (view.hasRemaining())
            {
                channel.write(view);
            }
            return;
        }
        final ByteBuffer staging = STAGING.get();
        int done = 0;
        while (done < length)
        {
            final int chunk = Math.min(STAGING_BYTES, length - done);
            staging.clear();
            source.getBytes(offset + done, staging, 0, chunk);
            staging.limit(chunk);
            while (staging.hasRemaining())
            {
                channel.write(staging);
            }
            done += chunk;
        }
    }

    private static ByteBuffer viewOf(final DirectBuffer buffer, final int offset, final int length)
    {
        final byte[] array = buffer.byteArray();
        if (null != array)
        {
            return ByteBuffer.wrap(array, buffer.wrapAdjustment() + offset, length);
        }
        final ByteBuffer byteBuffer = buffer.byteBuffer();
        if (null != byteBuffer)
        {
            final int start = buffer.wrapAdjustment() + offset;
            return byteBuffer.duplicate().limit(start + length).position(start);
        }
        return null;
    }
}
