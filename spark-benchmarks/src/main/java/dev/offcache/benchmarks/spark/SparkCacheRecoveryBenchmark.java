package dev.offcache.benchmarks.spark;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.spark.SparkContext;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * Executor loss on {@code local-cluster[2,1,1024]} (two executor JVMs of one core and 1 GiB each, forked by Spark's
 * in-process Worker): each invocation materializes a fresh cached frame with a first action (both executors up; not in
 * the score, its time is the counter {@code materializeMs}), then the score times {@code kill -9} of the executor JVM
 * that ran the most materialization tasks (so holds the most cached partitions) until the next right result of the
 * full-row aggregate: recovery over one materialization is {@code score / (materializeMs / actions)}. A variant whose
 * next action fails ({@code local-checkpoint}: its blocks are gone and it has no lineage) recovers the way its user
 * must, by building the frame again and repeating the action; the time includes the failed action. Spark's Worker
 * launches a replacement executor; the next invocation waits for it. Counters summed over invocations (divide by {@code
 * actions}): the materializing first action's time, input computations during recovery in whole materializations,
 * failed actions.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = "-Xmx2g")
@Warmup(iterations = 0)
@Measurement(iterations = 3)
public class SparkCacheRecoveryBenchmark extends SparkCacheBenchmark
{
    private String victim;
    private long materializeNanos;

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
     * Both executors up, a fresh cached frame materialized by a first action (timed for the counter), the victim
     * chosen.
     *
     * @throws InterruptedException if interrupted.
     */
    @Setup(Level.Invocation)
    public void prepare() throws InterruptedException
    {
        final SparkContext sc = run.spark.sparkContext();
        LocalCluster.awaitExecutors(sc, 2, Duration.ofSeconds(300));
        cached = run.recache(cached);
        run.awaitEvents();
        run.listener.resetTasks();
        final long start = System.nanoTime();
        run.aggregate(cached);
        materializeNanos = System.nanoTime() - start;
        run.awaitEvents();
        victim = run.listener.busiestExecutor();
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
        counts.add(run.inputMaterializations() - before, failed, materializeNanos);
        return result;
    }

    /** Input computations and failed actions; summed over iterations by JMH. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Counts
    {
        /** Invocations. */
        public long actions;
        /** The materializing first actions' time, ms. */
        public double materializeMs;
        /** Input partitions computed in the timed part, in whole materializations. */
        public double inputMaterializations;
        /** Actions that failed before the right result. */
        public long failedActions;

        void add(final double materializations, final int failed, final long materializeNanos)
        {
            actions++;
            materializeMs += materializeNanos / 1e6;
            inputMaterializations += materializations;
            failedActions += failed;
        }
    }
}
