package dev.offcache.perf.pairing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.Scale;

import dev.offcache.perf.TestComparison;
import dev.offcache.perf.jmh.Metric;
import dev.offcache.perf.jmh.Separation;

/**
 * The speedup chart's whiskers and the tables' verdict must never disagree: the interval of speedups lies wholly
 * above 1× exactly when offcache wins beyond the error bars, wholly below exactly when the baseline does, for
 * throughput and for time per operation alike.
 */
class SpeedupIntervalProperties
{
    @Property(tries = 2000)
    void theIntervalExcludesOneExactlyWhenTheVerdictNamesAWinner(
        @ForAll @Scale(6) @DoubleRange(min = 0.001, max = 1e6) final double ours,
        @ForAll @Scale(6) @DoubleRange(min = 0, max = 2) final double oursRelativeError,
        @ForAll @Scale(6) @DoubleRange(min = 0.001, max = 1e6) final double baseline,
        @ForAll @Scale(6) @DoubleRange(min = 0, max = 2) final double baselineRelativeError,
        @ForAll final boolean higherIsBetter)
    {
        final String unit = higherIsBetter ? "ops/s" : "us/op";
        final Comparison pair = new TestComparison("op", Map.of(), "offcache", "b",
            Metric.of(ours, ours * oursRelativeError, unit), Metric.of(baseline, baseline * baselineRelativeError,
            unit), higherIsBetter);
        final double[] interval = pair.speedupInterval();
        final double speedup = pair.speedup();
        assertTrue(interval[0] <= speedup * (1 + 1e-12) && speedup <= interval[1] * (1 + 1e-12),
            "the speedup lies in its interval");
        final Separation separation = pair.separation();
        assertEquals(separation == Separation.FIRST_BETTER, interval[0] > 1, "offcache better iff low > 1×");
        assertEquals(separation == Separation.SECOND_BETTER, interval[1] < 1, "baseline better iff high < 1×");
        if (oursRelativeError >= 1 || baselineRelativeError >= 1)
        {
            // An interval that reaches zero leaves the ratio open-ended on one side.
            assertTrue(interval[0] == 0 || interval[1] == Double.POSITIVE_INFINITY);
        }
    }
}
