package dev.offcache.server.source;

import java.nio.ByteBuffer;

import dev.offcache.core.slab.BlockRef;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledUnsafeDirectByteBuf;
import io.netty.util.internal.PlatformDependent;
import org.agrona.DirectBuffer;

/**
 * A Netty buffer that is a zero-copy view of part of a cached block's off-heap slot. It owns one reference to the
 * block: when Netty has written it and releases it, the block reference is released too, so the slot cannot be
 * reused while the socket still reads from it.
 */
public final class BlockByteBuf extends UnpooledUnsafeDirectByteBuf
{
    private final BlockRef ref;

    private BlockByteBuf(final ByteBuffer view, final BlockRef ref)
    {
        super(UnpooledByteBufAllocator.DEFAULT, view, view.remaining());
        this.ref = ref;
    }

    /**
     * Wraps part of a block. Takes over the caller's reference to {@code ref} in every case: it is released when
     * the returned buffer is, or at once if wrapping fails.
     *
     * @param ref    a retained block reference.
     * @param offset where the chunk starts in the block.
     * @param length the chunk's length.
     * @return a buffer with {@code length} readable bytes.
     */
    public static ByteBuf wrap(final BlockRef ref, final int offset, final int length)
    {
        try
        {
            final DirectBuffer buffer = ref.buffer();
            if (offset < 0 || length < 0 || offset + length > ref.length())
            {
                throw new IllegalArgumentException(
                    "chunk [" + offset + ", +" + length + ") outside block of " + ref.length());
            }
            final ByteBuffer view = viewOf(buffer, offset, length);
            if (null == view)
            {
                // no way to view this memory without a copy: copy off-heap to off-heap, never onto the heap
                final ByteBuf copy = PooledByteBufAllocator.DEFAULT.directBuffer(length, length);
                buffer.getBytes(offset, copy.nioBuffer(0, length), 0, length);
                copy.writerIndex(length);
                ref.release();
                return copy;
            }
            final BlockByteBuf wrapped = new BlockByteBuf(view, ref);
            wrapped.writerIndex(length);
            return wrapped;
        }
        catch (final RuntimeException ex)
        {
            ref.release();
            throw ex;
        }
    }

    private static ByteBuffer viewOf(final DirectBuffer buffer, final int offset, final int length)
    {
        final ByteBuffer byteBuffer = buffer.byteBuffer();
        if (null != byteBuffer && byteBuffer.isDirect())
        {
            final int start = buffer.wrapAdjustment() + offset;
            return byteBuffer.duplicate().limit(start + length).position(start).slice();
        }
        if (null == buffer.byteArray() && PlatformDependent.hasDirectBufferNoCleanerConstructor())
        {
            return PlatformDependent.directBuffer(buffer.addressOffset() + offset, length);
        }
        return null;
    }

    @Override
    protected void deallocate()
    {
        super.deallocate();
        ref.release();
    }
}
