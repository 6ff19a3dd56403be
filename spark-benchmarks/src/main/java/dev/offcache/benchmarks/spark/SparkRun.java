package dev.offcache.benchmarks.spark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.stream.Stream;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.util.LongAccumulator;

/**
 * One benchmark trial's Spark application: the session for one {@link CacheVariant}, the input and dimension
 * frames, a {@link RunListener} and the uncached results every action is checked against (computed once, on
 * first use).
 */
final class SparkRun implements AutoCloseable
{
    final SparkSession spark;
    final CacheVariant variant;
    final RunListener listener = new RunListener();
    final LongAccumulator inputComputations;
    final Dataset<Row> input;
    final Dataset<Row> dimension;
    final int partitions;
    private List<Row> expectedAggregate;
    private List<Row> expectedFilter;
    private List<Row> expectedJoin;

    private SparkRun(final SparkSession spark, final CacheVariant variant, final long rows, final int partitions)
    {
        this.spark = spark;
        this.variant = variant;
        this.partitions = partitions;
        spark.sparkContext().addSparkListener(listener);
        inputComputations = spark.sparkContext().longAccumulator("inputPartitionsComputed");
        input = BenchData.input(spark, rows, partitions, inputComputations);
        dimension = BenchData.dimension(spark);
    }

    /**
     * Starts an application in local mode, {@code local[2]}: driver and executor in this JVM.
     *
     * @param impl the variant's JMH name.
     * @param rows input rows.
     * @param partitions input partitions.
     * @return the run.
     */
    static SparkRun local(final String impl, final long rows, final int partitions)
    {
        final CacheVariant variant = CacheVariant.of(impl);
        LocalCluster.loopbackOnly();
        final SparkSession.Builder builder = SparkSession.builder()
            .master("local[2]")
            .appName("offcache-spark-benchmarks")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", String.valueOf(partitions));
        return new SparkRun(variant.configure(builder).getOrCreate(), variant, rows, partitions);
    }

    /**
     * Starts an application on {@code local-cluster[2,1,1024]}: two executor JVMs, and waits for both.
     *
     * @param impl the variant's JMH name.
     * @param rows input rows.
     * @param partitions input partitions.
     * @return the run.
     * @throws IOException if the Spark home cannot be made or the flags read.
     * @throws InterruptedException if interrupted while waiting for executors.
     */
    static SparkRun localCluster(final String impl, final long rows, final int partitions)
        throws IOException, InterruptedException
    {
        return localCluster(impl, rows, partitions, b -> b.appName("offcache-spark-benchmarks"));
    }

    /**
     * {@link #localCluster(String, long, int)} with settings of the caller's.
     *
     * @param impl the variant's JMH name.
     * @param rows input rows.
     * @param partitions input partitions.
     * @param settings adds settings to the session builder.
     * @return the run.
     * @throws IOException if the Spark home cannot be made or the flags read.
     * @throws InterruptedException if interrupted while waiting for executors.
     */
    static SparkRun localCluster(
        final String impl, final long rows, final int partitions, final Consumer<SparkSession.Builder> settings)
        throws IOException, InterruptedException
    {
        final CacheVariant variant = CacheVariant.of(impl);
        final SparkSession.Builder builder = LocalCluster.builder(2, 1024, SparkBenchmarkMain.offcacheFlags())
            .appName("offcache-spark-benchmarks")
            .config("spark.sql.shuffle.partitions", String.valueOf(partitions));
        settings.accept(builder);
        final SparkRun run = new SparkRun(variant.configure(builder).getOrCreate(), variant, rows, partitions);
        LocalCluster.awaitExecutors(run.spark.sparkContext(), 2, Duration.ofSeconds(300));
        return run;
    }

    /**
     * The full-row aggregate of {@code df}, checked.
     *
     * @param df the frame (cached or not).
     * @return the result.
     */
    List<Row> aggregate(final Dataset<Row> df)
    {
        if (expectedAggregate == null)
        {
            expectedAggregate = BenchData.aggregate(input);
        }
        return BenchData.check("aggregate", expectedAggregate, BenchData.aggregate(df));
    }

    /**
     * The selective filter over {@code df}, checked.
     *
     * @param df the frame.
     * @return the result.
     */
    List<Row> filter(final Dataset<Row> df)
    {
        if (expectedFilter == null)
        {
            expectedFilter = BenchData.filter(input);
        }
        return BenchData.check("filter", expectedFilter, BenchData.filter(df));
    }

    /**
     * The join of {@code df} with the dimension table, checked.
     *
     * @param df the frame.
     * @return the result.
     */
    List<Row> join(final Dataset<Row> df)
    {
        if (expectedJoin == null)
        {
            expectedJoin = BenchData.join(input, dimension);
        }
        return BenchData.check("join", expectedJoin, BenchData.join(df, dimension));
    }

    /**
     * A fresh cached frame over the input (the previous one, if any, released first).
     *
     * @param previous the frame to release, or {@code null}.
     * @return the new cached frame, not yet materialized.
     */
    Dataset<Row> recache(final Dataset<Row> previous)
    {
        if (previous != null)
        {
            variant.release(previous);
        }
        return variant.cache(input);
    }

    /**
     * Partitions of the input computed so far, in materializations (a full computation is 1.0).
     *
     * @return the count.
     */
    double inputMaterializations()
    {
        return inputComputations.value() / (double) partitions;
    }

    /** Waits until the driver's listeners have seen every event posted so far (job starts, task ends). */
    void awaitEvents()
    {
        try
        {
            spark.sparkContext().listenerBus().waitUntilEmpty(TimeUnit.SECONDS.toMillis(30));
        }
        catch (final TimeoutException e)
        {
            throw new IllegalStateException("the driver's listener bus did not drain in 30 s", e);
        }
    }

    /**
     * Deletes a directory tree, if it exists.
     *
     * @param root the directory.
     * @throws IOException if a file cannot be deleted.
     */
    static void deleteRecursively(final Path root) throws IOException
    {
        if (root == null || !Files.exists(root))
        {
            return;
        }
        try (Stream<Path> paths = Files.walk(root))
        {
            for (final Path p : paths.sorted(Comparator.reverseOrder()).toList())
            {
                Files.delete(p);
            }
        }
    }

    @Override
    public void close()
    {
        spark.stop();
        System.clearProperty("spark.testing");
    }
}
