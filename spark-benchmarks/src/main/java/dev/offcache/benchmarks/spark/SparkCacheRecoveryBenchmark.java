package dev.offcache.benchmarks.spark;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.spark.SparkContext;
import org.apache.spark.sql.Dataset;
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

/**
 * Executor loss on {@code local-cluster[2,1,1024]} (two executor JVMs of one core and 1 GiB each, forked by
 * Spark's in-process Worker): {@code materialize} times a first action on a fresh cached frame (both executors
 * up); {@code recoverAfterKill} materializes first (not timed), then times {@code kill -9} of the executor JVM that
 * ran the most materialization tasks (so holds the most cached partitions) until the next right result of the
 * full-row aggregate. A variant whose next action fails ({@code local-checkpoint}: its blocks are gone and it has no
 * lineage) recovers the way its user must, by building the frame again and repeating the action; the time
 * includes the failed action. Spark's Worker launches a replacement executor; the next invocation waits for it.
 * Counters per invocation (divide by {@code actions}): input computations in whole materializations, failed actions.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = "-Xmx2g")
@Warmup(iterations = 1)
@Measurement(iterations = 3)
public class SparkCacheRecoveryBenchmark
{
    /** The variant: {@code offcache} is ours, the others Spark's (see {@link CacheVariant}). */
    @Param({"none", "cache", "disk-only", "off-heap", "local-checkpoint"})
    public String impl;

    /** Input rows. */
    @Param({"1000000"})
    public long rows;

    /** Input partitions. */
    @Param({"8"})
    public int partitions;

    SparkRun run;
    private Dataset<Row> cached;
    private String victim;

    /**
     * Starts the application and its two executors; computes the expected result.
     *
     * @throws IOException if the Spark home cannot be made.
     * @throws InterruptedException if interrupted.
     */
    @Setup(Level.Trial)
    public void setUp() throws IOException, InterruptedException
    {
        run = SparkRun.localCluster(impl, rows, partitions);
        run.aggregate(run.input);
    }

    /**
     * Both executors up, a fresh cached frame; for {@code recoverAfterKill} also materialized, and the victim chosen.
     *
     * @param params which benchmark runs.
     * @throws InterruptedException if interrupted.
     */
    @Setup(Level.Invocation)
    public void prepare(final org.openjdk.jmh.infra.BenchmarkParams params) throws InterruptedException
    {
        final SparkContext sc = run.spark.sparkContext();
        LocalCluster.awaitExecutors(sc, 2, Duration.ofSeconds(120));
        cached = run.recache(cached);
        if (params.getBenchmark().endsWith("recoverAfterKill"))
        {
            run.awaitEvents();
            run.listener.resetTasks();
            run.aggregate(cached);
            run.awaitEvents();
            victim = run.listener.busiestExecutor();
        }
    }

    /** Releases the cache and stops Spark (the executor JVMs exit with it). */
    @TearDown(Level.Trial)
    public void tearDown()
    {
        run.variant.release(cached);
        run.close();
    }

    /**
     * A first action with both executors up.
     *
     * @param counts the counters.
     * @return the result.
     */
    @Benchmark
    public List<Row> materialize(final Counts counts)
    {
        final double before = run.inputMaterializations();
        final List<Row> result = run.aggregate(cached);
        counts.add(run.inputMaterializations() - before, 0);
        return result;
    }

    /**
     * {@code kill -9} of the executor holding the most cached partitions, then the next right result.
     *
     * @param counts the counters.
     * @return the result.
     * @throws InterruptedException if interrupted.
     */
    @Benchmark
    public List<Row> recoverAfterKill(final Counts counts) throws InterruptedException
    {
        final double before = run.inputMaterializations();
        LocalCluster.kill9(run.spark.sparkContext(), victim);
        List<Row> result;
        int failed = 0;
        try
        {
            result = run.aggregate(cached);
        }
        catch (final RuntimeException e)
        {
            failed++;
            cached = run.recache(cached);
            result = run.aggregate(cached);
        }
        counts.add(run.inputMaterializations() - before, failed);
        return result;
    }

    /** Input computations and failed actions; summed over iterations by JMH. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Counts
    {
        /** Invocations. */
        public long actions;
        /** Input partitions computed in the timed part, in whole materializations. */
        public double inputMaterializations;
        /** Actions that failed before the right result. */
        public long failedActions;

        void add(final double materializations, final int failed)
        {
            actions++;
            inputMaterializations += materializations;
            failedActions += failed;
        }
    }
}
