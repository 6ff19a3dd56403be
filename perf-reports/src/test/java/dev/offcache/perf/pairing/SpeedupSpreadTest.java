package dev.offcache.perf.pairing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.offcache.perf.TestComparison;

class SpeedupSpreadTest
{
    @Test
    void theMedianAndTheWorstPairStandBesideTheMean()
    {
        final TestComparison a = TestComparison.throughput("a", "x", 6.86, 0.1, 1, 0.01);
        final TestComparison b = TestComparison.throughput("b", "x", 860.13, 1, 1, 0.01);
        final TestComparison c = TestComparison.throughput("c", "x", 0.53, 0.3, 1, 0.5);
        final TestComparison d = TestComparison.throughput("d", "x", 82.58, 90, 1, 0.9);
        final TestComparison e = TestComparison.throughput("e", "x", 1, 0.1, 0, 0.1);
        final SpeedupSpread spread = SpeedupSpread.of(List.of(a, b, c, d, e));
        assertEquals(5, spread.pairs());
        assertEquals(4, spread.withSpeedup(), "no speedup against a zero score");
        assertEquals(3, spread.oursBetter(), "a and b, and e: 1 ± 0.1 against 0 ± 0.1 is better, without a ratio");
        assertEquals(0, spread.baselineBetter());
        assertEquals(2, spread.noClearWinner());
        assertEquals(Math.pow(6.86 * 860.13 * 0.53 * 82.58, 0.25), spread.geometricMean(), 1e-9);
        assertEquals(a, spread.median(), "of four, the lower middle one: 6.86 (0.53, 6.86, 82.58, 860.13)");
        assertEquals(c, spread.worst());
        assertEquals(b, spread.best());
        assertEquals(d, SpeedupSpread.of(List.of(a, b, d)).median());
    }

    @Test
    void noPairsNoStatistics()
    {
        final SpeedupSpread spread = SpeedupSpread.of(List.of());
        assertEquals(Double.NaN, spread.geometricMean());
        assertNull(spread.median());
        assertNull(spread.worst());
    }
}
