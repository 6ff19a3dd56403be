package dev.offcache.perf.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

class ProgressTrackerTest
{
    /** The output of {@code benchmarks.jar -lp} (JMH 1.37). */
    static final List<String> LISTING = List.of(
        "Benchmarks: ",
        "dev.offcache.benchmarks.slab.SlabAllocateBenchmark.allocateRelease",
        "  param \"impl\" = {offcache, allocateDirect}",
        "  param \"slotSize\" = {4096, 65536}",
        "dev.offcache.benchmarks.core.Crc32cBenchmark.compute",
        "  param \"size\" = {4096}",
        "dev.offcache.benchmarks.core.Crc32cBenchmark.computeHeap");

    @Test
    void planCountsParameterCombinations()
    {
        final BenchmarkPlan plan = BenchmarkPlan.parse(LISTING);
        assertEquals(List.of("dev.offcache.benchmarks.slab.SlabAllocateBenchmark.allocateRelease",
            "dev.offcache.benchmarks.core.Crc32cBenchmark.compute",
            "dev.offcache.benchmarks.core.Crc32cBenchmark.computeHeap"), plan.benchmarks());
        assertEquals(List.of("dev.offcache.benchmarks.slab.SlabAllocateBenchmark",
            "dev.offcache.benchmarks.core.Crc32cBenchmark"), plan.suites());
        assertEquals(4 + 1 + 1, plan.expectedRuns());
    }

    @Test
    void oneProgressLinePerRunWithSuiteRunsLeftElapsedAndEta()
    {
        final AtomicLong clock = new AtomicLong(0);
        final ProgressTracker tracker = new ProgressTracker(BenchmarkPlan.parse(LISTING), clock::get);
        final List<String> shown = new ArrayList<>();
        final List<String> jmhOutput = List.of(
            "# JMH version: 1.37",
            "# Benchmark mode: Throughput, ops/time",
            "# Benchmark: dev.offcache.benchmarks.core.Crc32cBenchmark.computeHeap",
            "# Run progress: 0.00% complete, ETA 00:00:30",
            "# Fork: 1 of 1",
            "# Warmup Iteration   1: 19113440.775 ops/s",
            "Iteration   1: 10256952.322 ops/s",
            "# Benchmark: dev.offcache.benchmarks.slab.SlabAllocateBenchmark.allocateRelease",
            "# Parameters: (impl = offcache, slotSize = 4096)",
            "# Run progress: 66.67% complete, ETA 00:00:10",
            "<failure>",
            "",
            "java.lang.IllegalStateException: boom");
        for (final String line : jmhOutput)
        {
            clock.addAndGet(21_000_000_000L);
            final String message = tracker.onLine(line);
            if (message != null)
            {
                shown.add(message);
            }
        }
        assertEquals(List.of(
            "[perf] run 1/6 · suite core.Crc32cBenchmark (1 of 2, 1 after it) · computeHeap · elapsed 1:24 · " +
                "JMH ETA 00:00:30",
            "[perf] run 2/6 · suite slab.SlabAllocateBenchmark (2 of 2, 0 after it) · allocateRelease " +
                "(impl = offcache, slotSize = 4096) · elapsed 3:30 · JMH ETA 00:00:10",
            "[perf] FAILED: slab.SlabAllocateBenchmark.allocateRelease (impl = offcache, slotSize = 4096) " +
                "(stack trace in the JMH log)"), shown);
        assertEquals(2, tracker.runsStarted());
        assertEquals(1, tracker.failures());
        assertNull(tracker.onLine("Iteration   2: 1.0 ops/s"));
    }

    @Test
    void profilesHaveTheirJmhOptionsAndUnknownNamesAreRefused()
    {
        assertEquals(Profile.QUICK, Profile.byName("quick"));
        assertEquals(List.of("-f", "1", "-wi", "0", "-i", "1", "-r", "300ms"), Profile.byName("SMOKE").jmhArgs());
        assertEquals("unknown profile 'fast'; the profiles are smoke, quick and full",
            assertThrows(IllegalArgumentException.class,
                () -> Profile.byName("fast")).getMessage());
    }
}
