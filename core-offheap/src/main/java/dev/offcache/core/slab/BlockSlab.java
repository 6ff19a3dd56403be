package dev.offcache.core.slab;

import java.nio.ByteBuffer;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

import dev.offcache.core.config.ConcludeOnce;
import dev.offcache.core.region.MappedRegion;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.jctools.queues.MpmcArrayQueue;

/**
 * A {@link MappedRegion} cut into fixed-size, power-of-two slots (4 KiB to 16 MiB) that are handed out as
 * reference-counted {@link BlockRef}s.
 *
 * <p>Allocation and free are lock-free: free slot indexes sit in a JCTools {@link MpmcArrayQueue} (pre-boxed, so
 * neither side allocates a box), and one atomic word counts live slots and carries the closed flag.
 * {@link #tryAllocate()} never blocks: when every slot is taken it returns null.
 *
 * <p><b>Memory ownership.</b> The slab owns its region; each slot is owned by the references of its current
 * {@link BlockRef} (see there). {@link #close()} stops allocation at once, but the region is unmapped only when no
 * slot is live any more: immediately if none is, otherwise by the release of the last one, so a reader still
 * holding a reference never touches unmapped memory. A close with live slots is a leak or a shutdown race, and is
 * reported by an {@link IllegalStateException} from {@link #close()} naming the count (after the slab has been
 * closed). Slots are not cleared between allocations. Slots are page aligned and never
 * straddle two of the region's 1 GiB mappings.
 *
 * <p><b>Copies without a reference.</b> {@link BlockRef#tryCopy} reads a slot without touching its reference
 * count. Such readers announce themselves on a per-thread stripe ({@code ReaderGuard}); the region is unmapped only
 * once the slab is closed, no slot is live and no such reader is inside, whichever of the closer, the last releaser
 * or the last reader sees that first.
 */
public final class BlockSlab implements AutoCloseable
{
    /**
     * Smallest slot size: 4 KiB, one page.
     */
    public static final int MIN_SLOT_SIZE = 4 * 1024;

    /**
     * Largest slot size: 16 MiB.
     */
    public static final int MAX_SLOT_SIZE = 16 * 1024 * 1024;

    /**
     * The one block-size rule, for a slot and so for every block size built on one (the engine's, the stores', the
     * adapters'): a power of two in [{@link #MIN_SLOT_SIZE}, {@link #MAX_SLOT_SIZE}].
     *
     * @param size bytes.
     * @return whether {@code size} is a valid slot size.
     */
    public static boolean isSlotSize(final int size)
    {
        return size >= MIN_SLOT_SIZE && size <= MAX_SLOT_SIZE && Integer.bitCount(size) == 1;
    }

    private static final long CLOSED = 1L << 62;
    private static final byte[] NO_BYTES = new byte[0];

    private final MappedRegion region;
    private final int slotSize;
    private final int slotShift;
    private final int slotCount;
    private final Integer[] slotIds;
    private final MpmcArrayQueue<Integer> freeList;
    // Live slot count (including allocations in progress) in the low bits, CLOSED in bit 62.
    private final AtomicLong state = new AtomicLong();
    private final ReaderGuard readers =
        new ReaderGuard(ReaderGuard.stripesFor(Runtime.getRuntime().availableProcessors()));

    private BlockSlab(final MappedRegion region, final int slotSize, final int slotCount)
    {
        this.region = region;
        this.slotSize = slotSize;
        this.slotShift = Integer.numberOfTrailingZeros(slotSize);
        this.slotCount = slotCount;
        this.slotIds = new Integer[slotCount];
        this.freeList = new MpmcArrayQueue<>(Math.max(2, slotCount));
        for (int i = 0; i < slotCount; i++)
        {
            slotIds[i] = i;
            freeList.offer(slotIds[i]);
        }
    }

    /**
     * Creates a slab over anonymous memory.
     *
     * @param capacityBytes total bytes, a multiple of {@code slotSize}.
     * @param slotSize      power of two in [{@link #MIN_SLOT_SIZE}, {@link #MAX_SLOT_SIZE}].
     * @return the slab, owning its memory.
     */
    public static BlockSlab anonymous(final long capacityBytes, final int slotSize)
    {
        return open(new Context().capacityBytes(capacityBytes).slotSize(slotSize));
    }

