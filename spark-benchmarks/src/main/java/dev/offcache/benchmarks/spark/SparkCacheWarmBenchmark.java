package dev.offcache.benchmarks.spark;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.spark.sql.Row;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Warm actions on a cached DataFrame, {@code local[2]} (driver and executor in the benchmark JVM): a full-row
 * aggregate, a selective filter and a join, each checked against the uncached result. The frame is materialized
 * by a first action in the trial's set-up. The counters, summed over the measured iterations (divide by
 * {@code actions}, or by {@code iterations} for the per-iteration peaks): executor GC time from the JVM
 * ({@code gcMs}) and from finished tasks ({@code taskGcMs}); CPU time of the finished tasks ({@code taskCpuMs}:
 * less sensitive to other load on the machine than the score, which is wall time); peaks of heap used, the direct
 * and mapped buffer pools while actions run; heap still used after a full GC at the end of the iteration
 * ({@code heapRetainedMiB}: what cached data keeps on the heap); Spark's storage memory on and off the heap; input
 * partitions computed in materializations (0 for a cache that holds).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = "-Xmx3g")
@Warmup(iterations = 1, time = 2)
@Measurement(iterations = 3, time = 2)
public class SparkCacheWarmBenchmark extends SparkCacheBenchmark
{
    /**
     * Starts Spark and materializes the cached frame with a first action.
     */
    @Setup(Level.Trial)
    public void setUp()
    {
        run = SparkRun.local(impl, rows, partitions);
        cached = run.recache(null);
        run.aggregate(cached);
    }

    /**
     * Every column of every row.
     *
     * @param usage the counters.
     * @return the result.
     */
    @Benchmark
    public List<Row> warmAggregate(final Usage usage)
    {
        usage.actions++;
        return run.aggregate(cached);
    }

    /**
     * About 0.1% of the rows, spread over every partition.
     *
     * @param usage the counters.
     * @return the result.
     */
    @Benchmark
    public List<Row> warmFilter(final Usage usage)
    {
        usage.actions++;
        return run.filter(cached);
    }

    /**
     * A join with a 1000-row dimension table (broadcast), grouped.
     *
     * @param usage the counters.
     * @return the result.
     */
    @Benchmark
    public List<Row> warmJoin(final Usage usage)
    {
        usage.actions++;
        return run.join(cached);
    }

    /** Executor GC and memory per iteration; summed over iterations by JMH. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Usage
    {
        /** Actions run. */
        public long actions;
        /** Iterations (1 each; divides the peaks). */
        public long iterations;
        /** JVM GC time, ms. */
        public long gcMs;
        /** GC time reported by finished tasks ({@code jvmGCTime}), ms; overlapping tasks both count a pause. */
        public long taskGcMs;
        /** CPU time of finished tasks ({@code executorCpuTime}), ms: deserializing and running them. */
        public double taskCpuMs;
        /** Peak heap used while actions ran, MiB. */
        public long heapPeakMiB;
        /** Heap used after a full GC at the iteration's end, MiB. */
        public long heapRetainedMiB;
        /** Peak of the JDK's direct buffer pool, MiB. */
        public long directPeakMiB;
        /** Peak of the JDK's mapped buffer pool, MiB. */
        public long mappedPeakMiB;
        /** Spark storage memory on the heap at the iteration's end, MiB. */
        public long storageHeapMiB;
        /** Spark storage memory off the heap at the iteration's end, MiB. */
        public long storageOffHeapMiB;
        /** Input partitions computed, in whole materializations. */
        public double inputMaterializations;

        private final JvmUsage jvm = new JvmUsage();
        private long gcStart;
        private long taskGcStart;
        private long taskCpuStart;
        private double inputStart;

        /**
         * Notes where the counters start and starts sampling (JMH zeroes the counter fields itself).
         *
         * @param bench the benchmark state.
         */
        @Setup(Level.Iteration)
        public void begin(final SparkCacheWarmBenchmark bench)
        {
            gcStart = JvmUsage.gcMillis();
            taskGcStart = bench.run.listener.taskGcMs.get();
            taskCpuStart = bench.run.listener.taskCpuNs.get();
            inputStart = bench.run.inputMaterializations();
            jvm.start();
        }

        /**
         * Stops sampling and fills the counters.
         *
         * @param bench the benchmark state.
         * @throws InterruptedException if interrupted.
         */
        @TearDown(Level.Iteration)
        public void end(final SparkCacheWarmBenchmark bench) throws InterruptedException
        {
            jvm.stop();
            bench.run.awaitEvents(); // the last action's task ends reach the listener asynchronously
            iterations = 1;
            gcMs = JvmUsage.gcMillis() - gcStart;
            taskGcMs = bench.run.listener.taskGcMs.get() - taskGcStart;
            taskCpuMs = (bench.run.listener.taskCpuNs.get() - taskCpuStart) / 1e6;
            inputMaterializations = bench.run.inputMaterializations() - inputStart;
            heapPeakMiB = jvm.heapPeakMiB();
            directPeakMiB = jvm.directPeakMiB();
            mappedPeakMiB = jvm.mappedPeakMiB();
            storageHeapMiB = JvmUsage.storageOnHeapMiB();
            storageOffHeapMiB = JvmUsage.storageOffHeapMiB();
            heapRetainedMiB = JvmUsage.heapRetainedMiB();
        }
    }
}
