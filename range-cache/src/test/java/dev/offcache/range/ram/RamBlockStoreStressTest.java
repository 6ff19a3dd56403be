package dev.offcache.range.ram;

import java.util.ArrayList;
import java.util.List;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Readers acquiring, verifying and releasing while writers put and evict, for a bounded time: never a wrong byte,
 * the capacity holds throughout, and every slot is returned at close.
 */
class RamBlockStoreStressTest
{
    private static final int BLOCK = 4096;
    private static final int CAPACITY = 16;
    private static final long KEYS = 64;
    private static final long RUN_NANOS = 1_500_000_000L;
    private static final long MAX_RUN_NANOS = 30_000_000_000L;

    @ParameterizedTest
    @EnumSource(PolicyKind.class)
    @Timeout(30)
    void readersNeverSeeAWrongByteWhileWritersChurn(final PolicyKind policy) throws Exception
    {
        final RamBlockStore store = new RamBlockStore(
            new RamBlockStore.Context().blockSize(BLOCK).capacityBytes((long) CAPACITY * BLOCK).policy(policy));
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final AtomicLong verifiedHits = new AtomicLong();
        final AtomicLong copies = new AtomicLong();
        final AtomicLong overCapacity = new AtomicLong();
        final List<Thread> threads = new ArrayList<>();

        for (int r = 0; r < 3; r++)
        {
            threads.add(new Thread(() ->
            {
                final UnsafeBuffer destination = new UnsafeBuffer(new byte[BLOCK]);
                final ThreadLocalRandom random = ThreadLocalRandom.current();
                while (!stop.get())
                {
                    // Skewed keys, so that some blocks stay hot and others churn.
                    final long key = Math.min(random.nextLong(KEYS), random.nextLong(KEYS));
                    if (random.nextBoolean())
                    {
                        final BlockRef ref = store.acquire(key);
                        if (ref != null)
                        {
                            final int mismatch = Blocks.firstMismatch(key, ref.buffer(), ref.length(), BLOCK);
                            ref.release();
                            if (mismatch != -1)
                            {
                                throw new AssertionError("block " + key + " wrong at byte " + mismatch);
                            }
                            verifiedHits.incrementAndGet();
                        }
                    }
                    else
                    {
                        // Whole blocks, copied without a reference while writers evict and re-use their slots.
                        final int offset = random.nextInt(4) == 0 ? 100 : 0;
                        final int blockLength = store.read(key, offset, destination, 0, BLOCK);
                        if (blockLength >= 0)
                        {
                            if (blockLength != Blocks.lengthOf(key, BLOCK))
                            {
                                throw new AssertionError("block " + key + " has length " + blockLength);
                            }
                            for (int i = 0; i < blockLength - offset; i++)
                            {
                                if (destination.getByte(i) != Blocks.byteAt(key, offset + i))
                                {
                                    throw new AssertionError("copy of block " + key + " wrong at byte " + i);
                                }
                            }
                            copies.incrementAndGet();
                        }
                    }
                }
            }, "reader-" + r));
        }
        for (int w = 0; w < 2; w++)
        {
            threads.add(new Thread(() ->
            {
                final ThreadLocalRandom random = ThreadLocalRandom.current();
                while (!stop.get())
                {
                    final long key = random.nextLong(KEYS);
                    final BlockRef ref = store.acquire(key);
                    if (ref == null)
                    {
                        final FetchClass fetchClass = random.nextInt(8) == 0 ? FetchClass.PREFETCH : FetchClass.DEMAND;
                        RamBlockStoreTest.put(store, key, fetchClass);
                    }
                    else
                    {
                        ref.release();
                    }
                }
            }, "writer-" + w));
        }
        for (final Thread thread : threads)
        {
            thread.setUncaughtExceptionHandler((t, ex) -> failure.compareAndSet(null, ex));
            thread.start();
        }
        // at least RUN_NANOS, and on a loaded machine on until the work the assertions below ask for has happened
        final long start = System.nanoTime();
        while (System.nanoTime() - start < RUN_NANOS || System.nanoTime() - start < MAX_RUN_NANOS &&
            (verifiedHits.get() <= 1000 || copies.get() <= 1000 || store.evictions() <= 100))
        {
            if (store.liveSlots() > CAPACITY || store.sizeBytes() > (long) CAPACITY * BLOCK)
            {
                overCapacity.incrementAndGet();
            }
            Thread.sleep(1);
        }
        stop.set(true);
        for (final Thread thread : threads)
        {
            thread.join(10_000);
        }
        if (failure.get() != null)
        {
            throw new AssertionError("a worker failed", failure.get());
        }
        assertEquals(0, overCapacity.get(), "capacity exceeded");
        assertTrue(verifiedHits.get() > 1000, "readers verified " + verifiedHits.get() + " hits");
        assertTrue(copies.get() > 1000, "readers verified " + copies.get() + " copies");
        assertTrue(store.evictions() > 100, "writers churned: " + store);
        assertEquals(store.residentBlocks(), store.liveSlots(), "no slot lost: " + store);
        store.close();
        assertEquals(0, store.liveSlots(), "every slot returned at close");
        assertNull(store.acquire(0));
    }

