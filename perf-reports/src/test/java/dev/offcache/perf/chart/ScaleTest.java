package dev.offcache.perf.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

class ScaleTest
{
    @Test
    void theSpeedupAxisIsSymmetricAroundOneInOneTwoFiveSteps()
    {
        final Scale scale = Scale.speedup(55);
        assertEquals(0.01, scale.min(), 1e-12);
        assertEquals(100, scale.max(), 1e-12);
        assertEquals(0.5, scale.position(1), 1e-12);
        assertEquals(0.5 - scale.position(0.5), scale.position(2) - 0.5, 1e-12, "0.5× and 2× mirror");
        assertEquals(1.0, scale.origin());
        assertEquals(List.of(0.01, 0.1, 1.0, 10.0, 100.0), scale.ticks(), "decades only over four decades");
        assertEquals(List.of(0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0), Scale.speedup(8).ticks());
        assertEquals("0.02×", scale.tickLabel(0.02));
        assertEquals(2, Scale.speedup(1.1).max(), "at least 0.5× to 2×");
        assertEquals(5, Scale.speedup(2.5).max());
        assertEquals(1000, Scale.speedup(860).max());
        assertEquals(List.of(1e-3, 1e-2, 0.1, 1.0, 10.0, 100.0, 1000.0), Scale.speedup(860).ticks(),
            "decades only over many decades");
        assertTrue(Scale.speedup(1.1).ticks().containsAll(List.of(0.5, 1.0, 1.5, 2.0)));
        assertEquals(Double.NEGATIVE_INFINITY, Scale.speedup(2).position(0), "zero is off a log axis");
    }

    @Test
    void theLogAxisSpansWholeDecadesAndTheLinearAxisStartsAtZero()
    {
        final Scale log = Scale.log(19, 2010);
        assertEquals(10, log.min(), 1e-12);
        assertEquals(10_000, log.max(), 1e-9);
        assertEquals(10, log.origin(), 1e-12);
        assertEquals(1.0 / 3, log.position(100), 1e-12);
        final Scale linear = Scale.linear(290);
        assertEquals(0, linear.origin());
        assertEquals(400, linear.max(), 1e-9, "290 × 1.05 rounded up to the 100 step");
        assertEquals(List.of(0.0, 100.0, 200.0, 300.0, 400.0), linear.ticks());
    }

    @Test
    void tickLabelsAreCompact()
    {
        assertEquals("250", Scale.compact(250));
        assertEquals("10k", Scale.compact(10_000));
        assertEquals("1.5M", Scale.compact(1_500_000));
        assertEquals("2G", Scale.compact(2e9));
        assertEquals("0.667", Scale.compact(1 / 1.5));
        assertEquals("0.001", Scale.compact(0.001));
        assertEquals("1000", Scale.compact(1000));
    }
}
