package dev.offcache.range.policy;

/**
 * A count-min sketch of 4-bit counters that estimates how often each {@code long} key was seen recently: the
 * popularity memory of TinyLFU admission. It keeps no keys, so it remembers keys that were evicted or never
 * admitted.
 *
 * <p>Each key maps to four counters, one per hash function, in a table of {@code long} words holding 16 counters
 * each; its estimate is the least of the four, saturating at 15. Aging: after {@code 10 x capacity} increments
 * every counter is halved, so the sketch follows a shifting workload instead of accumulating history. Memory: about
 * 8 bytes per cached entry, on the heap, allocated once. Single-threaded.
 */
public final class FrequencySketch
{
    /** The highest estimate a counter can reach. */
    public static final int MAX_FREQUENCY = 15;

    private static final long RESET_MASK = 0x7777777777777777L;
    private static final long ONE_MASK = 0x1111111111111111L;
    private static final long[] SEEDS =
    {
        0xc3a5c85c97cb3127L, 0xb492b66fbe98f273L, 0x9ae16a3b2f90404fL, 0xcbf29ce484222325L
    };

    private final long[] table;
    private final int tableMask;
    private final int sampleSize;
    private int additions;
    private long resets;

    /**
     * Creates a sketch sized for a cache of the given number of entries.
     *
     * @param capacity the number of entries the cache holds, at least 1.
     */
    public FrequencySketch(final int capacity)
    {
        if (capacity < 1)
        {
            throw new IllegalArgumentException("capacity must be >= 1: " + capacity);
        }
        final int words = Math.max(8, Integer.highestOneBit(Math.min(capacity, 1 << 29) - 1) << 1);
        table = new long[words];
        tableMask = words - 1;
        sampleSize = (int) Math.min(Integer.MAX_VALUE, 10L * capacity);
    }

    /**
     * The estimated number of recent occurrences of the key.
     *
     * @param key any key.
     * @return 0..{@value #MAX_FREQUENCY}.
     */
    public int frequency(final long key)
    {
        final long hash = spread(key);
        int min = MAX_FREQUENCY;
        for (int i = 0; i < 4; i++)
        {
            final long h = rehash(hash, i);
            final int count = (int) ((table[index(h)] >>> shift(h)) & 0xF);
            min = Math.min(min, count);
        }
        return min;
    }

    /**
     * Counts one occurrence of the key (conservatively: only the counters at the current minimum grow), aging the
     * whole sketch when the sample is full.
     *
     * @param key any key.
     */
    public void increment(final long key)
    {
        final long hash = spread(key);
        final int min = frequency(key);
        if (min == MAX_FREQUENCY)
        {
            return;
        }
        for (int i = 0; i < 4; i++)
        {
            final long h = rehash(hash, i);
            final int word = index(h);
            final int shift = shift(h);
            if (((table[word] >>> shift) & 0xF) == min)
            {
                table[word] += 1L << shift;
            }
        }
        if (++additions >= sampleSize)
        {
            reset();
        }
    }

    /**
     * How many times the sketch has aged (halved every counter).
     *
     * @return the number of resets.
     */
    public long resets()
    {
        return resets;
    }

    /**
     * Halves every counter: the aging step, run automatically every {@code 10 x capacity} increments.
     */
    public void reset()
    {
        long odd = 0;
        for (int i = 0; i < table.length; i++)
        {
            odd += Long.bitCount(table[i] & ONE_MASK);
            table[i] = (table[i] >>> 1) & RESET_MASK;
        }
        // Truncation loses half a count per odd counter; take that out of the sample size too.
        additions = (int) ((additions - (odd >>> 2)) >>> 1);
        resets++;
    }

    private int index(final long h)
    {
        return (int) (h >>> 32) & tableMask;
    }

    private static int shift(final long h)
    {
        return ((int) h & 15) << 2;
    }

    private static long rehash(final long hash, final int i)
    {
        long h = (hash + SEEDS[i]) * SEEDS[(i + 1) & 3];
        h ^= h >>> 29;
        return h;
    }

    static long spread(final long key)
    {
        long x = key;
        x = (x ^ (x >>> 30)) * 0xbf58476d1ce4e5b9L;
        x = (x ^ (x >>> 27)) * 0x94d049bb133111ebL;
        return x ^ (x >>> 31);
    }
}