    /**
     * The copy read's validation at the store's level: few large slots, a writer that stores a new block (evicting
     * the least recent one, whose slot the very next put re-uses with other bytes) as fast as it can, and readers
     * copying whole blocks without a reference. Runs until copies have conflicted with an eviction (the copy was
     * discarded and redone under a reference, or became a miss): every copy the store returned holds exactly its
     * block's bytes. With the re-check in {@code BlockRef.tryCopy} removed, this test fails with a wrong byte
     * (checked by hand).
     */
    @Test
    @Timeout(60)
    void copiesRacingEvictionAndSlotReuseAreRedoneOrMissesNeverAnotherBlocksBytes() throws Exception
    {
        final int block = 64 * 1024;
        final int slots = 4;
        final int keys = 8;
        final RamBlockStore store = new RamBlockStore(new RamBlockStore.Context().blockSize(block)
            .capacityBytes((long) slots * block).policy(PolicyKind.LRU).hitSampling(1));
        final UnsafeBuffer[] contents = new UnsafeBuffer[keys];
        for (int k = 0; k < keys; k++)
        {
            contents[k] = Blocks.contentOf(k, block);
        }
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final AtomicLong copies = new AtomicLong();
        final AtomicLong misses = new AtomicLong();
        final List<Thread> threads = new ArrayList<>();
        for (int r = 0; r < 2; r++)
        {
            threads.add(new Thread(() ->
            {
                final UnsafeBuffer destination = new UnsafeBuffer(new byte[block]);
                final ThreadLocalRandom random = ThreadLocalRandom.current();
                while (!stop.get())
                {
                    final long key = random.nextInt(keys);
                    final int blockLength = store.read(key, 0, destination, 0, block);
                    if (blockLength < 0)
                    {
                        misses.incrementAndGet();
                        continue;
                    }
                    final int mismatch = Blocks.firstMismatch(key, destination, blockLength, block);
                    if (mismatch != -1)
                    {
                        throw new AssertionError("copy of block " + key + " wrong at byte " + mismatch);
                    }
                    copies.incrementAndGet();
                }
            }, "copier-" + r));
        }
        threads.add(new Thread(() ->
        {
            long next = 0;
            while (!stop.get())
            {
                final int key = (int) (next++ % keys);
                if (!store.resident(key))
                {
                    store.put(key, contents[key], 8, Blocks.lengthOf(key, block), FetchClass.DEMAND);
                }
            }
        }, "evicting-writer"));
        for (final Thread thread : threads)
        {
            thread.setUncaughtExceptionHandler((t, ex) -> failure.compareAndSet(null, ex));
            thread.start();
        }
        final long start = System.nanoTime();
        while (failure.get() == null && (System.nanoTime() - start < RUN_NANOS ||
            System.nanoTime() - start < MAX_RUN_NANOS && (store.copyConflicts() < 20 || copies.get() <= 1000)))
        {
            Thread.sleep(1);
        }
        stop.set(true);
        for (final Thread thread : threads)
        {
            thread.join(10_000);
        }
        if (failure.get() != null)
        {
            throw new AssertionError("a worker failed after " + store.copyConflicts() + " conflicts", failure.get());
        }
        assertTrue(store.copyConflicts() > 0, "no copy ever overlapped an eviction: " + store);
        assertTrue(copies.get() > 1000, "copies verified: " + copies.get() + ", misses " + misses.get());
        assertTrue(store.evictions() > 1000, "the writer churned: " + store);
        assertEquals(store.residentBlocks(), store.liveSlots(), "no slot lost: " + store);
        store.close();
        assertEquals(0, store.liveSlots(), "every slot returned at close");
    }

