package dev.offcache.spark;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;

import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

import dev.offcache.registry.state.CacheKey;
import dev.offcache.spark.catalyst.OffcacheRelation;
import dev.offcache.spark.catalyst.SparkJobRunner;

/**
 * One Spark application in local mode ({@code local[2]}) with offcache's plugin and SQL extension, for the tests that
 * stop and start applications: its session, the offcache materialization jobs it ran (counted by a listener), a small
 * source frame of several types and a digest of a frame's rows. {@link #close()} stops the application.
 */
final class LocalSparkApp implements AutoCloseable
{
    static final long ROWS = 200_000;
    static final int PARTITIONS = 4;

    final SparkSession spark;
    private final List<String> materializations = new ArrayList<>();

    private LocalSparkApp(final SparkSession spark)
    {
        this.spark = spark;
    }

    /**
     * Starts an application.
     *
     * @param executorDir the parent of the executor's own directory.
     * @param settings    more {@code spark.offcache.*} settings (the registry backend).
     */
    static LocalSparkApp start(final Path executorDir, final Map<String, String> settings)
    {
        final SparkSession.Builder builder = SparkSession.builder()
            .master("local[2]")
            .appName("offcache-registry-backend-test")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.plugins", OffcachePlugin.class.getName())
            .config("spark.sql.extensions", OffcacheSparkExtensions.class.getName())
            .config(OffcacheSettings.EXECUTOR_DIR, executorDir.toString());
        settings.forEach(builder::config);
        final LocalSparkApp app = new LocalSparkApp(builder.getOrCreate());
        app.spark.sparkContext().addSparkListener(new SparkListener()
        {
            @Override
            public void onJobStart(final SparkListenerJobStart jobStart)
            {
                final String jobId = jobStart.properties() == null ? null :
                    jobStart.properties().getProperty(SparkJobRunner.JobProperty());
                if (jobId != null)
                {
                    synchronized (app.materializations)
                    {
                        app.materializations.add(jobId);
                    }
                }
            }
        });
        return app;
    }

    /** The uncached query: longs, nullable strings, decimals wider than a long, a nested struct. */
    Dataset<Row> source()
    {
        return spark.range(0, ROWS, 1, PARTITIONS).selectExpr(
            "id",
            "CASE WHEN id % 11 = 0 THEN NULL ELSE concat('row-', id) END AS s",
            "CAST(id AS DECIMAL(30, 4)) * 1000000000000 / 7 AS d",
            "named_struct('a', CAST(id % 5 AS INT), 'b', CASE WHEN id % 3 = 0 THEN NULL ELSE 'b' END) AS nested");
    }

    /** Count, sum and the XOR of a 64-bit hash of every column: equal digests mean equal rows (as multisets). */
    static Row digest(final Dataset<Row> df)
    {
        return df.selectExpr("count(*)", "sum(id)", "bit_xor(xxhash64(id, s, d, nested))", "count(s)")
            .collectAsList().get(0);
    }

    /** offcache materialization jobs this application started so far. */
    int materializations()
    {
        try
        {
            spark.sparkContext().listenerBus().waitUntilEmpty();
        }
        catch (final TimeoutException ex)
        {
            throw new AssertionError("the listener bus did not drain", ex);
        }
        synchronized (materializations)
        {
            return materializations.size();
        }
    }

    /** The key of the offcache node a cached frame reads. */
    static CacheKey keyOf(final Dataset<Row> cached)
    {
        return OffcacheRelation.firstKey(((org.apache.spark.sql.classic.Dataset<Row>) cached).queryExecution()
            .analyzed());
    }

    /**
     * A frame reading the dataset cached under {@code key} (what {@link OffcacheDatasets#cache} returns, for a key an
     * earlier application of the same driver minted), computed from {@code lineage} when it is not cached.
     */
    static Dataset<Row> cachedUnder(final CacheKey key, final Dataset<Row> lineage)
    {
        final org.apache.spark.sql.classic.Dataset<Row> classic = (org.apache.spark.sql.classic.Dataset<Row>) lineage;
        OffcacheRelation.installStrategy(classic.sparkSession());
        return org.apache.spark.sql.classic.Dataset.ofRows(classic.sparkSession(),
            OffcacheRelation.of(key, classic.queryExecution()));
    }

    @Override
    public void close()
    {
        spark.stop();
        SparkSession.clearActiveSession();
        SparkSession.clearDefaultSession();
    }
}