    /**
     * Creates a slab as the context describes; concludes the context first.
     *
     * @param context slot size, capacity and (optionally) the backing file.
     * @return the slab, owning its memory.
     */
    public static BlockSlab open(final Context context)
    {
        context.conclude();
        final MappedRegion region = context.file() == null ?
            MappedRegion.anonymous(context.capacityBytes()) :
            MappedRegion.mapNewFile(context.file(), context.capacityBytes());
        try
        {
            return new BlockSlab(region, context.slotSize(), (int) (context.capacityBytes() / context.slotSize()));
        }
        catch (final RuntimeException | Error ex)
        {
            region.close();
            throw ex;
        }
    }

    /**
     * Takes a free slot. Lock-free; never blocks.
     *
     * @return a new handle holding one (the owner's) reference, or null if every slot is live.
     * @throws IllegalStateException if the slab is closed.
     */
    public BlockRef tryAllocate()
    {
        // Reserve before polling: the reservation keeps the region mapped should close() race with us.
        while (true)
        {
            final long current = state.get();
            if ((current & CLOSED) != 0)
            {
                throw new IllegalStateException("BlockSlab is closed: " + this);
            }
            if (current >= slotCount)
            {
                return null;
            }
            if (state.compareAndSet(current, current + 1))
            {
                break;
            }
        }

        final Integer slot = freeList.poll();
        if (slot == null)
        {
            // Only when a racing allocation has taken the last slot between our count check and poll.
            dropLive();
            return null;
        }
        final int index = slot;
        final UnsafeBuffer view = new UnsafeBuffer(NO_BYTES);
        region.wrap(view, (long) index << slotShift, slotSize);
        return new BlockRef(this, index, view);
    }

    /** A new NIO buffer over a slot, for {@link BlockRef#byteBuffer()}. */
    ByteBuffer slotByteBuffer(final int slotIndex)
    {
        return region.byteBuffer((long) slotIndex << slotShift, slotSize);
    }

    /**
     * Returns the size of every slot in bytes.
     *
     * @return the slot size.
     */
    public int slotSize()
    {
        return slotSize;
    }

    /**
     * Returns the number of slots.
     *
     * @return the slot count.
     */
    public int slotCount()
    {
        return slotCount;
    }

    /**
     * Returns the number of slots in the free list; with {@link #liveSlots()} it sums to {@link #slotCount()} when
     * no allocation or release is in progress.
     *
     * @return free slots.
     */
    public int freeSlots()
    {
        return freeList.size();
    }

    /**
     * Returns the number of slots held by a {@link BlockRef} that still has references.
     *
     * @return live slots.
     */
    public int liveSlots()
    {
        return (int) (state.get() & ~CLOSED);
    }

    /**
     * Returns whether {@link #close()} has been called.
     *
     * @return true if closed.
     */
    public boolean isClosed()
    {
        return (state.get() & CLOSED) != 0;
    }

    /**
     * Returns how many {@link BlockRef#tryCopy} calls copied a live slot's bytes (returned true); exact when no copy
     * is in progress.
     *
     * @return validated copies without a reference.
     */
    public long optimisticCopies()
    {
        return readers.successes();
    }

    /**
     * Returns how many {@link BlockRef#tryCopy} calls found, after or before copying, that the handle had been
     * released or the slab closed, and returned false.
     *
     * @return copies discarded.
     */
    public long optimisticCopyConflicts()
    {
        return readers.conflicts();
    }

    /**
     * Returns whether the region has been unmapped (closed and no slot live any more).
     *
     * @return true once the memory is gone.
     */
    public boolean isUnmapped()
    {
        return region.isClosed();
    }

    /**
     * Stops allocation and unmaps the region as soon as no slot is live. Idempotent.
     *
     * @throws IllegalStateException on the first close if slots are still live: their memory stays mapped until the
     *                               last of them is released.
     */
    public void close()
    {
        while (true)
        {
            final long current = state.get();
            if ((current & CLOSED) != 0)
            {
                return;
            }
            if (state.compareAndSet(current, current | CLOSED))
            {
                if (current == 0)
                {
                    unmapIfUnused();
                    return;
                }
                throw new IllegalStateException(
                    "BlockSlab closed with " + current + " live slot(s); its memory is unmapped when the last is " +
                    "released: " + this);
            }
        }
    }

    /**
     * {@inheritDoc}
     */
    public String toString()
    {
        final long current = state.get();
        return "BlockSlab{slotSize=" + slotSize +
            ", slotCount=" + slotCount +
            ", live=" + (current & ~CLOSED) +
            ", closed=" + ((current & CLOSED) != 0) +
            ", region=" + region +
            '}';
    }

    void freeSlot(final int index)
    {
        if (!freeList.offer(slotIds[index]))
        {
            throw new IllegalStateException("free list overflow returning slot " + index + ": " + this);
        }
        dropLive();
    }

