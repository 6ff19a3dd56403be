package dev.offcache.core.slab;

import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import dev.offcache.core.region.MappedRegion;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BlockSlabTest
{
    private static final int SLOT = 4096;

    @TempDir
    Path dir;

    private long mappingsBefore;

    @BeforeEach
    void countMappings()
    {
        mappingsBefore = MappedRegion.liveMappings();
    }

    @AfterEach
    void noMappingLeaks()
    {
        assertEquals(mappingsBefore, MappedRegion.liveMappings(), "mappings leaked by the test");
    }

    @Test
    void aSlotsByteBufferWritesStraightIntoTheSlot()
    {
        try (BlockSlab slab = BlockSlab.anonymous(4L * SLOT, SLOT))
        {
            final BlockRef first = slab.tryAllocate();
            final BlockRef second = slab.tryAllocate();
            final ByteBuffer bytes = second.byteBuffer();
            assertTrue(bytes.isDirect());
            assertEquals(0, bytes.position());
            assertEquals(SLOT, bytes.limit());
            for (int i = 0; i < SLOT; i++)
            {
                bytes.put((byte) (i * 7));
            }
            for (int i = 0; i < SLOT; i++)
            {
                assertEquals((byte) (i * 7), second.buffer().getByte(i), "byte " + i);
            }
            first.buffer().setMemory(0, SLOT, (byte) 0);
            assertEquals((byte) 7, second.buffer().getByte(1), "the neighbouring slot's write stays out");
            first.release();
            second.release();
            assertThrows(IllegalStateException.class, second::byteBuffer);
            assertEquals(0, slab.liveSlots());
        }
    }

    @Test
    void aNewLengthForgetsTheRecordedChecksums()
    {
        try (BlockSlab slab = BlockSlab.anonymous(4L * SLOT, SLOT))
        {
            final BlockRef ref = slab.tryAllocate();
            final int[] chunks = {1, 2};
            ref.length(100).crc32c(-7).chunkCrc32c(chunks);
            assertEquals(0xFFFF_FFF9L, ref.crc32c());
            assertTrue(chunks == ref.chunkCrc32c());
            ref.length(50);
            assertEquals(-1, ref.crc32c(), "new bytes: the old CRC no longer describes them");
            assertNull(ref.chunkCrc32c());
            ref.release();
            assertThrows(IllegalStateException.class, ref::chunkCrc32c);
        }
    }

    @Test
    void allocatesEverySlotOnceThenReportsExhaustion()
    {
        try (BlockSlab slab = BlockSlab.anonymous(8L * SLOT, SLOT))
        {
            assertEquals(SLOT, slab.slotSize());
            assertEquals(8, slab.slotCount());
            assertEquals(8, slab.freeSlots());
            final List<BlockRef> refs = new ArrayList<>();
            final Set<Integer> indexes = new HashSet<>();
            for (int i = 0; i < 8; i++)
            {
                final BlockRef ref = slab.tryAllocate();
                assertNotNull(ref, "slot " + i);
                assertTrue(indexes.add(ref.slotIndex()), "slot handed out twice: " + ref.slotIndex());
                assertEquals(SLOT, ref.buffer().capacity());
                assertEquals(1, ref.refCount());
                refs.add(ref);
            }
            assertNull(slab.tryAllocate());
            assertEquals(8, slab.liveSlots());
            assertEquals(0, slab.freeSlots());

            refs.get(3).release();
            assertEquals(7, slab.liveSlots());
            assertEquals(1, slab.freeSlots());
            final BlockRef again = slab.tryAllocate();
            assertEquals(refs.get(3).slotIndex(), again.slotIndex());
            refs.set(3, again);
            refs.forEach(BlockRef::release);
            assertEquals(0, slab.liveSlots());
            assertEquals(8, slab.freeSlots());
        }
    }

    @Test
    void slotsDoNotOverlap()
    {
        try (BlockSlab slab = BlockSlab.anonymous(4L * SLOT, SLOT))
        {
            final BlockRef[] refs = new BlockRef[4];
            for (int i = 0; i < refs.length; i++)
            {
                refs[i] = slab.tryAllocate();
                assertEquals(0, refs[i].buffer().addressOffset() % SLOT, "slot not page aligned");
                final int stamp = i + 1;
                refs[i].buffer().setMemory(0, SLOT, (byte) stamp);
            }
            for (int i = 0; i < refs.length; i++)
            {
                for (int offset = 0; offset < SLOT; offset += 512)
                {
                    assertEquals((byte) (i + 1), refs[i].buffer().getByte(offset));
                }
                assertEquals((byte) (i + 1), refs[i].buffer().getByte(SLOT - 1));
                refs[i].release();
            }
        }
    }

    @Test
    void slotReturnsOnlyWhenTheLastReaderLetsGo()
    {
        try (BlockSlab slab = BlockSlab.anonymous(SLOT, SLOT))
        {
            final BlockRef owner = slab.tryAllocate();
            owner.buffer().putLong(0, 99L);
            owner.length(8);
            assertTrue(owner.tryRetain());
            assertTrue(owner.tryRetain());
            assertEquals(3, owner.refCount());
            owner.release();
            assertNull(slab.tryAllocate(), "slot must stay taken while readers hold it");
            assertEquals(99L, owner.buffer().getLong(0));
            assertEquals(8, owner.length());
            owner.release();
            assertEquals(1, slab.liveSlots());
            owner.release();
            assertTrue(owner.isReleased());
            assertEquals(0, slab.liveSlots());
            assertFalse(owner.tryRetain(), "no retain after the last release");
            final BlockRef next = slab.tryAllocate();
            assertNotNull(next);
            next.release();
        }
    }

    @Test
    void useAfterReleaseThrowsAndTheOldViewNoLongerReachesTheSlot()
    {
        try (BlockSlab slab = BlockSlab.anonymous(SLOT, SLOT))
        {
            final BlockRef ref = slab.tryAllocate();
            final var staleView = ref.buffer();
            ref.release();
            assertThrows(IllegalStateException.class, ref::buffer);
            assertThrows(IllegalStateException.class, ref::length);
            assertThrows(IllegalStateException.class, () -> ref.length(1));
            final IllegalStateException doubleRelease = assertThrows(IllegalStateException.class, ref::release);
            assertTrue(doubleRelease.getMessage().contains("already released"), doubleRelease.getMessage());
            assertEquals(0, staleView.capacity());
            assertThrows(IndexOutOfBoundsException.class, () -> staleView.putLong(0, 1L));
        }
    }

    @Test
    void staleHandleCannotTouchTheNextOccupantOfItsSlot()
    {
        try (BlockSlab slab = BlockSlab.anonymous(SLOT, SLOT))
        {
            final BlockRef stale = slab.tryAllocate();
            stale.release();
            final BlockRef occupant = slab.tryAllocate();
            assertEquals(stale.slotIndex(), occupant.slotIndex());
            occupant.buffer().putLong(0, 1234L);

            assertFalse(stale.tryRetain());
            assertThrows(IllegalStateException.class, stale::release);
            assertThrows(IllegalStateException.class, stale::buffer);
            assertEquals(1, occupant.refCount(), "stale handle changed the occupant's count");
            assertEquals(1234L, occupant.buffer().getLong(0));
            occupant.release();
        }
    }

    @Test
    void lengthIsValidatedAgainstTheSlotSize()
    {
        try (BlockSlab slab = BlockSlab.anonymous(SLOT, SLOT))
        {
            final BlockRef ref = slab.tryAllocate();
            assertEquals(0, ref.length());
            assertEquals(SLOT, ref.length(SLOT).length());
            assertThrows(IllegalArgumentException.class, () -> ref.length(SLOT + 1));
            assertThrows(IllegalArgumentException.class, () -> ref.length(-1));
            assertEquals(SLOT, ref.length());
            ref.release();
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -4096, 1024, 4095, 6144, 12288, 32 * 1024 * 1024, Integer.MIN_VALUE})
    void badSlotSizesAreRejected(final int slotSize)
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> BlockSlab.anonymous(1 << 26, slotSize));
        assertTrue(ex.getMessage().contains("slotSize"), ex.getMessage());
    }

    @Test
    void slotSizeBoundsAreAccepted()
    {
        try (BlockSlab small = BlockSlab.anonymous(BlockSlab.MIN_SLOT_SIZE, BlockSlab.MIN_SLOT_SIZE);
            BlockSlab large = BlockSlab.anonymous(BlockSlab.MAX_SLOT_SIZE, BlockSlab.MAX_SLOT_SIZE))
        {
            assertEquals(1, small.slotCount());
            assertEquals(1, large.slotCount());
            final BlockRef ref = large.tryAllocate();
            ref.buffer().putByte(BlockSlab.MAX_SLOT_SIZE - 1, (byte) 1);
            ref.release();
        }
    }

    @Test
    void badCapacitiesAreRejected()
    {
        assertThrows(IllegalArgumentException.class, () -> BlockSlab.anonymous(0, SLOT));
        assertThrows(IllegalArgumentException.class, () -> BlockSlab.anonymous(-SLOT, SLOT));
        final IllegalArgumentException notMultiple = assertThrows(IllegalArgumentException.class,
            () -> BlockSlab.anonymous(SLOT + 1, SLOT));
        assertTrue(notMultiple.getMessage().contains("multiple"), notMultiple.getMessage());
        final IllegalArgumentException unset = assertThrows(IllegalArgumentException.class,
            () -> BlockSlab.open(new BlockSlab.Context().slotSize(SLOT)));
        assertTrue(unset.getMessage().contains("capacityBytes"), unset.getMessage());
    }

    @Test
    void fileBackedSlabWritesThroughToItsFile() throws Exception
    {
        final Path file = dir.resolve("slab.dat");
        final BlockSlab.Context context = new BlockSlab.Context().slotSize(SLOT).capacityBytes(4L * SLOT).file(file);
        try (BlockSlab slab = BlockSlab.open(context))
        {
            final BlockRef ref = slab.tryAllocate();
            ref.buffer().putLong(16, 0xCAFEL);
            ref.release();
        }
        assertEquals(4L * SLOT, Files.size(file));
        try (MappedRegion region = MappedRegion.mapExistingFile(file, true))
        {
            assertEquals(0xCAFEL, region.getLong(16));
        }
        assertThrows(UncheckedIOException.class,
            () -> BlockSlab.open(new BlockSlab.Context().slotSize(SLOT).capacityBytes(4L * SLOT).file(file)),
            "file exists already");
    }

    @Test
    void closeWithNoLiveSlotsUnmapsAtOnce()
    {
        final BlockSlab slab = BlockSlab.anonymous(2L * SLOT, SLOT);
        assertEquals(mappingsBefore + 1, MappedRegion.liveMappings());
        slab.tryAllocate().release();
        slab.close();
        slab.close();
        assertTrue(slab.isClosed());
        assertTrue(slab.isUnmapped());
        assertEquals(mappingsBefore, MappedRegion.liveMappings());
        final IllegalStateException ex = assertThrows(IllegalStateException.class, slab::tryAllocate);
        assertTrue(ex.getMessage().contains("closed"), ex.getMessage());
    }

    @Test
    void closeWithLiveSlotsReportsThemAndUnmapsWhenTheLastIsReleased()
    {
        final BlockSlab slab = BlockSlab.anonymous(2L * SLOT, SLOT);
        final BlockRef first = slab.tryAllocate();
        final BlockRef second = slab.tryAllocate();
        first.buffer().putInt(0, 5);
        assertTrue(first.tryRetain());

        final IllegalStateException ex = assertThrows(IllegalStateException.class, slab::close);
        assertTrue(ex.getMessage().contains("2 live slot"), ex.getMessage());
        assertTrue(slab.isClosed());
        assertFalse(slab.isUnmapped());
        assertThrows(IllegalStateException.class, slab::tryAllocate);

        // Readers still holding references keep working on mapped memory.
        assertEquals(5, first.buffer().getInt(0));
        second.release();
        first.release();
        assertFalse(slab.isUnmapped());
        assertEquals(mappingsBefore + 1, MappedRegion.liveMappings());
        first.release();
        assertTrue(slab.isUnmapped());
        assertEquals(0, slab.liveSlots());
        assertEquals(mappingsBefore, MappedRegion.liveMappings());
        slab.close();
    }

    @Test
    void tryCopyCopiesALiveSlotAndRefusesAReleasedOne()
    {
        try (BlockSlab slab = BlockSlab.anonymous(2L * SLOT, SLOT))
        {
            final BlockRef ref = slab.tryAllocate();
            for (int i = 0; i < SLOT; i++)
            {
                ref.buffer().putByte(i, (byte) (i * 13));
            }
            ref.length(SLOT);
            final UnsafeBuffer destination = new UnsafeBuffer(new byte[SLOT + 8]);
            assertTrue(ref.tryCopy(100, destination, 8, 300));
            for (int i = 0; i < 300; i++)
            {
                assertEquals((byte) ((100 + i) * 13), destination.getByte(8 + i));
            }
            assertEquals(0, destination.getByte(7), "nothing written before the range");
            assertEquals(0, destination.getByte(308), "nothing written after the range");
            assertTrue(ref.tryCopy(SLOT, destination, 0, 0), "an empty copy at the end of the slot");
            assertEquals(1, ref.refCount(), "tryCopy takes no reference");
            assertEquals(2, slab.optimisticCopies());
            assertEquals(0, slab.optimisticCopyConflicts());

            assertThrows(IndexOutOfBoundsException.class, () -> ref.tryCopy(-1, destination, 0, 1));
            assertThrows(IndexOutOfBoundsException.class, () -> ref.tryCopy(0, destination, 0, -1));
            final IndexOutOfBoundsException past =
                assertThrows(IndexOutOfBoundsException.class, () -> ref.tryCopy(SLOT - 10, destination, 0, 11));
            assertTrue(past.getMessage().contains("outside slot"), past.getMessage());

            ref.release();
            assertFalse(ref.tryCopy(0, destination, 0, 8), "a released handle copies nothing valid");
        }
    }

    @Test
    void tryCopyChecksTheDestinationAndGrowsAnExpandableOne()
    {
        final BlockSlab slab = BlockSlab.anonymous(2L * SLOT, SLOT);
        final BlockRef ref = slab.tryAllocate();
        for (int i = 0; i < SLOT; i++)
        {
            ref.buffer().putByte(i, (byte) (i * 7));
        }
        final byte[] small = new byte[64];
        final UnsafeBuffer tooSmall = new UnsafeBuffer(small);
        assertThrows(IndexOutOfBoundsException.class, () -> ref.tryCopy(0, tooSmall, 32, 33));
        assertThrows(IndexOutOfBoundsException.class, () -> ref.tryCopy(0, tooSmall, -1, 8));
        assertEquals(0, small[0], "nothing copied into a destination too small for the range");
        final ExpandableArrayBuffer growing = new ExpandableArrayBuffer(16);
        assertTrue(ref.tryCopy(10, growing, 4, 1000));
        assertTrue(growing.capacity() >= 1004, "grown to hold the range: " + growing.capacity());
        for (int i = 0; i < 1000; i++)
        {
            assertEquals((byte) ((10 + i) * 7), growing.getByte(4 + i));
        }
        ref.release();
        slab.close();
        assertTrue(slab.isUnmapped(), "a copy that threw left the reader guard");
    }

    @Test
    void closeWaitsForACopyInProgressAndTheCopyUnmapsOnItsWayOut()
    {
        final BlockSlab slab = BlockSlab.anonymous(2L * SLOT, SLOT);
        final BlockRef ref = slab.tryAllocate();
        // A reader inside its copy, as BlockRef.tryCopy is between its two halves.
        final int stripe = slab.beginCopy();
        assertTrue(stripe >= 0);
        ref.release();
        slab.close();
        assertTrue(slab.isClosed());
        assertFalse(slab.isUnmapped(), "unmapped under a reader that is still copying");
        assertEquals(mappingsBefore + 1, MappedRegion.liveMappings());
        assertEquals(-1, slab.beginCopy(), "a closed slab admits no new copy");
        assertFalse(slab.isUnmapped());
        slab.endCopy(stripe, false);
        assertTrue(slab.isUnmapped(), "the last reader out unmaps");
        assertEquals(2, slab.optimisticCopyConflicts());
        assertEquals(0, slab.optimisticCopies());
    }

    @Test
    void theLastReleaseAfterCloseWaitsForACopyInProgress()
    {
        final BlockSlab slab = BlockSlab.anonymous(2L * SLOT, SLOT);
        final BlockRef ref = slab.tryAllocate();
        final int stripe = slab.beginCopy();
        assertThrows(IllegalStateException.class, slab::close, "closed with a live slot");
        ref.release();
        assertEquals(0, slab.liveSlots());
        assertFalse(slab.isUnmapped(), "the last release unmapped under a reader that is still copying");
        slab.endCopy(stripe, true);
        assertTrue(slab.isUnmapped());
        assertEquals(1, slab.optimisticCopies());
    }

    @Test
    void aClosedSlabsLiveSlotsAreCopiedUnderAReferenceOnly()
    {
        final BlockSlab slab = BlockSlab.anonymous(2L * SLOT, SLOT);
        final BlockRef ref = slab.tryAllocate();
        ref.buffer().putLong(0, 77L);
        assertThrows(IllegalStateException.class, slab::close);
        final UnsafeBuffer destination = new UnsafeBuffer(new byte[8]);
        assertFalse(ref.tryCopy(0, destination, 0, 8), "closing: copies fall back to tryRetain");
        assertTrue(ref.tryRetain(), "which still works while the slot is live");
        assertEquals(77L, ref.buffer().getLong(0));
        ref.release();
        ref.release();
        assertTrue(slab.isUnmapped());
    }
}
