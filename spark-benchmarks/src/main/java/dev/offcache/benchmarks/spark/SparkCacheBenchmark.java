package dev.offcache.benchmarks.spark;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What the Spark cache benchmarks share: their parameters (the cache variant and the input's size, with the same
 * defaults for each so their results line up), the Spark run a trial starts, the cached frame it holds, and the
 * trial's tear-down that releases the frame and stops Spark. Each benchmark starts the run its own way (in this JVM
 * or as a local cluster) and says how its actions use the frame.
 */
@State(Scope.Benchmark)
public abstract class SparkCacheBenchmark
{
    /** The variant: {@code offcache} is ours, the others Spark's (see {@link CacheVariant}). */
    @Param({"offcache", "none", "cache", "disk-only", "off-heap", "local-checkpoint"})
    public String impl;

    /** Input rows. */
    @Param({"1000000"})
    public long rows;

    /** Input partitions. */
    @Param({"8"})
    public int partitions;

    SparkRun run;
    Dataset<Row> cached;

    /** Releases the cache and stops Spark (on a local cluster the executor JVMs exit with it). */
    @TearDown(Level.Trial)
    public void tearDown()
    {
        run.variant.release(cached);
        run.close();
    }
}
