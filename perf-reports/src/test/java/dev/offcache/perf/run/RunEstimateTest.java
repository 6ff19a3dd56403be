package dev.offcache.perf.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

class RunEstimateTest
{
    @Test
    void theFullProfileTakesAMinuteOfIterationsPerRun()
    {
        final RunEstimate full = RunEstimate.of(Profile.FULL.jmhArgs(), 58);
        assertEquals(58 * 3 * 20.0, full.iterationSecondsTotal(), 1e-9);
        assertEquals("58 runs × 3 forks × (5 × 2 s warm-up + 5 × 2 s measurement) = 58 min of iterations, plus " +
            "174 forks × ~2 s of JVM start-up and set-up = 6 min: about 64 min on a quiet machine (suites that " +
            "start servers or generate data take longer, and a loaded machine several times that)",
            full.describe());
        assertEquals(58 * 3.5, RunEstimate.of(Profile.QUICK.jmhArgs(), 58).iterationSecondsTotal(), 1e-9);
    }

    @Test
    void aQuickForkCostsAsMuchToStartAsItIterates()
    {
        // the committed report's 97 runs: 340 s of iterations, and a fork per run costing about as much again
        final RunEstimate quick = RunEstimate.of(Profile.QUICK.jmhArgs(), 97);
        assertEquals(97 * 3.5, quick.iterationSecondsTotal(), 1e-9);
        assertEquals(97 * RunEstimate.FORK_SECONDS, quick.forkSecondsTotal(), 1e-9);
        assertTrue(quick.forkSecondsTotal() / quick.iterationSecondsTotal() > 0.5, "start-up is no rounding error");
        final RunEstimate full = RunEstimate.of(Profile.FULL.jmhArgs(), 97);
        assertTrue(full.forkSecondsTotal() / full.iterationSecondsTotal() <= 0.1, "in full a tenth");
    }

    @Test
    void laterOptionsWinAsInJmhAndMissingOnesTakeJmhsDefaults()
    {
        final List<String> args = new ArrayList<>(Profile.FULL.jmhArgs());
        args.addAll(List.of("-f", "1", "-r", "500ms", "-p", "size=4096"));
        final RunEstimate estimate = RunEstimate.of(args, 10);
        assertEquals(1, estimate.forks());
        assertEquals(0.5, estimate.iterationSeconds(), 1e-12);
        assertEquals(10 * (5 * 2 + 5 * 0.5), estimate.iterationSecondsTotal(), 1e-9);
        assertEquals(1 * 5 * (5 * 10 + 5 * 10.0), RunEstimate.of(List.of(), 1).iterationSecondsTotal(), 1e-9);
        assertEquals(90, RunEstimate.seconds("1.5min"), 1e-12);
        assertEquals("2 h 5 min", RunEstimate.duration(7500));
        assertEquals("45 s", RunEstimate.duration(45));
    }
}
