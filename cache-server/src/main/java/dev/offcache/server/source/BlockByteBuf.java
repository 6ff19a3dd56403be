package dev.offcache.server.source;

import java.nio.ByteBuffer;

import dev.offcache.core.ref.RefCounted;
import dev.offcache.core.slab.BlockRef;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledUnsafeDirectByteBuf;
import io.netty.util.internal.PlatformDependent;
import org.agrona.DirectBuffer;

/**
 * A Netty buffer that is a zero-copy view of part of a cached block's memory: a RAM block's off-heap slot, or the
 * mapping of an SSD block file ({@link #view}). It owns one reference to the block (or file): when Netty has written
 * it and releases it, that reference is released too, so the slot cannot be reused, nor the mapping unmapped, while
 * the socket still reads from it.
 */
public final class BlockByteBuf extends UnpooledUnsafeDirectByteBuf
{
    private final RefCounted ref;

    private BlockByteBuf(final ByteBuffer view, final RefCounted ref)
    {
        super(UnpooledByteBufAllocator.DEFAULT, view, view.remaining());
        this.ref = ref;
    }

    /**
     * Wraps memory that another reference-counted owner keeps valid (the view an SSD block file gives of its mapping,
     * {@code BlockFile#residentBytes}). Takes over the caller's reference to {@code owner} in every case: it is
     * released when the returned buffer is, or at once if wrapping fails.
     *
     * @param owner a retained reference that keeps {@code view}'s memory valid.
     * @param view  direct memory (read-only allowed), its position to its limit the bytes to send.
     * @return a buffer with the view's bytes readable.
     */
    public static ByteBuf view(final RefCounted owner, final ByteBuffer view)
    {
        try
        {
            final int length = view.remaining();
            ByteBuffer writable = view;
            if (view.isReadOnly())
            {
                // a read-only mapping: Netty's direct buffers take writable ones, so view the same memory through one
                // (never written: the socket only reads what it is handed)
                writable = PlatformDependent.hasDirectBufferNoCleanerConstructor() ?
                    PlatformDependent.directBuffer(PlatformDependent.directBufferAddress(view) + view.position(),
                    length) : null;
            }
            if (null == writable)
            {
                final ByteBuf copy = PooledByteBufAllocator.DEFAULT.directBuffer(length, length);
                copy.writeBytes(view.duplicate());
                owner.release();
                return copy;
            }
            final BlockByteBuf wrapped = new BlockByteBuf(writable, owner);
            wrapped.writerIndex(length);
            return wrapped;
        }
        catch (final RuntimeException ex)
        {
            owner.release();
            throw ex;
        }
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
