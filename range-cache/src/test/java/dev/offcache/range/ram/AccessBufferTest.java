package dev.offcache.range.ram;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AccessBufferTest
{
    @Test
    void keepsOrderWithinAStripeAndSignalsWhenFull()
    {
        final AccessBuffer buffer = new AccessBuffer(1);
        for (long key = 0; key < AccessBuffer.STRIPE_CELLS - 1; key++)
        {
            assertFalse(buffer.offer(key));
        }
        assertTrue(buffer.offer(100), "the stripe is now full: time to drain");
        assertTrue(buffer.offer(101), "full: dropped, drain requested again");
        final List<Long> drained = new ArrayList<>();
        assertEquals(AccessBuffer.STRIPE_CELLS, buffer.drainTo(drained::add));
        for (int i = 0; i < AccessBuffer.STRIPE_CELLS - 1; i++)
        {
            assertEquals(i, drained.get(i));
        }
        assertEquals(100, drained.get(AccessBuffer.STRIPE_CELLS - 1));
        assertEquals(0, buffer.drainTo(drained::add));
        assertFalse(buffer.offer(7));
        assertEquals(1, buffer.drainTo(drained::add));
    }

    @Test
    @Timeout(20)
    void concurrentOffersNeverDrainGarbage() throws Exception
    {
        final AccessBuffer buffer = new AccessBuffer(AccessBuffer.stripesFor(2));
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicLong offered = new AtomicLong();
        final List<Thread> producers = new ArrayList<>();
        for (int t = 0; t < 4; t++)
        {
            final long base = t * 1_000_000_000L;
            producers.add(new Thread(() ->
            {
                long n = 0;
                while (!stop.get())
                {
                    buffer.offer(base + (n++ % 1_000_000));
                }
                offered.addAndGet(n);
            }));
        }
        producers.forEach(Thread::start);
        final long[] drained = new long[1];
        final long[] bad = new long[1];
        final long deadline = System.nanoTime() + 1_000_000_000L;
        while (System.nanoTime() < deadline)
        {
            drained[0] += buffer.drainTo((key) ->
            {
                if (key < 0 || key % 1_000_000_000L >= 1_000_000)
                {
                    bad[0]++;
                }
            });
        }
        stop.set(true);
        for (final Thread producer : producers)
        {
            producer.join();
        }
        drained[0] += buffer.drainTo((key) -> bad[0] += key < 0 ? 1 : 0);
        assertEquals(0, bad[0], "only offered keys come out");
        assertTrue(drained[0] > 0 && drained[0] <= offered.get(), drained[0] + " drained of " + offered.get());
    }
}
