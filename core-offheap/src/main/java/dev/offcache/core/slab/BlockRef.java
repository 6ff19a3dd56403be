package dev.offcache.core.slab;

import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

import org.agrona.MutableDirectBuffer;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

import dev.offcache.core.ref.AbstractRefCounted;

/**
 * A reference-counted handle to one slot of a {@link BlockSlab}: the only way to reach the slot's memory.
 *
 * <p><b>Ownership.</b> The reference count follows {@link dev.offcache.core.ref.RefCounted}. A handle starts with
 * one reference, the owner's. A reader that found the handle (in a cache
 * map, say) calls {@link #tryRetain()} and, only if that returned true, reads through {@link #buffer()} and then
 * calls {@link #release()}. The owner calls {@link #release()} once when it drops the block (evicts it). The slot
 * goes back to the slab's free list when the last reference is released, never earlier, so a reader can never see
 * the slot re-used under it.
 *
 * <p><b>One handle per allocation.</b> Each {@link BlockSlab#tryAllocate()} returns a new handle, so a stale handle
 * kept after its slot was freed and handed out again is a different object from the new occupant's: it cannot
 * retain, release or reach the new occupant's memory (no ABA). Using a released handle throws
 * {@link IllegalStateException}; the buffer view it handed out earlier is shrunk to zero length when the last
 * reference goes, so a write through it fails Agrona's bounds check instead of corrupting the next occupant
 * (guaranteed when the misuse happens on the releasing thread or after a happens-before edge with it).
 *
 * <p><b>Copies without a reference.</b> A reader that only copies bytes out can skip the two reference-count updates
 * with {@link #tryCopy}: it copies as a seqlock reader does and keeps the bytes only if the handle was still live
 * after the copy. A slot is re-used only after its handle's count reached zero, and the count never rises again, so a
 * live count after the copy proves that no other occupant wrote the slot during it.
 *
 * <p>{@link #tryRetain()}, {@link #buffer()}, {@link #release()} and {@link #tryCopy} do not allocate: they are the
 * cache hit path.
 */
public final class BlockRef extends AbstractRefCounted
{
    private static final byte[] EMPTY = new byte[0];

    private final BlockSlab slab;
    private final int slotIndex;
    private final UnsafeBuffer view;
    /** The slot's first byte: fixed for the slab's life, so {@link #tryCopy} never reads the re-pointed view. */
    private final long address;
    private volatile int length;
    /** The CRC32C of the {@code length} bytes in use, unsigned, or -1 when the writer recorded none. */
    private volatile long crc32c = -1;
    /** The CRC32C of each {@code Crc32c.CHUNK_SIZE} chunk of the bytes in use, or null when none was recorded. */
    private volatile int[] chunkCrc32c;

    BlockRef(final BlockSlab slab, final int slotIndex, final UnsafeBuffer view)
    {
        this.slab = slab;
        this.slotIndex = slotIndex;
        this.view = view;
        this.address = view.addressOffset();
    }

    /**
     * Returns a zero-copy view of the whole slot ({@link BlockSlab#slotSize()} bytes; {@link #length()} says how
     * many are in use). The view is valid while the caller holds a reference. The slot is not cleared between
     * allocations: write before you read.
     *
     * @return the view of the slot.
     * @throws IllegalStateException if every reference has been released.
     */
    public MutableDirectBuffer buffer()
    {
        checkLive();
        return view;
    }

    /**
     * A new NIO buffer over the whole slot (position 0, limit {@link BlockSlab#slotSize()}), for channel I/O straight
     * into it: an origin answer landing in the slot with no staging copy. Valid while the caller holds a reference;
     * one small object per call, so for the miss path, not for hits.
     *
     * @return a direct buffer sharing the slot's memory.
     * @throws IllegalStateException if every reference has been released.
     */
    public ByteBuffer byteBuffer()
    {
        checkLive();
        return slab.slotByteBuffer(slotIndex);
    }

    /**
     * Returns the number of bytes in use, from the start of the slot.
     *
     * @return bytes in use, 0 until {@link #length(int)} sets it.
     * @throws IllegalStateException if every reference has been released.
     */
    public int length()
    {
        checkLive();
        return length;
    }

    /**
     * Sets how many bytes of the slot are in use; the writer sets it before publishing the handle to readers.
     *
     * @param length bytes in use, in {@code [0, slotSize]}.
     * @return this handle.
     * @throws IllegalArgumentException if {@code length} is out of range.
     * @throws IllegalStateException    if every reference has been released.
     */
    public BlockRef length(final int length)
    {
        checkLive();
        final int slotSize = slab.slotSize();
        if (length < 0 || length > slotSize)
        {
            throw new IllegalArgumentException(
                "length must be in [0, " + slotSize + "] for slot " + slotIndex + ": " + length);
        }
        this.length = length;
        this.crc32c = -1;
        this.chunkCrc32c = null;
        return this;
    }

