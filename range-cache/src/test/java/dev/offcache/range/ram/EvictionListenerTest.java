package dev.offcache.range.ram;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import dev.offcache.core.slab.BlockRef;
import dev.offcache.range.policy.PolicyKind;
import dev.offcache.range.store.FetchClass;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The store as the L2 server's RAM tier uses it: an {@link EvictionListener} that takes evicted blocks (a spill),
 * blocks it took readable until handed back, fill in place ({@link RamBlockStore#allocate()}, then
 * {@link RamBlockStore#publish}), spare slots, and {@link RamBlockStore#evictAll} before close.
 */
class EvictionListenerTest
{
    private static final int BLOCK = 4096;

    /** Takes every block published with {@code spill}, drops the others; counts each reference it is given. */
    private static final class Taker implements EvictionListener
    {
        final List<Long> evictedKeys = new ArrayList<>();
        final Map<BlockRef, Long> taken = new IdentityHashMap<>();
        final Set<BlockRef> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        int admitted;

        @Override
        public boolean evicted(final long blockKey, final BlockRef ownerRef, final boolean spill)
        {
            evictedKeys.add(blockKey);
            assertTrue(seen.add(ownerRef), "block " + blockKey + "'s reference handed over twice");
            if (spill)
            {
                taken.put(ownerRef, blockKey);
            }
            return spill;
        }

        @Override
        public void admitted(final long blockKey, final int length)
        {
            admitted++;
        }

        void handBackAll(final RamBlockStore store)
        {
            taken.forEach((ref, key) -> store.evictionDone(key, ref));
            taken.clear();
        }
    }

    private static RamBlockStore lru(final int blocks, final int spare, final EvictionListener listener)
    {
        return new RamBlockStore(new RamBlockStore.Context().blockSize(BLOCK).capacityBytes((long) blocks * BLOCK)
            .policy(PolicyKind.LRU).hitSampling(1).spareSlots(spare).evictionListener(listener));
    }

    /** Fill in place, as the server does: allocate, write the key's bytes into the slot, publish. */
    private static BlockRef fill(final RamBlockStore store, final long key, final boolean spill)
    {
        final BlockRef slot = store.allocate();
        assertNotNull(slot, "a slot for block " + key);
        final int length = Blocks.lengthOf(key, BLOCK);
        slot.buffer().putBytes(0, Blocks.contentOf(key, BLOCK), 8, length);
        slot.length(length);
        return store.publish(key, slot, spill);
    }

    private static void assertBlock(final long key, final BlockRef ref)
    {
        assertNotNull(ref, "block " + key + " is served");
        try
        {
            assertEquals(-1, Blocks.firstMismatch(key, ref.buffer(), ref.length(), BLOCK), "bytes of block " + key);
        }
        finally
        {
            ref.release();
        }
    }

    @Test
    void everyEvictedBlockIsHandedOverOnceInLeastRecentlyUsedOrderAndNoSlotLeaks()
    {
        final Taker taker = new Taker();
        final RamBlockStore store = lru(4, 3, taker);
        for (long key = 0; key < 4; key++)
        {
            fill(store, key, key % 2 == 0).release();
        }
        assertBlock(0, store.acquire(0)); // 0 is now the most recent: 1 goes first
        for (long key = 4; key < 10; key++)
        {
            fill(store, key, key % 2 == 0).release();
        }
        assertEquals(List.of(1L, 2L, 3L, 0L, 4L, 5L), taker.evictedKeys, "least recently used first, each once");
        assertEquals(6, store.evictions());
        assertEquals(10, taker.admitted);
        assertEquals(4, store.residentBlocks());
        assertEquals(4 + 3, store.liveSlots(), "resident blocks plus the three the listener took (0, 2, 4)");
        assertNull(store.bookkeepingProblem());

        taker.handBackAll(store);
        assertEquals(4, store.liveSlots(), "a handed-back block's slot returns to the slab");
        store.evictAll(taker);
        assertEquals(List.of(1L, 2L, 3L, 0L, 4L, 5L, 6L, 7L, 8L, 9L), taker.evictedKeys,
            "evictAll hands over every resident block");
        assertEquals(6, store.evictions(), "evictAll is not counted as evictions to make room");
        assertEquals(0, store.sizeBytes());
        taker.handBackAll(store);
        store.close();
        assertEquals(0, store.liveSlots(), "no slot leaked");
    }

    @Test
    void aBlockTheListenerTookStaysReadableUntilHandedBack()
    {
        final Taker taker = new Taker();
        final RamBlockStore store = lru(2, 1, taker);
        fill(store, 10, true).release();
        fill(store, 11, false).release();
        fill(store, 12, false).release();
        assertFalse(store.resident(10));
        assertTrue(store.holds(10), "taken by the listener, so still held");
        assertBlock(10, store.acquire(10));
        assertTrue(store.resident(11));

        fill(store, 13, false).release(); // evicts 11, published without spill: the store drops it
        assertFalse(store.holds(11));
        assertNull(store.acquire(11));

        final BlockRef reader = store.acquire(10);
        taker.handBackAll(store);
        assertFalse(store.holds(10));
        assertNull(store.acquire(10), "handed back: no longer readable");
        assertBlock(10, reader); // a reader that had it keeps its bytes
        store.close();
        assertEquals(0, store.liveSlots());
    }

    @Test
    void publishKeepsTheBlockAlreadyResidentAndReleasesTheNewSlot()
    {
        final RamBlockStore store = lru(4, 0, new Taker());
        final BlockRef first = fill(store, 5, true);
        final BlockRef second = fill(store, 5, true);
        assertSame(first, second, "the resident block is returned");
        assertEquals(1, store.liveSlots(), "the second fill's slot went back");
        first.release();
        second.release();
        assertTrue(store.resident(5));
        assertEquals(1, store.puts());
        store.close();
        assertEquals(0, store.liveSlots());
    }

    @Test
    void putsAreHandedOverTooAndTheSpareSlotsAreBeyondTheCapacity()
    {
        final Taker taker = new Taker();
        final RamBlockStore store = lru(2, 3, taker);
        assertEquals(2, store.capacityBlocks());
        for (long key = 0; key < 5; key++)
        {
            final UnsafeBuffer content = Blocks.contentOf(key, BLOCK);
            assertTrue(store.put(key, content, 8, Blocks.lengthOf(key, BLOCK), FetchClass.DEMAND));
        }
        assertEquals(3, taker.taken.size(), "the three evicted puts, taken for spilling");
        assertEquals(5, store.liveSlots(), "two resident and three taken: the whole slab");
        assertNull(store.allocate(), "every slot held by the listener: allocate evicts what it can, then declines");
        assertEquals(0, store.residentBlocks(), "it evicted the two resident blocks, which the listener took too");
        assertEquals(5, taker.taken.size());
        taker.handBackAll(store);
        assertEquals(0, store.liveSlots());
        final BlockRef slot = store.allocate();
        assertNotNull(slot, "handed back, the slots are free again");
        slot.release();
        store.close();
        assertEquals(0, store.liveSlots());
    }

    @Test
    void evictAllNeedsAListenerAndPublishNeedsAFilledSlot()
    {
        final RamBlockStore plain = RamBlockStore.create(4L * BLOCK, BLOCK);
        assertThrows(IllegalStateException.class, () -> plain.evictAll((key, ref, spill) -> false));
        final BlockRef empty = plain.allocate();
        assertThrows(IllegalArgumentException.class, () -> plain.publish(1, empty.length(0), false));
        assertTrue(empty.isReleased(), "a refused slot is released");
        plain.close();
        assertEquals(0, plain.liveSlots());
    }

    /**
     * Fills, hits (of resident and of taken blocks), evictions and hand-backs racing: never a wrong byte, every
     * evicted block handed over exactly once, every eviction counted, and every slot back after close.
     */
    @Test
    @Timeout(60)
    void fillsHitsEvictionsAndHandBacksRacing() throws Exception
    {
        final long keys = 48;
        final ConcurrentLinkedQueue<Object[]> spills = new ConcurrentLinkedQueue<>();
        final Set<BlockRef> out = ConcurrentHashMap.newKeySet();
        final AtomicLong handedOver = new AtomicLong();
        final AtomicLong doubleHandOvers = new AtomicLong();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicBoolean fillersDone = new AtomicBoolean();
        final AtomicLong hits = new AtomicLong();
        final AtomicLong takenHits = new AtomicLong();
        final RamBlockStore store = lru(8, 4, (key, ref, spill) ->
        {
            handedOver.incrementAndGet();
            if (!out.add(ref))
            {
                doubleHandOvers.incrementAndGet();
            }
            if (spill && ThreadLocalRandom.current().nextInt(4) != 0)
            {
                spills.add(new Object[] {key, ref});
                return true;
            }
            out.remove(ref);
            return false; // a full spill queue: dropped
        });
        final List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 3; t++)
        {
            threads.add(new Thread(() ->
            {
                final ThreadLocalRandom random = ThreadLocalRandom.current();
                while (!stop.get())
                {
                    final long key = Math.min(random.nextLong(keys), random.nextLong(keys));
                    final boolean resident = store.resident(key);
                    final BlockRef ref = store.acquire(key);
                    if (null != ref)
                    {
                        hits.incrementAndGet();
                        if (!resident)
                        {
                            takenHits.incrementAndGet();
                        }
                        final int mismatch = Blocks.firstMismatch(key, ref.buffer(), ref.length(), BLOCK);
                        ref.release();
                        if (mismatch != -1)
                        {
                            throw new AssertionError("block " + key + " wrong at " + mismatch);
                        }
                    }
                    else if (random.nextBoolean())
                    {
                        final BlockRef slot = store.allocate();
                        if (null != slot)
                        {
                            final int length = Blocks.lengthOf(key, BLOCK);
                            slot.buffer().putBytes(0, Blocks.contentOf(key, BLOCK), 8, length);
                            final BlockRef held = store.publish(key, slot.length(length), random.nextBoolean());
                            if (null != held)
                            {
                                held.release();
                            }
                        }
                    }
                    else
                    {
                        store.put(key, Blocks.contentOf(key, BLOCK), 8, Blocks.lengthOf(key, BLOCK),
                            FetchClass.DEMAND);
                    }
                }
            }, "filler-" + t));
        }
        threads.add(new Thread(() ->
        {
            while (!fillersDone.get() || !spills.isEmpty())
            {
                final Object[] spill = spills.poll();
                if (null == spill)
                {
                    Thread.onSpinWait();
                    continue;
                }
                final BlockRef ref = (BlockRef) spill[1];
                if (Blocks.firstMismatch((Long) spill[0], ref.buffer(), ref.length(), BLOCK) != -1)
                {
                    throw new AssertionError("a taken block's bytes changed: " + spill[0]);
                }
                out.remove(ref);
                store.evictionDone((Long) spill[0], ref);
            }
        }, "spill"));
        for (final Thread thread : threads)
        {
            thread.setUncaughtExceptionHandler((th, ex) -> failure.compareAndSet(null, ex));
            thread.start();
        }
        Thread.sleep(1_500);
        stop.set(true);
        for (final Thread thread : threads)
        {
            if (thread.getName().startsWith("spill"))
            {
                fillersDone.set(true); // the fillers before it have stopped: no more evictions
            }
            thread.join(30_000);
            assertFalse(thread.isAlive(), thread.getName() + " finished");
        }
        if (failure.get() != null)
        {
            throw new AssertionError(failure.get());
        }
        assertNull(store.bookkeepingProblem());
        assertEquals(store.evictions(), handedOver.get(), "every eviction handed over");
        assertEquals(0, doubleHandOvers.get(), "no block handed over twice");
        assertEquals(0, out.size(), "every taken block handed back");
        assertTrue(hits.get() > 1000 && store.evictions() > 100, "enough churn: " + hits + " hits, " + store);
        final long before = handedOver.get();
        final int resident = store.residentBlocks();
        store.evictAll((key, ref, spill) ->
        {
            handedOver.incrementAndGet();
            return false;
        });
        assertEquals(before + resident, handedOver.get(), "evictAll hands over every resident block");
        store.close();
        assertEquals(0, store.liveSlots(), "no slot leaked; taken-block hits: " + takenHits);
    }
}
