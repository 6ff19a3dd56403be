package dev.offcache.core.slab;

import java.util.ArrayDeque;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;

import dev.offcache.core.region.MappedRegion;
import org.agrona.MutableDirectBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two threads allocate, stamp, publish, read each other's published blocks through tryRetain, and free, for a bounded
 * time. A slot handed out twice, a stamp overwritten under a holder, or a slot lost from the free list fails it.
 */
class BlockSlabStressTest
{
    private static final int SLOT = 4096;
    private static final int SLOTS = 16;
    private static final int HELD_PER_THREAD = 6;
    private static final long RUN_NANOS = TimeUnit.MILLISECONDS.toNanos(1_500);

    private record Published(BlockRef ref, long stamp)
    {
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void twoThreadsNeverShareASlotAndNoSlotIsLost() throws Exception
    {
        final long mappingsBefore = MappedRegion.liveMappings();
        final BlockSlab slab = BlockSlab.anonymous((long) SLOTS * SLOT, SLOT);
        final AtomicIntegerArray owned = new AtomicIntegerArray(SLOTS);
        final AtomicReferenceArray<Published> board = new AtomicReferenceArray<>(SLOTS);
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final AtomicLong allocations = new AtomicLong();
        final AtomicLong exhausted = new AtomicLong();
        final AtomicLong foreignReads = new AtomicLong();
        final CountDownLatch start = new CountDownLatch(1);

        final Thread[] threads = new Thread[2];
        for (int t = 0; t < threads.length; t++)
        {
            final long threadTag = (long) (t + 1) << 48;
            threads[t] = new Thread(() ->
            {
                final ArrayDeque<Published> held = new ArrayDeque<>();
                long sequence = 0;
                try
                {
                    start.await();
                    final long deadline = System.nanoTime() + RUN_NANOS;
                    final ThreadLocalRandom random = ThreadLocalRandom.current();
                    while (System.nanoTime() < deadline && failure.get() == null)
                    {
                        if (held.size() < HELD_PER_THREAD && random.nextBoolean())
                        {
                            final BlockRef ref = slab.tryAllocate();
                            if (ref == null)
                            {
                                exhausted.incrementAndGet();
                                continue;
                            }
                            check(owned.compareAndSet(ref.slotIndex(), 0, 1),
                                "slot " + ref.slotIndex() + " handed out twice");
                            final long stamp = threadTag | ++sequence;
                            final MutableDirectBuffer buffer = ref.buffer();
                            buffer.putLong(0, stamp);
                            buffer.putLong(SLOT - Long.BYTES, stamp);
                            final Published published = new Published(ref, stamp);
                            held.add(published);
                            board.set(ref.slotIndex(), published);
                            allocations.incrementAndGet();
                        }
                        else if (!held.isEmpty() && random.nextInt(3) == 0)
                        {
                            final Published mine = held.poll();
                            board.compareAndSet(mine.ref().slotIndex(), mine, null);
                            checkStamp(mine);
                            // The last holder clears ownership; a reader may still hold the slot after this.
                            check(owned.compareAndSet(mine.ref().slotIndex(), 1, 0), "ownership lost");
                            mine.ref().release();
                        }
                        else
                        {
                            final Published seen = board.get(random.nextInt(SLOTS));
                            if (seen != null && seen.ref().tryRetain())
                            {
                                checkStamp(seen);
                                foreignReads.incrementAndGet();
                                seen.ref().release();
                            }
                        }
                    }
                }
                catch (final Throwable ex)
                {
                    failure.compareAndSet(null, ex);
                }
                finally
                {
                    for (final Published mine : held)
                    {
                        board.compareAndSet(mine.ref().slotIndex(), mine, null);
                        owned.set(mine.ref().slotIndex(), 0);
                        mine.ref().release();
                    }
                }
            }, "slab-stress-" + t);
            threads[t].start();
        }
        start.countDown();
        for (final Thread thread : threads)
        {
            thread.join();
        }

        assertNull(failure.get(), () -> "stress failure: " + failure.get());
        assertTrue(allocations.get() > 1_000, "too little work to mean anything: " + allocations.get());
        assertTrue(foreignReads.get() > 0, "no reader ever retained a published block");
        assertEquals(0, slab.liveSlots(), "slots still live");
        assertEquals(SLOTS, slab.freeSlots(), "slots lost from the free list");

        // Every slot can still be handed out exactly once.
        final BlockRef[] all = new BlockRef[SLOTS];
        final boolean[] seen = new boolean[SLOTS];
        for (int i = 0; i < SLOTS; i++)
        {
            all[i] = slab.tryAllocate();
            assertTrue(!seen[all[i].slotIndex()], "duplicate slot after stress");
            seen[all[i].slotIndex()] = true;
        }
        assertNull(slab.tryAllocate());
        for (final BlockRef ref : all)
        {
            ref.release();
        }
        slab.close();
        assertEquals(mappingsBefore, MappedRegion.liveMappings());
    }

    private static void checkStamp(final Published published)
    {
        final MutableDirectBuffer buffer = published.ref().buffer();
        final long head = buffer.getLong(0);
        final long tail = buffer.getLong(SLOT - Long.BYTES);
        check(head == published.stamp() && tail == published.stamp(),
            "slot " + published.ref().slotIndex() + " overwritten under a holder: expected " + published.stamp() +
            " found " + head + "/" + tail);
    }

    private static void check(final boolean condition, final String message)
    {
        if (!condition)
        {
            throw new AssertionError(message);
        }
    }
}
