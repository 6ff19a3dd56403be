package dev.offcache.benchmarks.spark;

import java.io.IOException;
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
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

import dev.offcache.spark.OffcacheCounters;
import dev.offcache.spark.OffcacheDatasets;

/**
 * Warm actions on a cached DataFrame: a full-row aggregate, a selective filter and a join, each checked against the
 * uncached result. The frame is materialized by a first action in the trial's set-up. {@code master=local} runs
 * {@code local[2]} (driver and executor in the benchmark JVM); {@code master=local-cluster} runs two executor JVMs
 * ({@code local-cluster[2,1,1024]}), so what the executors spend is apart from what the driver spends. The counters,
 * summed over the measured iterations (divide by {@code actions}, or by {@code iterations} for the per-iteration
 * peaks): GC time of this JVM ({@code gcMs}: driver and executor in local mode, the driver alone on a local cluster)
 * and of finished tasks ({@code taskGcMs}: the executors' JVMs); CPU time of the finished tasks ({@code taskCpuMs}:
 * less sensitive to other load on the machine than the score, which is wall time); peaks of heap used, the direct
 * and mapped buffer pools while actions run (this JVM sampled every 10 ms in local mode; on a local cluster the
 * largest executor JVM's, polled by Spark every 100 ms and sent with its heartbeats); heap still used after a full
 * GC at the end of the iteration ({@code heapRetainedMiB}: this JVM's, so what cached data keeps on the heap in
 * local mode only); Spark's storage memory on and off the heap (on a local cluster, summed over the executors'
 * heartbeats); input partitions computed in materializations (0 for a cache that holds).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = SparkBenchmarkMain.DRIVER_HEAP)
@Warmup(iterations = 1, time = 2)
@Measurement(iterations = 3, time = 2)
public class SparkCacheWarmBenchmark extends SparkCacheBenchmark
{
    /** Where Spark runs: {@code local} ({@code local[2]}) or {@code local-cluster} (two executor JVMs). */
    @Param({"local"})
    public String master;

    /**
     * Starts Spark, materializes the cached frame with a first action and runs the measured query once, so its
     * uncached expected result is computed here and no iteration, warm-up or measured, computes the input.
     *
     * @param params names the measured method.
     * @throws IOException if a local cluster's Spark home cannot be made.
     * @throws InterruptedException if interrupted while waiting for a local cluster's executors.
     */
    @Setup(Level.Trial)
    public void setUp(final BenchmarkParams params) throws IOException, InterruptedException
    {
        run = switch (master)
        {
            case "local" -> SparkRun.local(impl, rows, partitions);
            case "local-cluster" -> SparkRun.localCluster(impl, rows, partitions, (builder) -> builder
                .config("spark.executor.metrics.pollingInterval", "100ms"));
            default -> throw new IllegalArgumentException(
                "master must be local or local-cluster, not '" + master + "'");
        };
        cached = run.recache(null);
        run.aggregate(cached);
        if (params.getBenchmark().endsWith(".warmFilter"))
        {
            run.filter(cached);
        }
        else if (params.getBenchmark().endsWith(".warmJoin"))
        {
            run.join(cached);
        }
    }

    private boolean executorJvms()
    {
        return "local-cluster".equals(master);
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
        /**
         * offcache's read-backs from a file of the task's own executor (mapped) and fetched from another's; as the
         * executors' offcache heartbeats (every second) report them, so a read late in an iteration may count in
         * the next. 0 for the other variants.
         */
        public long localReads;
        /** See {@link #localReads}. */
        public long remoteReads;

        private final JvmUsage jvm = new JvmUsage();
        private long gcStart;
        private long taskGcStart;
        private long taskCpuStart;
        private double inputStart;
        private OffcacheCounters offcacheStart;

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
            offcacheStart = OffcacheDatasets.counters();
            bench.run.listener.resetExecutorPeaks();
            if (!bench.executorJvms())
            {
                jvm.start(); // on a local cluster the peaks are the executors', from their heartbeats
            }
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
            final boolean executorJvms = bench.executorJvms();
            if (executorJvms)
            {
                // The last stages' peaks come with the executors' next heartbeats (every 2 s on a local cluster).
                bench.run.listener.awaitExecutorHeartbeats(30_000);
            }
            else
            {
                jvm.stop();
            }
            bench.run.awaitEvents(); // the last action's task ends reach the listener asynchronously
            iterations = 1;
            gcMs = JvmUsage.gcMillis() - gcStart;
            taskGcMs = bench.run.listener.taskGcMs.get() - taskGcStart;
            taskCpuMs = (bench.run.listener.taskCpuNs.get() - taskCpuStart) / 1e6;
            inputMaterializations = bench.run.inputMaterializations() - inputStart;
            final OffcacheCounters offcache = OffcacheDatasets.counters();
            localReads = offcache.localReads() - offcacheStart.localReads();
            remoteReads = offcache.remoteReads() - offcacheStart.remoteReads();
            heapPeakMiB = executorJvms ? bench.run.listener.executorHeapPeak() >> 20 : jvm.heapPeakMiB();
            directPeakMiB = executorJvms ? bench.run.listener.executorDirectPeak() >> 20 : jvm.directPeakMiB();
            mappedPeakMiB = executorJvms ? bench.run.listener.executorMappedPeak() >> 20 : jvm.mappedPeakMiB();
            storageHeapMiB = executorJvms ? bench.run.listener.executorStorage(false) >> 20 :
                JvmUsage.storageOnHeapMiB();
            storageOffHeapMiB = executorJvms ? bench.run.listener.executorStorage(true) >> 20 :
                JvmUsage.storageOffHeapMiB();
            heapRetainedMiB = JvmUsage.heapRetainedMiB();
        }
    }
}
