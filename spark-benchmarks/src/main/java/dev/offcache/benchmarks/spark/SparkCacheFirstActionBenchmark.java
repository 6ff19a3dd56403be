package dev.offcache.benchmarks.spark;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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
 * The first action on a freshly cached DataFrame, {@code local[2]}: the full-row aggregate that materializes the
 * cache and reads it (single shot, a new cached frame before each); and two such first actions submitted together
 * from two threads. The counters per invocation (summed over iterations, divide by {@code actions}): input
 * computations in whole materializations (a cache that dedupes concurrent first use computes the input once; one
 * that does not, up to twice) and Spark jobs started.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = SparkBenchmarkMain.DRIVER_HEAP)
@Warmup(iterations = 1)
@Measurement(iterations = 3)
public class SparkCacheFirstActionBenchmark extends SparkCacheBenchmark
{
    private ExecutorService threads;

    /** Starts Spark and computes the expected result (uncached). */
    @Setup(Level.Trial)
    public void setUp()
    {
        run = SparkRun.local(impl, rows, partitions);
        run.aggregate(run.input);
        threads = Executors.newFixedThreadPool(2);
    }

    /** A fresh, not yet materialized cached frame for the next invocation. */
    @Setup(Level.Invocation)
    public void freshCache()
    {
        cached = run.recache(cached);
    }

    /** Stops the two submitting threads (the shared tear-down releases the cache and stops Spark). */
    @TearDown(Level.Trial)
    public void stopThreads()
    {
        threads.shutdownNow();
    }

    /**
     * One first action: materialize and read.
     *
     * @param counts the counters.
     * @return the result.
     */
    @Benchmark
    public List<Row> firstAction(final Counts counts)
    {
        return run.aggregate(cached);
    }

    /**
     * Two first actions on the same fresh cached frame, submitted together from two threads.
     *
     * @param counts the counters.
     * @return the second thread's result.
     * @throws Exception if an action fails.
     */
    @Benchmark
    public List<Row> twoConcurrentFirstActions(final Counts counts) throws Exception
    {
        final CountDownLatch start = new CountDownLatch(1);
        final CompletableFuture<List<Row>> first =
            CompletableFuture.supplyAsync(() -> awaitThenAggregate(start), threads);
        final CompletableFuture<List<Row>> second =
            CompletableFuture.supplyAsync(() -> awaitThenAggregate(start), threads);
        start.countDown();
        first.get();
        final List<Row> result = second.get();
        return result;
    }

    private List<Row> awaitThenAggregate(final CountDownLatch start)
    {
        try
        {
            start.await();
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return run.aggregate(cached);
    }

    /** Input computations and jobs per invocation; summed over iterations by JMH. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Counts
    {
        /** Invocations. */
        public long actions;
        /** Input partitions computed, in whole materializations. */
        public double inputMaterializations;
        /** Spark jobs started. */
        public long jobs;

        private double inputStart;
        private long jobsStart;

        /**
         * Notes the counts before an invocation.
         *
         * @param bench the benchmark state.
         */
        @Setup(Level.Invocation)
        public void begin(final SparkCacheFirstActionBenchmark bench)
        {
            bench.run.awaitEvents();
            inputStart = bench.run.inputMaterializations();
            jobsStart = bench.run.listener.jobs.get();
        }

        /**
         * Adds the invocation's counts, once the driver's listeners have seen its events.
         *
         * @param bench the benchmark state.
         */
        @TearDown(Level.Invocation)
        public void end(final SparkCacheFirstActionBenchmark bench)
        {
            bench.run.awaitEvents();
            actions++;
            inputMaterializations += bench.run.inputMaterializations() - inputStart;
            jobs += bench.run.listener.jobs.get() - jobsStart;
        }
    }
}
