package dev.offcache.core.slab;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Counts the readers that copy out of a slab without holding a reference ({@link BlockRef#tryCopy}), so the slab
 * never unmaps its memory under one of them. Striped by thread: each stripe has its own cache line holding three
 * counts (entries, exits, conflicts), so readers on different threads do not contend for one counter as they do for
 * the reference count of a hot block.
 *
 * <p>Entries and exits are atomic adds with volatile semantics: a reader's entry and its following read of the
 * slab's state, against the closer's state change and its following {@link #quiescent()}, form a Dekker pair, so
 * either the closer sees the reader or the reader sees the slab closed. {@link #quiescent()} sums the exits before
 * the entries; each count only grows, so equal sums mean that at the moment the entries were read, every reader
 * that had entered had left.
 */
final class ReaderGuard
{
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    // 16 longs (128 bytes) per stripe: a stripe's counts never share a cache line (or an adjacent-line prefetch
    // pair) with another stripe's.
    private static final int PAD = 16;
    private static final int ENTRIES = 0;
    private static final int EXITS = 1;
    private static final int CONFLICTS = 2;

    private final int stripeMask;
    private final long[] counts;

    ReaderGuard(final int stripes)
    {
        if (stripes < 1 || Integer.bitCount(stripes) != 1)
        {
            throw new IllegalArgumentException("stripes must be a power of two >= 1: " + stripes);
        }
        stripeMask = stripes - 1;
        // One stripe's worth of padding before the first, so no stripe shares a line with the array header.
        counts = new long[(stripes + 1) * PAD];
    }

    static int stripesFor(final int processors)
    {
        return Math.min(64, Integer.highestOneBit(Math.max(1, processors) * 4 - 1) << 1);
    }

    /**
     * Announces a reader; pair it with exactly one {@link #exit} or {@link #exitWithConflict} on the same stripe.
     *
     * @return the stripe to exit on.
     */
    int enter()
    {
        final int base = base(stripe());
        LONGS.getAndAdd(counts, base + ENTRIES, 1L);
        return base;
    }

    void exit(final int base)
    {
        LONGS.getAndAdd(counts, base + EXITS, 1L);
    }

    void exitWithConflict(final int base)
    {
        // The conflict first: a reader counted in exits is always already counted here, so exits - conflicts never
        // shows a conflict as a success.
        LONGS.getAndAdd(counts, base + CONFLICTS, 1L);
        LONGS.getAndAdd(counts, base + EXITS, 1L);
    }

    /**
     * Whether no reader was inside at some moment during this call (and, if the caller has already made new entries
     * fail, none is inside now).
     */
    boolean quiescent()
    {
        long exits = 0;
        for (int stripe = 0; stripe <= stripeMask; stripe++)
        {
            exits += (long) LONGS.getVolatile(counts, base(stripe) + EXITS);
        }
        long entries = 0;
        for (int stripe = 0; stripe <= stripeMask; stripe++)
        {
            entries += (long) LONGS.getVolatile(counts, base(stripe) + ENTRIES);
        }
        return entries == exits;
    }

    /**
     * Readers that left without a conflict; exact when none is inside.
     */
    long successes()
    {
        long successes = 0;
        for (int stripe = 0; stripe <= stripeMask; stripe++)
        {
            // Exits before conflicts: a conflict is counted before its exit, so it is never taken for a success.
            final int base = base(stripe);
            final long exits = (long) LONGS.getVolatile(counts, base + EXITS);
            successes += exits - (long) LONGS.getVolatile(counts, base + CONFLICTS);
        }
        return successes;
    }

    long conflicts()
    {
        long conflicts = 0;
        for (int stripe = 0; stripe <= stripeMask; stripe++)
        {
            conflicts += (long) LONGS.getVolatile(counts, base(stripe) + CONFLICTS);
        }
        return conflicts;
    }

    private static int base(final int stripe)
    {
        return (stripe + 1) * PAD;
    }

    private int stripe()
    {
        long id = Thread.currentThread().getId();
        id *= 0x9E3779B97F4A7C15L;
        return (int) (id >>> 40) & stripeMask;
    }
}