    /**
     * Announces a copy without a reference; the region stays mapped until the matching {@link #endCopy}.
     *
     * @return the reader's stripe, or -1 if the slab is closed (nothing to end then).
     */
    int beginCopy()
    {
        final int stripe = readers.enter();
        if ((state.get() & CLOSED) != 0)
        {
            readers.exitWithConflict(stripe);
            unmapIfUnused();
            return -1;
        }
        return stripe;
    }

    void endCopy(final int stripe, final boolean valid)
    {
        if (valid)
        {
            readers.exit(stripe);
        }
        else
        {
            readers.exitWithConflict(stripe);
        }
        if ((state.get() & CLOSED) != 0)
        {
            unmapIfUnused();
        }
    }

    /**
     * Copies bytes of a slot; only between {@link #beginCopy} and {@link #endCopy}, or while holding a reference.
     */
    void copyOut(
        final int slotIndex, final int offset, final MutableDirectBuffer destination, final int destOffset,
        final int length)
    {
        region.getBytes(((long) slotIndex << slotShift) + offset, destination, destOffset, length);
    }

    private void dropLive()
    {
        if (state.decrementAndGet() == CLOSED)
        {
            unmapIfUnused();
        }
    }

    private void unmapIfUnused()
    {
        // Once closed with no live slot the state never changes again, so only readers can hold the unmap back; the
        // last of them comes here on its way out. MappedRegion.close() is idempotent.
        if (state.get() == CLOSED && readers.quiescent())
        {
            region.close();
        }
    }

    /**
     * Configuration of a {@link BlockSlab}: slot size, total capacity, and an optional backing file (anonymous
     * memory when none). Defaults: 1 MiB slots, anonymous; the capacity has no default.
     */
    public static final class Context
    {
        private final ConcludeOnce concluded = new ConcludeOnce();
        private int slotSize = 1024 * 1024;
        private long capacityBytes = -1;
        private Path file;

        /**
         * Sets the slot size.
         *
         * @param slotSize power of two in [{@link #MIN_SLOT_SIZE}, {@link #MAX_SLOT_SIZE}].
         * @return this.
         */
        public Context slotSize(final int slotSize)
        {
            this.slotSize = slotSize;
            return this;
        }

        /**
         * Returns the slot size.
         *
         * @return slot size in bytes.
         */
        public int slotSize()
        {
            return slotSize;
        }

        /**
         * Sets the total capacity.
         *
         * @param capacityBytes bytes, a positive multiple of the slot size.
         * @return this.
         */
        public Context capacityBytes(final long capacityBytes)
        {
            this.capacityBytes = capacityBytes;
            return this;
        }

        /**
         * Returns the total capacity.
         *
         * @return capacity in bytes, -1 when unset.
         */
        public long capacityBytes()
        {
            return capacityBytes;
        }

        /**
         * Backs the slab with a new file (which must not exist yet) instead of anonymous memory; the file stays
         * on disk after close.
         *
         * @param file the file to create, or null for anonymous memory.
         * @return this.
         */
        public Context file(final Path file)
        {
            this.file = file;
            return this;
        }

        /**
         * Returns the backing file.
         *
         * @return the file, or null for anonymous memory.
         */
        public Path file()
        {
            return file;
        }

        /**
         * Validates the configuration.
         *
         * @return this.
         * @throws IllegalArgumentException naming the first setting that is wrong.
         */
        public Context conclude()
        {
            concluded.conclude(this);
            if (!isSlotSize(slotSize))
            {
                throw new IllegalArgumentException("slotSize must be a power of two in [" + MIN_SLOT_SIZE + ", " +
                    MAX_SLOT_SIZE + "]: " + slotSize);
            }
            if (capacityBytes <= 0)
            {
                throw new IllegalArgumentException("capacityBytes must be set and > 0: " + capacityBytes);
            }
            if (capacityBytes % slotSize != 0)
            {
                throw new IllegalArgumentException(
                    "capacityBytes must be a multiple of slotSize " + slotSize + ": " + capacityBytes);
            }
            // One queue entry per slot; keep the free-list array a sane Java array.
            if (capacityBytes / slotSize > (1 << 30))
            {
                throw new IllegalArgumentException("too many slots (max 2^30): capacityBytes " + capacityBytes +
                    " / slotSize " + slotSize);
            }
            return this;
        }

        /**
         * {@inheritDoc}
         */
        public String toString()
        {
            return "BlockSlab.Context{slotSize=" + slotSize + ", capacityBytes=" + capacityBytes +
                ", file=" + file + '}';
        }
    }
}