    @Test
    @Timeout(30)
    void closeWhileReadersAndWritersRunLeaksNothing() throws Exception
    {
        final RamBlockStore store = new RamBlockStore(
            new RamBlockStore.Context().blockSize(BLOCK).capacityBytes((long) CAPACITY * BLOCK));
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++)
        {
            final boolean writer = t % 2 == 0;
            threads.add(new Thread(() ->
            {
                final ThreadLocalRandom random = ThreadLocalRandom.current();
                while (!stop.get())
                {
                    final long key = random.nextLong(KEYS);
                    if (writer)
                    {
                        RamBlockStoreTest.put(store, key, FetchClass.DEMAND);
                    }
                    else
                    {
                        final BlockRef ref = store.acquire(key);
                        if (ref != null)
                        {
                            final int mismatch = Blocks.firstMismatch(key, ref.buffer(), ref.length(), BLOCK);
                            ref.release();
                            if (mismatch != -1)
                            {
                                throw new AssertionError("block " + key + " wrong at byte " + mismatch);
                            }
                        }
                    }
                }
            }));
        }
        for (final Thread thread : threads)
        {
            thread.setUncaughtExceptionHandler((th, ex) -> failure.compareAndSet(null, ex));
            thread.start();
        }
        Thread.sleep(300);
        store.close();
        Thread.sleep(100);
        stop.set(true);
        for (final Thread thread : threads)
        {
            thread.join(10_000);
        }
        if (failure.get() != null)
        {
            throw new AssertionError("a worker failed", failure.get());
        }
        assertEquals(0, store.liveSlots(), "every slot returned after close: " + store);
    }

    @Test
    @Timeout(60)
    void concurrentHitsKeepThePolicyInStepWithTheIndex() throws Exception
    {
        // The default (adaptive) hit recording: puts grant readers drains at full rate, which they spend while other
        // readers offer and writers evict; the policy, the index, the byte count and the slots must agree throughout.
        final RamBlockStore store = new RamBlockStore(
            new RamBlockStore.Context().blockSize(BLOCK).capacityBytes((long) CAPACITY * BLOCK));
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final AtomicLong hits = new AtomicLong();
        final List<Thread> threads = new ArrayList<>();
        for (int r = 0; r < 3; r++)
        {
            threads.add(new Thread(() ->
            {
                final UnsafeBuffer destination = new UnsafeBuffer(new byte[BLOCK]);
                final ThreadLocalRandom random = ThreadLocalRandom.current();
                while (!stop.get())
                {
                    final long key = Math.min(random.nextLong(KEYS), random.nextLong(KEYS));
                    final BlockRef ref = store.acquire(key);
                    if (ref != null)
                    {
                        final int mismatch = Blocks.firstMismatch(key, ref.buffer(), ref.length(), BLOCK);
                        ref.release();
                        if (mismatch != -1)
                        {
                            throw new AssertionError("block " + key + " wrong at byte " + mismatch);
                        }
                        hits.incrementAndGet();
                    }
                    if (store.read(key, 0, destination, 0, 64) >= 0)
                    {
                        if (destination.getByte(63) != Blocks.byteAt(key, 63))
                        {
                            throw new AssertionError("copy of block " + key + " wrong");
                        }
                        hits.incrementAndGet();
                    }
                }
            }, "reader-" + r));
        }
        threads.add(new Thread(() ->
        {
            final ThreadLocalRandom random = ThreadLocalRandom.current();
            while (!stop.get())
            {
                final long key = random.nextLong(KEYS);
                final BlockRef ref = store.acquire(key);
                if (ref != null)
                {
                    ref.release();
                }
                else
                {
                    RamBlockStoreTest.put(store, key, FetchClass.DEMAND);
                }
                if (random.nextInt(8) == 0)
                {
                    Thread.yield(); // let readers spend the credit, and pure-hit stretches happen
                }
            }
        }, "writer"));
        for (final Thread thread : threads)
        {
            thread.setUncaughtExceptionHandler((t, ex) -> failure.compareAndSet(null, ex));
            thread.start();
        }
        final long start = System.nanoTime();
        int checks = 0;
        while (System.nanoTime() - start < RUN_NANOS || System.nanoTime() - start < MAX_RUN_NANOS &&
            (hits.get() <= 10_000 || store.evictions() <= 200 || store.creditedDrains() <= 50))
        {
            final String problem = store.bookkeepingProblem();
            if (problem != null)
            {
                stop.set(true);
                throw new AssertionError("bookkeeping out of step while running: " + problem);
            }
            checks++;
            Thread.sleep(1);
        }
        stop.set(true);
        for (final Thread thread : threads)
        {
            thread.join(10_000);
        }
        if (failure.get() != null)
        {
            throw new AssertionError("a worker failed", failure.get());
        }
        assertTrue(checks > 100, "checked " + checks + " times");
        assertTrue(hits.get() > 10_000 && store.evictions() > 200 && store.creditedDrains() > 50,
            "hits " + hits.get() + ", drains on credit " + store.creditedDrains() + ": " + store);
        store.tryDrain();
        assertNull(store.bookkeepingProblem());
        assertEquals(store.residentBlocks(), store.liveSlots(), "no slot lost: " + store);
        store.close();
        assertEquals(0, store.liveSlots(), "every slot returned at close, none twice");
    }
}
