package dev.offcache.core.slab;

import java.util.ArrayList;
import java.util.List;

import dev.offcache.core.region.MappedRegion;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.agrona.MutableDirectBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The slab against a model: a list of handles, each with the reference count the model expects and the stamp its
 * owner wrote into the slot.
 */
class BlockSlabProperties
{
    private static final int SLOT = 4096;

    private static final class ModelHandle
    {
        final BlockRef ref;
        final MutableDirectBuffer view;
        final long stamp;
        int refCount = 1;

        ModelHandle(final BlockRef ref, final long stamp)
        {
            this.ref = ref;
            this.view = ref.buffer();
            this.stamp = stamp;
        }
    }

    @Property(tries = 300)
    void slabBehavesLikeTheModel(
        @ForAll @IntRange(min = 1, max = 6) final int slotCount,
        @ForAll @Size(max = 120) final List<@IntRange(min = 0, max = 399) Integer> operations)
    {
        final long mappingsBefore = MappedRegion.liveMappings();
        final BlockSlab slab = BlockSlab.anonymous((long) slotCount * SLOT, SLOT);
        final List<ModelHandle> handles = new ArrayList<>();
        long nextStamp = 1;

        for (final int operation : operations)
        {
            final int kind = operation % 4;
            final ModelHandle target = handles.isEmpty() ? null : handles.get((operation / 4) % handles.size());
            final int modelLive = (int) handles.stream().filter((h) -> h.refCount > 0).count();

            if (kind == 0 || target == null)
            {
                final BlockRef ref = slab.tryAllocate();
                if (modelLive == slotCount)
                {
                    assertNull(ref, "allocation beyond capacity");
                }
                else
                {
                    assertNotNull(ref, "free slot not handed out");
                    for (final ModelHandle other : handles)
                    {
                        if (other.refCount > 0)
                        {
                            assertTrue(other.ref.slotIndex() != ref.slotIndex(), "slot handed out twice");
                        }
                    }
                    final ModelHandle handle = new ModelHandle(ref, nextStamp++);
                    handle.view.putLong(0, handle.stamp);
                    handle.view.putLong(SLOT - Long.BYTES, handle.stamp);
                    ref.length(Long.BYTES);
                    handles.add(handle);
                }
            }
            else if (kind == 1)
            {
                assertEquals(target.refCount > 0, target.ref.tryRetain());
                if (target.refCount > 0)
                {
                    target.refCount++;
                }
            }
            else
            {
                if (target.refCount > 0)
                {
                    target.ref.release();
                    target.refCount--;
                    if (target.refCount == 0)
                    {
                        // Released memory is not reachable through the handle or the view it gave out.
                        assertThrows(IllegalStateException.class, target.ref::buffer);
                        assertEquals(0, target.view.capacity());
                    }
                }
                else
                {
                    assertThrows(IllegalStateException.class, target.ref::release);
                }
            }
            checkAgainstModel(slab, handles, slotCount);
        }

        for (final ModelHandle handle : handles)
        {
            while (handle.refCount > 0)
            {
                handle.ref.release();
                handle.refCount--;
            }
        }
        assertEquals(0, slab.liveSlots());
        assertEquals(slotCount, slab.freeSlots());
        slab.close();
        assertEquals(mappingsBefore, MappedRegion.liveMappings());
    }

    private static void checkAgainstModel(final BlockSlab slab, final List<ModelHandle> handles, final int slotCount)
    {
        int live = 0;
        for (final ModelHandle handle : handles)
        {
            assertEquals(handle.refCount, handle.ref.refCount());
            if (handle.refCount > 0)
            {
                live++;
                assertFalse(handle.ref.isReleased());
                assertEquals(handle.stamp, handle.ref.buffer().getLong(0), "slot content changed under its owner");
                assertEquals(handle.stamp, handle.ref.buffer().getLong(SLOT - Long.BYTES));
                assertEquals(Long.BYTES, handle.ref.length());
            }
            else
            {
                assertTrue(handle.ref.isReleased());
            }
        }
        assertEquals(live, slab.liveSlots());
        assertEquals(slotCount - live, slab.freeSlots());
    }
}
