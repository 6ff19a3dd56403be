package dev.offcache.range.policy;

import java.lang.management.ManagementFactory;
import java.util.Random;

import dev.offcache.range.policy.WindowTinyLfuPolicy.Segment;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WindowTinyLfuPolicyTest
{
    static boolean access(final EvictionPolicy policy, final long key)
    {
        policy.recordAccess(key);
        if (policy.contains(key))
        {
            return true;
        }
        if (policy.size() == policy.capacity())
        {
            final long evicted = policy.evict();
            assertTrue(evicted >= 0);
            assertFalse(policy.contains(evicted));
        }
        policy.add(key, false);
        return false;
    }

    @Test
    void sizesTheSegments()
    {
        final WindowTinyLfuPolicy policy = new WindowTinyLfuPolicy(1000);
        assertEquals(10, policy.maxWindow());
        assertEquals(792, policy.maxProtected());
        assertEquals(1, new WindowTinyLfuPolicy(10).maxWindow());
    }

    @Test
    void newcomersEnterTheWindowAndOverflowToProbation()
    {
        final WindowTinyLfuPolicy policy = new WindowTinyLfuPolicy(100);
        policy.add(1, false);
        assertEquals(Segment.WINDOW, policy.segmentOf(1));
        policy.add(2, false);
        assertEquals(Segment.WINDOW, policy.segmentOf(2));
        assertEquals(Segment.PROBATION, policy.segmentOf(1));
        assertNull(policy.segmentOf(3));
    }

    @Test
    void aHitInProbationPromotesToProtectedAndProtectedOverflowIsDemoted()
    {
        final WindowTinyLfuPolicy policy = new WindowTinyLfuPolicy(10);
        for (long key = 0; key < 10; key++)
        {
            policy.add(key, false);
        }
        // 0..8 are in probation, 9 in the window; the protected segment holds 7.
        for (long key = 0; key < 7; key++)
        {
            assertEquals(Segment.PROBATION, policy.segmentOf(key));
            policy.recordAccess(key);
            assertEquals(Segment.PROTECTED, policy.segmentOf(key));
        }
        policy.recordAccess(7);
        assertEquals(Segment.PROTECTED, policy.segmentOf(7));
        // Protected was full: its least recently used entry (0) went back to probation.
        assertEquals(Segment.PROBATION, policy.segmentOf(0));
        policy.recordAccess(9);
        assertEquals(Segment.WINDOW, policy.segmentOf(9));
        assertEquals(10, policy.size());
    }

    @Test
    void aColdCandidateLosesToTheProbationVictim()
    {
        final WindowTinyLfuPolicy policy = new WindowTinyLfuPolicy(10);
        for (long key = 0; key < 10; key++)
        {
            policy.recordAccess(key);
            policy.recordAccess(key);
            policy.add(key, false);
        }
        // 100 is new and seen once: it enters the window, pushing 9 (seen twice) out as candidate vs victim 0.
        policy.recordAccess(100);
        final long evicted = policy.evict();
        policy.add(100, false);
        assertEquals(9, evicted, "a tie: the candidate is not strictly hotter, so it is evicted and the victim stays");
        assertTrue(policy.contains(0));
        assertEquals(Segment.WINDOW, policy.segmentOf(100));
    }

    @Test
    void candidateContestIsDecidedByFrequency()
    {
        final WindowTinyLfuPolicy policy = new WindowTinyLfuPolicy(10);
        for (long key = 0; key < 10; key++)
        {
            policy.add(key, false);
        }
        // Probation victim (0) is cold; the window holds 9. Make 9 hot: the contest evicts 0.
        for (int i = 0; i < 5; i++)
        {
            policy.recordAccess(9);
        }
        assertEquals(0, policy.evict());
        assertEquals(1, policy.candidatesAdmitted());
        assertEquals(Segment.PROBATION, policy.segmentOf(9));

        policy.add(20, false);
        // Now 20 (cold) is the window candidate; the victim 1 is hot: the candidate is evicted.
        for (int i = 0; i < 5; i++)
        {
            policy.recordAccess(1);
        }
        assertEquals(20, policy.evict());
        assertEquals(1, policy.candidatesRejected());
        assertTrue(policy.contains(1));
    }

    @Test
    void lowPriorityEntriesAreTheNextVictimAndAdmissionChecksFrequency()
    {
        final WindowTinyLfuPolicy policy = new WindowTinyLfuPolicy(10);
        assertTrue(policy.admits(50), "room left: always admitted");
        for (long key = 0; key < 9; key++)
        {
            policy.add(key, false);
            policy.recordAccess(key);
        }
        policy.add(50, true);
        assertEquals(Segment.PROBATION, policy.segmentOf(50));
        assertFalse(policy.admits(51), "full, and an unseen key is not hotter than the victim");
        for (int i = 0; i < 4; i++)
        {
            policy.recordAccess(52);
        }
        assertTrue(policy.admits(52));
        // The window is full (1 entry): the window candidate (8) contests the probation head, the prefetched 50.
        assertEquals(50, policy.evict());
    }

    @Test
    void scanDoesNotFlushTheHotSetUnlikeLru()
    {
        final int capacity = 100;
        final WindowTinyLfuPolicy tinyLfu = new WindowTinyLfuPolicy(capacity);
        final LruPolicy lru = new LruPolicy(capacity);
        final Random random = new Random(42);
        long scanKey = 1_000_000;
        int tinyLfuHits = 0;
        int lruHits = 0;
        int hotAccesses = 0;
        for (int i = 0; i < 200_000; i++)
        {
            final long key;
            if (i % 2 == 0)
            {
                key = random.nextInt(80);
                hotAccesses++;
            }
            else
            {
                key = scanKey++;
            }
            final boolean hitA = access(tinyLfu, key);
            final boolean hitB = access(lru, key);
            if (key < 80)
            {
                tinyLfuHits += hitA ? 1 : 0;
                lruHits += hitB ? 1 : 0;
            }
        }
        final double tinyLfuRatio = (double) tinyLfuHits / hotAccesses;
        final double lruRatio = (double) lruHits / hotAccesses;
        assertTrue(tinyLfuRatio > 0.95, "W-TinyLFU keeps the hot set: " + tinyLfuRatio);
        assertTrue(lruRatio < 0.9, "LRU loses hot keys to the scan: " + lruRatio);
    }

    @Test
    void hillClimbingGrowsTheWindowOnARecencyWorkload()
    {
        // Every key is read twice, the second time 1..150 accesses after the first, then never again: frequency
        // tells nothing, recency everything, so a bigger window must win.
        final int capacity = 100;
        final int keys = 200_000;
        final long[] trace = new long[2 * keys];
        java.util.Arrays.fill(trace, -1);
        final Random random = new Random(11);
        int at = 0;
        for (long key = 0; key < keys; key++)
        {
            while (trace[at] != -1)
            {
                at++;
            }
            trace[at] = key;
            int second = at + 1 + random.nextInt(150);
            while (second < trace.length && trace[second] != -1)
            {
                second++;
            }
            if (second < trace.length)
            {
                trace[second] = key;
            }
        }
        final WindowTinyLfuPolicy adaptive = new WindowTinyLfuPolicy(capacity);
        final WindowTinyLfuPolicy fixed = new WindowTinyLfuPolicy(capacity, 0.01, false);
        int adaptiveHits = 0;
        int fixedHits = 0;
        int accesses = 0;
        for (final long key : trace)
        {
            if (key >= 0)
            {
                accesses++;
                adaptiveHits += access(adaptive, key) ? 1 : 0;
                fixedHits += access(fixed, key) ? 1 : 0;
            }
        }
        assertEquals(1, fixed.maxWindow());
        assertTrue(adaptive.maxWindow() > 10, "window grew to " + adaptive.maxWindow());
        assertTrue(adaptiveHits > fixedHits * 1.2,
            "adaptive " + adaptiveHits + " vs fixed " + fixedHits + " hits of " + accesses);
    }

    @Test
    void neverExceedsCapacityAndEvictsOnlyResidentKeys()
    {
        final WindowTinyLfuPolicy policy = new WindowTinyLfuPolicy(37);
        final Random random = new Random(7);
        for (int i = 0; i < 100_000; i++)
        {
            final long key = (long) Math.abs(random.nextGaussian() * 60);
            access(policy, key);
            assertTrue(policy.size() <= 37);
        }
        assertEquals(37, policy.size());
        int removed = 0;
        while (policy.evict() != EvictionPolicy.NO_KEY)
        {
            removed++;
        }
        assertEquals(37, removed);
        assertEquals(0, policy.size());
    }

    @Test
    void rejectsMisuse()
    {
        final WindowTinyLfuPolicy policy = new WindowTinyLfuPolicy(2);
        assertThrows(IllegalArgumentException.class, () -> policy.add(-5, false));
        policy.add(1, false);
        assertThrows(IllegalArgumentException.class, () -> policy.add(1, false));
        policy.add(2, false);
        assertThrows(IllegalStateException.class, () -> policy.add(3, false));
        assertThrows(IllegalArgumentException.class, () -> new WindowTinyLfuPolicy(0));
        assertThrows(IllegalArgumentException.class, () -> new WindowTinyLfuPolicy(10, 1.5, true));
        assertTrue(policy.remove(1));
        assertFalse(policy.remove(1));
        assertEquals(1, policy.size());
    }

    @Test
    void accessesAndEvictionsDoNotAllocate()
    {
        final WindowTinyLfuPolicy policy = new WindowTinyLfuPolicy(1000);
        final long[] keys = new long[4096];
        final Random random = new Random(3);
        for (int i = 0; i < keys.length; i++)
        {
            keys[i] = random.nextInt(5000);
        }
        for (int round = 0; round < 20; round++)
        {
            for (final long key : keys)
            {
                access(policy, key);
            }
        }
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        final long thread = Thread.currentThread().getId();
        final long before = threads.getThreadAllocatedBytes(thread);
        for (int round = 0; round < 50; round++)
        {
            for (final long key : keys)
            {
                access(policy, key);
            }
        }
        final long allocated = threads.getThreadAllocatedBytes(thread) - before;
        assertTrue(allocated < 4096, "200k accesses allocated " + allocated + " bytes");
    }
}
