package dev.offcache.perf.jmh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ScoreUnitsTest
{
    @Test
    void throughputIsHigherIsBetterAndEverythingElseLower()
    {
        assertTrue(ScoreUnits.higherIsBetter("ops/s"));
        assertTrue(ScoreUnits.higherIsBetter("ops/us"));
        assertFalse(ScoreUnits.higherIsBetter("ns/op"));
        assertFalse(ScoreUnits.higherIsBetter("s/op"));
        assertFalse(ScoreUnits.higherIsBetter("B/op"));
    }

    @Test
    void convertsBetweenTimeUnits()
    {
        assertEquals(1000.0, ScoreUnits.conversionFactor("ops/ms", "ops/s"), 1e-9);
        assertEquals(1e-6, ScoreUnits.conversionFactor("ops/s", "ops/us"), 1e-18);
        assertEquals(1000.0, ScoreUnits.conversionFactor("ms/op", "us/op"), 1e-9);
        assertEquals(1e-3, ScoreUnits.conversionFactor("ns/op", "us/op"), 1e-15);
        assertEquals(300.0, Metric.of(0.3, 0.02, "ms/op").in("us/op").score(), 1e-9);
        assertEquals(20.0, Metric.of(0.3, 0.02, "ms/op").in("us/op").error(), 1e-9);
    }

    @Test
    void refusesToConvertBetweenKinds()
    {
        assertFalse(ScoreUnits.compatible("ops/s", "us/op"));
        assertFalse(ScoreUnits.compatible("B/op", "us/op"));
        assertThrows(IllegalArgumentException.class, () -> ScoreUnits.conversionFactor("ops/s", "us/op"));
        assertEquals(Separation.INCOMPARABLE, Separation.of(Metric.of(1, 0.1, "ops/s"), Metric.of(1, 0.1, "us/op")));
    }

    @Test
    void separationNeedsNonOverlappingIntervals()
    {
        assertEquals(Separation.FIRST_BETTER, Separation.of(Metric.of(100, 5, "ops/s"), Metric.of(80, 5, "ops/s")));
        assertEquals(Separation.SECOND_BETTER, Separation.of(Metric.of(100, 5, "us/op"), Metric.of(80, 5, "us/op")));
        assertEquals(Separation.OVERLAP, Separation.of(Metric.of(100, 10, "ops/s"), Metric.of(85, 6, "ops/s")));
        assertEquals(Separation.NO_ERROR_BARS,
            Separation.of(Metric.of(100, Double.NaN, "ops/s"), Metric.of(10, 1, "ops/s")));
        // 0.1 ms/op ± 0.005 is 100 us/op ± 5: the same interval.
        assertEquals(Separation.OVERLAP, Separation.of(Metric.of(100, 5, "us/op"), Metric.of(0.1, 0.005, "ms/op")));
    }
}
