package dev.offcache.range.ram;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.function.LongConsumer;

/**
 * A lossy, striped set of bounded rings of {@code long} keys: readers record accesses here without a lock, and
 * the store's single maintenance writer later replays them into the eviction policy. After Caffeine's read buffer.
 *
 * <p>A reader picks a stripe by its thread id, claims a cell with one CAS on the stripe's write counter and publishes
 * the key with a release store; if the stripe is full, or another reader won the CAS, the access is dropped (the
 * policy only needs a sample). Nothing is allocated after construction. Only one thread may drain at a time (the
 * store guarantees it); the heap arrays are owned by this object.
 */
final class AccessBuffer
{
    static final int STRIPE_CELLS = 16;
    private static final int CELL_MASK = STRIPE_CELLS - 1;
    private static final long EMPTY = -1;
    // Counters 16 longs (128 bytes) apart, so two stripes' counters never share a cache line.
    private static final int PAD = 16;
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

    private final int stripeMask;
    private final long[] cells;
    private final long[] writeCounters;
    private final long[] readCounters;

    AccessBuffer(final int stripes)
    {
        if (stripes < 1 || Integer.bitCount(stripes) != 1)
        {
            throw new IllegalArgumentException("stripes must be a power of two >= 1: " + stripes);
        }
        stripeMask = stripes - 1;
        cells = new long[stripes * STRIPE_CELLS];
        Arrays.fill(cells, EMPTY);
        writeCounters = new long[(stripes + 1) * PAD];
        readCounters = new long[(stripes + 1) * PAD];
    }

    static int stripesFor(final int processors)
    {
        return Math.min(64, Integer.highestOneBit(Math.max(1, processors) * 4 - 1) << 1);
    }

    /**
     * Records a key, or drops it.
     *
     * @param key a non-negative key.
     * @return true if the stripe is full and the buffer should be drained.
     */
    boolean offer(final long key)
    {
        final int stripe = stripe();
        final int counter = (stripe + 1) * PAD;
        final long head = (long) LONGS.getAcquire(readCounters, counter);
        final long tail = (long) LONGS.getAcquire(writeCounters, counter);
        final long pending = tail - head;
        if (pending >= STRIPE_CELLS)
        {
            return true;
        }
        if (LONGS.compareAndSet(writeCounters, counter, tail, tail + 1))
        {
            LONGS.setRelease(cells, stripe * STRIPE_CELLS + (int) (tail & CELL_MASK), key);
            return pending + 1 >= STRIPE_CELLS;
        }
        return false;
    }

    /**
     * Replays every published key into the consumer; the single drainer only.
     *
     * @param consumer receives each key.
     * @return the number of keys drained.
     */
    int drainTo(final LongConsumer consumer)
    {
        int drained = 0;
        for (int stripe = 0; stripe <= stripeMask; stripe++)
        {
            final int counter = (stripe + 1) * PAD;
            long head = (long) LONGS.getOpaque(readCounters, counter);
            final long tail = (long) LONGS.getAcquire(writeCounters, counter);
            while (head < tail)
            {
                final int cell = stripe * STRIPE_CELLS + (int) (head & CELL_MASK);
                final long key = (long) LONGS.getAcquire(cells, cell);
                if (key == EMPTY)
                {
                    // Claimed but not yet published: pick it up on the next drain.
                    break;
                }
                LONGS.setOpaque(cells, cell, EMPTY);
                consumer.accept(key);
                head++;
                drained++;
            }
            LONGS.setRelease(readCounters, counter, head);
        }
        return drained;
    }

    private int stripe()
    {
        long id = Thread.currentThread().getId();
        id *= 0x9E3779B97F4A7C15L;
        return (int) (id >>> 40) & stripeMask;
    }
}
