package dev.offcache.spark.runtime;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

import dev.offcache.spark.OffcacheCounters;
import dev.offcache.spark.OffcacheDatasets;

/**
 * What a Spark user does with the runtime jar, run in a child JVM whose class path is Spark's jars and the shaded jar
 * only: a {@code local[2]} session with offcache's plugin and SQL extension, a frame cached through
 * {@link OffcacheDatasets}, two aggregates compared with the uncached one, offcache's materialization jobs counted
 * by a listener. Prints one {@code OK} line with what it saw, or {@code FAILED} and exits 1.
 */
public final class SparkRuntimeProbe
{
    private static final String JOB_PROPERTY = "spark.offcache.materialization";

    private SparkRuntimeProbe()
    {
    }

    /**
     * Runs the probe.
     *
     * @param args the parent directory of the executor's directory.
     * @throws Exception on any failure (the parent test reads the exit code and output).
     */
    public static void main(final String[] args) throws Exception
    {
        final Path executorDir = Path.of(args[0]);
        final SparkSession spark = SparkSession.builder()
            .master("local[2]")
            .appName("offcache-spark-runtime-probe")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.plugins", "dev.offcache.spark.OffcachePlugin")
            .config("spark.sql.extensions", "dev.offcache.spark.OffcacheSparkExtensions")
            .config("spark.offcache.executor.dir", executorDir.toString())
            .getOrCreate();
        final AtomicInteger materializations = new AtomicInteger();
        spark.sparkContext().addSparkListener(new SparkListener()
        {
            @Override
            public void onJobStart(final SparkListenerJobStart jobStart)
            {
                if (jobStart.properties() != null && jobStart.properties().getProperty(JOB_PROPERTY) != null)
                {
                    materializations.incrementAndGet();
                }
            }
        });
        try
        {
            final Dataset<Row> input = spark.range(0, 200_000, 1, 4).selectExpr("id",
                "CASE WHEN id % 7 = 0 THEN NULL ELSE concat('name-', id % 1000) END AS name",
                "CAST(id AS DECIMAL(18, 2)) / 3 AS amount", "named_struct('x', id * 0.5D, 'k', id % 10) AS point");
            final String[] aggregate = {"count(*) AS n", "count(name) AS names", "sum(length(name)) AS chars",
                "sum(amount) AS amount", "sum(point.x) AS x", "sum(point.k) AS k"};
            final Row expected = input.selectExpr(aggregate).first();
            final Dataset<Row> cached = OffcacheDatasets.cache(input);
            final Row first = cached.selectExpr(aggregate).first();
            spark.sparkContext().listenerBus().waitUntilEmpty();
            final int afterFirst = materializations.get();
            final long files = countFiles(executorDir, ".data");
            final Row second = cached.filter("id >= 0").selectExpr(aggregate).first();
            spark.sparkContext().listenerBus().waitUntilEmpty();
            final int afterSecond = materializations.get();
            final OffcacheCounters counters = OffcacheDatasets.counters();
            if (!expected.equals(first) || !expected.equals(second))
            {
                throw new AssertionError("rows differ: uncached " + expected + ", first " + first + ", second " +
                    second);
            }
            System.out.println("OK expected=" + expected + " materializationsAfterFirst=" + afterFirst +
                " materializationsAfterSecond=" + afterSecond + " hits=" + counters.hits() + " localReads=" +
                counters.localReads() + " uncached=" + counters.uncached() + " partitionFiles=" + files + " agrona=" +
                loadable("org.agrona.DirectBuffer") + " shadedAgrona=" +
                loadable("dev.offcache.shaded.org.agrona.DirectBuffer") + " aeron=" + loadable("io.aeron.Aeron"));
        }
        catch (final Throwable ex)
        {
            System.err.println("FAILED: " + ex);
            ex.printStackTrace();
            spark.stop();
            System.exit(1);
        }
        spark.stop();
        System.out.println("LEFT files=" + countFiles(executorDir, ""));
    }

    private static boolean loadable(final String className)
    {
        try
        {
            Class.forName(className, false, SparkRuntimeProbe.class.getClassLoader());
            return true;
        }
        catch (final ClassNotFoundException ex)
        {
            return false;
        }
    }

    private static long countFiles(final Path root, final String suffix) throws java.io.IOException
    {
        try (Stream<Path> paths = Files.walk(root))
        {
            final List<Path> files = paths.filter(Files::isRegularFile)
                .filter(p -> p.getFileName().toString().endsWith(suffix)).toList();
            return files.size();
        }
    }
}
