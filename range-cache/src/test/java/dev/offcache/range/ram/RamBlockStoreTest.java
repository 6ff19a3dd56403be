package dev.offcache.range.ram;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

import dev.offcache.core.slab.BlockRef;
import dev.offcache.range.policy.PolicyKind;
import dev.offcache.range.policy.WindowTinyLfuPolicy;
import dev.offcache.range.store.FetchClass;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RamBlockStoreTest
{
    private static final int BLOCK = 4096;

    static RamBlockStore store(final int blocks)
    {
        // Every hit recorded, so that the policy's decisions below follow the accesses exactly.
        return new RamBlockStore(
            new RamBlockStore.Context().blockSize(BLOCK).capacityBytes((long) blocks * BLOCK).hitSampling(1));
    }

    static boolean put(final RamBlockStore store, final long key, final FetchClass fetchClass)
    {
        return store.put(key, Blocks.contentOf(key, BLOCK), 8, Blocks.lengthOf(key, BLOCK), fetchClass);
    }

    static void assertHit(final RamBlockStore store, final long key)
    {
        final BlockRef ref = store.acquire(key);
        assertNotNull(ref, "block " + key);
        assertEquals(-1, Blocks.firstMismatch(key, ref.buffer(), ref.length(), BLOCK));
        ref.release();
    }

    @Test
    void returnsExactlyTheBytesPutAndCountsPuts()
    {
        try (RamBlockStore store = store(8))
        {
            assertNull(store.acquire(5));
            assertTrue(put(store, 5, FetchClass.DEMAND));
            assertTrue(put(store, 2, FetchClass.DEMAND));
            for (final long key : new long[] {5, 2})
            {
                final BlockRef ref = store.acquire(key);
                assertNotNull(ref);
                assertEquals(-1, Blocks.firstMismatch(key, ref.buffer(), ref.length(), BLOCK));
                ref.release();
            }
            assertEquals(2, store.puts());
            assertEquals(Blocks.lengthOf(5, BLOCK) + Blocks.lengthOf(2, BLOCK), store.sizeBytes());
            assertEquals(2, store.liveSlots());
            assertTrue(put(store, 5, FetchClass.DEMAND), "already held: accepted without a second copy");
            assertEquals(2, store.puts());
        }
    }

    @Test
    void copiesIntoACallersBufferAndReturnsTheBlocksLength()
    {
        try (RamBlockStore store = store(4))
        {
            put(store, 2, FetchClass.DEMAND);
            final int length = Blocks.lengthOf(2, BLOCK);
            final UnsafeBuffer destination = new UnsafeBuffer(new byte[BLOCK]);
            assertEquals(length, store.read(2, 10, destination, 5, 100));
            for (int i = 0; i < 100; i++)
            {
                assertEquals(Blocks.byteAt(2, 10 + i), destination.getByte(5 + i));
            }
            assertEquals(0, destination.getByte(105), "nothing past the range");

            destination.setMemory(0, BLOCK, (byte) 0x55);
            assertEquals(length, store.read(2, 20, destination, 0, BLOCK), "stops at the end of the block");
            for (int i = 0; i < length - 20; i++)
            {
                assertEquals(Blocks.byteAt(2, 20 + i), destination.getByte(i));
            }
            assertEquals(0x55, destination.getByte(length - 20), "nothing past the end of the block");

            destination.setMemory(0, BLOCK, (byte) 0x55);
            assertEquals(length, store.read(2, length + 1, destination, 0, 1), "past the end: nothing copied");
            assertEquals(0x55, destination.getByte(0));

            assertEquals(-1, store.read(99, 0, destination, 0, 10));
            assertThrows(IllegalArgumentException.class, () -> store.read(2, -1, destination, 0, 1));
            assertThrows(IllegalArgumentException.class, () -> store.read(2, 0, destination, 0, -1));
            assertEquals(0, store.copyConflicts());
            assertEquals(1, store.liveSlots(), "copies hold no reference");
        }
    }

    @Test
    void capacityHoldsAndEvictionsAreCounted()
    {
        try (RamBlockStore store = store(8))
        {
            assertEquals(8, store.capacityBlocks());
            for (long key = 0; key < 100; key++)
            {
                assertTrue(put(store, key, FetchClass.DEMAND));
                assertTrue(store.residentBlocks() <= 8);
                assertTrue(store.liveSlots() <= 8);
                assertTrue(store.sizeBytes() <= 8L * BLOCK);
            }
            assertEquals(8, store.residentBlocks());
            assertEquals(92, store.evictions());
            int resident = 0;
            for (long key = 0; key < 100; key++)
            {
                final BlockRef ref = store.acquire(key);
                if (ref != null)
                {
                    resident++;
                    assertEquals(-1, Blocks.firstMismatch(key, ref.buffer(), ref.length(), BLOCK));
                    ref.release();
                }
            }
            assertEquals(8, resident);
        }
    }

    @Test
    void aReaderKeepsAnEvictedBlockIntactUntilItReleases()
    {
        // LRU, so that the eviction order is obvious; pinning does not depend on the policy.
        final RamBlockStore store = new RamBlockStore(
            new RamBlockStore.Context().blockSize(BLOCK).capacityBytes(2L * BLOCK).policy(PolicyKind.LRU));
        put(store, 1, FetchClass.DEMAND);
        final BlockRef held = store.acquire(1);
        for (long key = 10; key < 20; key++)
        {
            put(store, key, FetchClass.DEMAND);
        }
        assertNull(store.acquire(1), "evicted");
        assertEquals(-1, Blocks.firstMismatch(1, held.buffer(), held.length(), BLOCK), "bytes unchanged");
        assertTrue(store.liveSlots() <= 3);
        held.release();
        assertEquals(store.residentBlocks(), store.liveSlots());
        store.close();
        assertEquals(0, store.liveSlots());
    }

    @Test
    void aFullStoreOfPinnedSlotsDeclinesInsteadOfBlocking()
    {
        try (RamBlockStore store = store(1))
        {
            put(store, 1, FetchClass.DEMAND);
            final BlockRef held = store.acquire(1);
            assertFalse(put(store, 2, FetchClass.DEMAND), "the only slot is held by a reader");
            assertEquals(1, store.rejections());
            assertEquals(-1, Blocks.firstMismatch(1, held.buffer(), held.length(), BLOCK));
            held.release();
            assertTrue(put(store, 2, FetchClass.DEMAND));
            assertHit(store, 2);
        }
    }

    @Test
    void prefetchedBlocksHaveLowerPriority()
    {
        try (RamBlockStore store = store(10))
        {
            for (long key = 0; key < 10; key++)
            {
                store.acquire(key);
                put(store, key, FetchClass.DEMAND);
                for (int i = 0; i < 3; i++)
                {
                    store.acquire(key).release();
                }
            }
            store.tryDrain();
            assertFalse(put(store, 100, FetchClass.PREFETCH), "full of hot blocks: a cold prefetch is declined");
            assertEquals(1, store.rejections());
            assertNull(store.acquire(100));
            assertEquals(10, store.residentBlocks());
        }
        try (RamBlockStore store = store(10))
        {
            assertTrue(put(store, 100, FetchClass.PREFETCH), "room left: admitted");
            // The engine's protocol: a demand put follows a miss, which the policy counts.
            for (long key = 0; key < 9; key++)
            {
                assertNull(store.acquire(key));
                put(store, key, FetchClass.DEMAND);
            }
            assertNull(store.acquire(50));
            put(store, 50, FetchClass.DEMAND);
            assertNull(store.acquire(100), "the unread prefetched block is the first to go");
        }
    }

    @Test
    void withTheDefaultRecordingAHotBlockReadDuringAScanSurvivesIt()
    {
        // The default recording: the one put's credit covers about the first 80 of block 0's 400 hits, the rest are
        // recorded about 1 in 17; the scan's puts grant credit again, so its reads of block 0 (one per 4 scanned
        // blocks) all count, and the scanned blocks, each missed once and never hit, never outrank it.
        // (Without those reads during the scan, in this 8-block store block 0 survived only 62-72 runs in 200: the
        // hill climber's sample then falls inside the sampled run of hits. docs/range-cache.md, RAM block store.)
        try (RamBlockStore store = new RamBlockStore(
            new RamBlockStore.Context().blockSize(BLOCK).capacityBytes(8L * BLOCK)))
        {
            assertEquals(16, RamBlockStore.Context.DEFAULT_HIT_SAMPLING);
            assertNull(store.acquire(0));
            put(store, 0, FetchClass.DEMAND);
            final UnsafeBuffer destination = new UnsafeBuffer(new byte[BLOCK]);
            for (int i = 0; i < 200; i++)
            {
                store.acquire(0).release();
                assertEquals(Blocks.lengthOf(0, BLOCK), store.read(0, 0, destination, 0, 16));
            }
            for (long key = 100; key < 164; key++)
            {
                assertNull(store.acquire(key));
                put(store, key, FetchClass.DEMAND);
                if (key % 4 == 0)
                {
                    assertHit(store, 0);
                }
            }
            assertHit(store, 0);
        }
    }

    @Test
    void whileBlocksAreStoredEveryHitIsRecordedAsIfUnsampled()
    {
        // Misses every few accesses: each put grants the readers full-rate drains, so with the default sampling the
        // store makes exactly the decisions of the policy driven with every access (a random 1 in 16 sample of the
        // hits did not: 11,223, 11,488 and 11,458 hits in three runs instead of 11,352 on this sequence).
        final long[] keys = new long[20_000];
        final java.util.SplittableRandom random = new java.util.SplittableRandom(7);
        for (int i = 0; i < keys.length; i++)
        {
            keys[i] = (long) Math.floor(Math.pow(300, random.nextDouble())) + (i % 97 == 0 ? 1000 + i : 0);
        }
        final WindowTinyLfuPolicy reference = new WindowTinyLfuPolicy(32);
        long referenceHits = 0;
        for (final long key : keys)
        {
            reference.recordAccess(key);
            if (reference.contains(key))
            {
                referenceHits++;
            }
            else
            {
                if (reference.size() == reference.capacity())
                {
                    reference.evict();
                }
                reference.add(key, false);
            }
        }
        long hits = 0;
        try (RamBlockStore store = new RamBlockStore(
            new RamBlockStore.Context().blockSize(BLOCK).capacityBytes(32L * BLOCK)))
        {
            for (final long key : keys)
            {
                final BlockRef ref = store.acquire(key);
                if (ref != null)
                {
                    hits++;
                    ref.release();
                }
                else
                {
                    put(store, key, FetchClass.DEMAND);
                }
            }
            assertNull(store.bookkeepingProblem());
        }
        assertTrue(referenceHits > 1000 && referenceHits < keys.length - 1000, "a mix: " + referenceHits);
        assertEquals(referenceHits, hits);
    }

    @Test
    void aLongRunOfHitsIsSampled()
    {
        // No puts, so no credit: past the first stripe's worth, hits are recorded about 1 in 16, and a drain is
        // rare (what keeps the all-hit copy path cheap).
        try (RamBlockStore store = new RamBlockStore(
            new RamBlockStore.Context().blockSize(BLOCK).capacityBytes(8L * BLOCK)))
        {
            for (long key = 0; key < 8; key++)
            {
                put(store, key, FetchClass.DEMAND);
            }
            final UnsafeBuffer destination = new UnsafeBuffer(new byte[64]);
            for (int i = 0; i < 200_000; i++)
            {
                assertEquals(Blocks.lengthOf(i & 7, BLOCK), store.read(i & 7, 0, destination, 0, 64));
            }
            store.tryDrain();
            final long drains = store.creditedDrains();
            assertTrue(drains <= 8 * RamBlockStore.DRAINS_PER_PUT, "the puts' credit only: " + drains);
            final long recorded = store.recordedAccesses();
            assertTrue(recorded > 200_000 / 64 && recorded < 200_000 / 8, "recorded " + recorded + " of 200,000");
            assertNull(store.bookkeepingProblem());
        }
    }

    @Test
    void badHitSamplingIsRefusedNamingTheSetting()
    {
        for (final int bad : new int[] {0, 3, 2048, -8})
        {
            final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
                () -> new RamBlockStore.Context().hitSampling(bad).conclude());
            assertTrue(ex.getMessage().contains("hit sampling") && ex.getMessage().contains(String.valueOf(bad)),
                ex.getMessage());
        }
        assertEquals(1, new RamBlockStore.Context().hitSampling(1).conclude().hitSampling());
    }

    @Test
    void lruStoreWorksToo()
    {
        try (RamBlockStore store = new RamBlockStore(
            new RamBlockStore.Context().blockSize(BLOCK).capacityBytes(3L * BLOCK).policy(PolicyKind.LRU)
                .hitSampling(1)))
        {
            put(store, 1, FetchClass.DEMAND);
            put(store, 2, FetchClass.DEMAND);
            put(store, 3, FetchClass.DEMAND);
            store.acquire(1).release();
            store.tryDrain();
            put(store, 4, FetchClass.DEMAND);
            assertNull(store.acquire(2));
            assertHit(store, 1);
        }
    }

    @Test
    void closeReturnsEverySlotAndLaterCallsAreHarmless()
    {
        final RamBlockStore store = store(4);
        put(store, 1, FetchClass.DEMAND);
        put(store, 2, FetchClass.DEMAND);
        final BlockRef held = store.acquire(2);
        store.close();
        assertEquals(1, store.liveSlots(), "the reader's slot lives until it releases");
        assertEquals(-1, Blocks.firstMismatch(2, held.buffer(), held.length(), BLOCK));
        held.release();
        assertEquals(0, store.liveSlots());
        assertNull(store.acquire(1));
        assertFalse(put(store, 3, FetchClass.DEMAND));
        assertEquals(0, store.sizeBytes());
        store.close();
    }

    @Test
    void rejectsBadInputWithClearMessages()
    {
        final IllegalArgumentException tooSmall = assertThrows(IllegalArgumentException.class,
            () -> new RamBlockStore(new RamBlockStore.Context().capacityBytes(512 * 1024)));
        assertTrue(tooSmall.getMessage().contains("smaller than one block"), tooSmall.getMessage());
        assertThrows(IllegalArgumentException.class,
            () -> new RamBlockStore(new RamBlockStore.Context().capacityBytes(0)));
        assertThrows(IllegalArgumentException.class,
            () -> new RamBlockStore(new RamBlockStore.Context().blockSize(3000)));
        assertEquals(200L << 20, new RamBlockStore.Context().capacityBytes());

        try (RamBlockStore store = store(2))
        {
            final UnsafeBuffer source = new UnsafeBuffer(new byte[2 * BLOCK]);
            assertThrows(IllegalArgumentException.class, () -> store.put(1, source, 0, BLOCK + 1, FetchClass.DEMAND));
            assertThrows(IllegalArgumentException.class, () -> store.put(1, source, 0, 0, FetchClass.DEMAND));
            assertThrows(IllegalArgumentException.class, () -> store.put(-1, source, 0, 10, FetchClass.DEMAND));
            assertThrows(IndexOutOfBoundsException.class,
                () -> store.put(1, source, 2 * BLOCK - 10, BLOCK, FetchClass.DEMAND));
            assertEquals(0, store.liveSlots(), "a failed copy returns its slot");
            assertEquals(0, store.residentBlocks());
        }
    }

    @Test
    void theHitPathDoesNotAllocate()
    {
        try (RamBlockStore store = store(64))
        {
            final List<Long> keys = new ArrayList<>();
            for (long key = 0; key < 64; key++)
            {
                put(store, key, FetchClass.DEMAND);
                keys.add(key);
            }
            final UnsafeBuffer destination = new UnsafeBuffer(new byte[BLOCK]);
            long sum = 0;
            for (int round = 0; round < 2000; round++)
            {
                for (long key = 0; key < 64; key++)
                {
                    sum += store.read(key, 0, destination, 0, 64);
                }
            }
            final com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            final long thread = Thread.currentThread().getId();
            final long before = threads.getThreadAllocatedBytes(thread);
            for (int round = 0; round < 2000; round++)
            {
                for (long key = 0; key < 64; key++)
                {
                    sum += store.read(key, 0, destination, 0, 64);
                    final BlockRef ref = store.acquire(key);
                    sum += ref.length();
                    ref.release();
                }
            }
            final long allocated = threads.getThreadAllocatedBytes(thread) - before;
            assertTrue(sum > 0);
            assertTrue(allocated < 4096, "256k hits allocated " + allocated + " bytes");
            assertEquals(64, keys.size());
        }
    }
}
