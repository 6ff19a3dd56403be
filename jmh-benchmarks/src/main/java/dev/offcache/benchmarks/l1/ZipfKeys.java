package dev.offcache.benchmarks.l1;

import java.util.Random;

/**
 * Draws integers in {@code [0, n)} with Zipf-distributed popularity (rank {@code r} has weight {@code 1/(r+1)^s}),
 * from a precomputed cumulative table: setup-time only, never on a measured path.
 */
public final class ZipfKeys
{
    private final double[] cumulative;
    private final Random random;

    /**
     * Creates a generator.
     *
     * @param n        the number of distinct values.
     * @param exponent the skew {@code s}; about 1 for typical caches.
     * @param seed     the random seed, for repeatable workloads.
     */
    public ZipfKeys(final int n, final double exponent, final long seed)
    {
        if (n < 1)
        {
            throw new IllegalArgumentException("n must be >= 1: " + n);
        }
        cumulative = new double[n];
        double sum = 0;
        for (int i = 0; i < n; i++)
        {
            sum += 1.0 / Math.pow(i + 1, exponent);
            cumulative[i] = sum;
        }
        for (int i = 0; i < n; i++)
        {
            cumulative[i] /= sum;
        }
        random = new Random(seed);
    }

    /**
     * Draws the next value; rank 0 is the most popular.
     *
     * @return a value in {@code [0, n)}.
     */
    public int next()
    {
        final double u = random.nextDouble();
        int low = 0;
        int high = cumulative.length - 1;
        while (low < high)
        {
            final int mid = (low + high) >>> 1;
            if (cumulative[mid] < u)
            {
                low = mid + 1;
            }
            else
            {
                high = mid;
            }
        }
        return low;
    }
}