    /**
     * Records the CRC32C of the bytes in use, computed once by the writer when it filled the slot, so readers that
     * send or spill the whole block reuse it instead of computing it again. Set after {@link #length(int)} (which
     * forgets it) and before publishing the handle.
     *
     * @param crc the CRC32C of {@code [0, length())}.
     * @return this handle.
     * @throws IllegalStateException if every reference has been released.
     */
    public BlockRef crc32c(final int crc)
    {
        checkLive();
        this.crc32c = crc & 0xFFFF_FFFFL;
        return this;
    }

    /**
     * Records the CRC32C of each 64 KiB chunk of the bytes in use ({@link dev.offcache.core.checksum.Crc32c#chunks}),
     * taken by the writer in the same pass as the whole block's, so a reader that sends a part of the block can check
     * the chunks it touches ({@link dev.offcache.core.checksum.Crc32c#checkedPart}). Set after {@link #length(int)}
     * (which forgets it) and before publishing the handle; the array is the handle's from then on, never changed.
     *
     * @param crcs one CRC per chunk.
     * @return this handle.
     * @throws IllegalStateException if every reference has been released.
     */
    public BlockRef chunkCrc32c(final int[] crcs)
    {
        checkLive();
        this.chunkCrc32c = crcs;
        return this;
    }

    /**
     * Returns the per-chunk CRC32Cs the writer recorded for the bytes in use.
     *
     * @return one CRC per 64 KiB chunk (read only), or null when none was recorded.
     * @throws IllegalStateException if every reference has been released.
     */
    public int[] chunkCrc32c()
    {
        checkLive();
        return chunkCrc32c;
    }

    /**
     * Returns the CRC32C the writer recorded for the bytes in use.
     *
     * @return the unsigned CRC32C of {@code [0, length())}, or -1 when none was recorded.
     * @throws IllegalStateException if every reference has been released.
     */
    public long crc32c()
    {
        checkLive();
        return crc32c;
    }

    /**
     * Returns the index of the slot in its slab; stable for the life of the handle.
     *
     * @return the slot index.
     */
    public int slotIndex()
    {
        return slotIndex;
    }

    /**
     * Copies bytes of the slot into a caller's buffer without taking a reference: the cheap form of
     * {@code tryRetain(); buffer().getBytes(...); release()} for a reader that keeps no view. The copy reads the slot
     * while the owner may be evicting it; afterwards the handle's reference count is read again (after an acquire
     * fence, so the copy's loads cannot move past it), and only a count still above zero makes the copy valid. While
     * the copy runs, the slab's memory stays mapped even if the slab is closed and the handle released meanwhile.
     *
     * <p>On {@code false} the destination range holds unspecified bytes (possibly another block's): the caller must
     * discard them and retain the handle instead, or treat the block as gone. Bounds are checked against the slot
     * here and against the destination by its {@code boundsCheck}, whatever Agrona's bounds-check setting, so a copy
     * never reads outside the slot nor writes outside the destination; the bytes come straight from the slot's
     * address (an expandable destination is filled through {@code putBytes}, which may grow it).
     *
     * @param offset      where in the slot to start.
     * @param destination where to copy to (its own bounds are checked as by {@code putBytes}).
     * @param destOffset  where in {@code destination} to start.
     * @param length      bytes to copy; {@code offset + length} must not exceed the slot size.
     * @return true if the destination now holds this block's bytes; false if the handle had been released (or the
     *     slab closed) before the copy could be validated.
     * @throws IndexOutOfBoundsException if the range lies outside the slot.
     */
    public boolean tryCopy(
        final int offset, final MutableDirectBuffer destination, final int destOffset, final int length)
    {
        final BlockSlab slab = this.slab;
        if (offset < 0 || length < 0 || offset > slab.slotSize() - length)
        {
            throw new IndexOutOfBoundsException("range [offset=" + offset + ", length=" + length +
                "] is outside slot " + slotIndex + " of " + slab.slotSize() + " bytes");
        }
        if (isReleased())
        {
            return false;
        }
        final int stripe = slab.beginCopy();
        if (stripe < 0)
        {
            return false;
        }
        boolean valid = false;
        try
        {
            if (destination.isExpandable())
            {
                slab.copyOut(slotIndex, offset, destination, destOffset, length);
            }
            else
            {
                // Straight from the slot's address: no walk through the region's mappings and no second bounds
                // check of the source (done above); the destination's own check runs whatever Agrona's setting.
                destination.boundsCheck(destOffset, length);
                UnsafeApi.copyMemory(
                    null, address + offset, destination.byteArray(), destination.addressOffset() + destOffset, length);
            }
            VarHandle.acquireFence();
            valid = !isReleased();
        }
        finally
        {
            slab.endCopy(stripe, valid);
        }
        return valid;
    }

    /**
     * Shrinks the view before the slot can be handed out again, so a stale view fails bounds checks, then returns the
     * slot to the slab's free list.
     */
    @Override
    protected void onLastRelease()
    {
        view.wrap(EMPTY);
        slab.freeSlot(slotIndex);
    }

    /**
     * {@inheritDoc}
     */
    public String toString()
    {
        return "BlockRef{slot=" + slotIndex + ", refCount=" + refCount() + ", length=" + length + '}';
    }

    private void checkLive()
    {
        if (isReleased())
        {
            throw new IllegalStateException("BlockRef for slot " + slotIndex + " used after release");
        }
    }
}
