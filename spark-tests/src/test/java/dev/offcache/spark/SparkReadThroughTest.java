package dev.offcache.spark;

import java.util.List;
import java.util.Map;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.offcache.testkit.s3.OriginCounters;
import dev.offcache.testkit.s3.S3ProxyServer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Spark 4 in local mode reading a Parquet dataset and an Iceberg table on S3Proxy through S3A, with offcache added by
 * configuration only (the shaded runtime jars on the class path, {@code spark.hadoop.fs.s3a.impl} and the Iceberg
 * catalog's {@code io-impl}): query results equal the same query without the cache, and the second run reads no
 * byte of the data files from the origin, counted at the origin (S3Proxy's blob store).
 */
class SparkReadThroughTest
{
    private static final String BUCKET = "lake";
    private static final String DATASET = "s3a://" + BUCKET + "/trips";
    private static final String QUERY = "SELECT city, count(*) AS trips, sum(fare) AS fares, max(id) AS last " +
        "FROM %s WHERE fare > 100 GROUP BY city ORDER BY city";
    private static final long ROWS = 2_000_000;

    private static S3ProxyServer proxy;
    private static SparkSession spark;

    @BeforeAll
    static void start() throws Exception
    {
        proxy = S3ProxyServer.start(BUCKET);
        final SparkSession.Builder builder = SparkSession.builder()
            .master("local[2]")
            .appName("offcache-spark-tests")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "4")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1");
        for (final Map.Entry<String, String> setting : proxy.s3aSettings().entrySet())
        {
            builder.config("spark.hadoop." + setting.getKey(), setting.getValue());
        }
        // What a user adds to read through offcache (docs/engines.md), nothing else.
        builder.config("spark.hadoop.fs.s3a.impl", "dev.offcache.hadoop.fs.OffcacheFileSystem")
            .config("spark.hadoop.offcache.l1.mb", "256")
            // The plain read below picks the real S3A per query; Hadoop's instance cache ignores configurations.
            .config("spark.hadoop.fs.s3a.impl.disable.cache", "true")
            .config("spark.sql.catalog.ice", "org.apache.iceberg.spark.SparkCatalog")
            .config("spark.sql.catalog.ice.type", "hadoop")
            .config("spark.sql.catalog.ice.warehouse", "s3a://" + BUCKET + "/iceberg")
            .config("spark.sql.catalog.ice.io-impl", "dev.offcache.iceberg.io.OffcacheFileIO")
            .config("spark.sql.catalog.ice.offcache.io-impl", "org.apache.iceberg.hadoop.HadoopFileIO")
            .config("spark.sql.catalog.ice.offcache.l1.mb", "256")
            // Iceberg's HadoopFileIO reads through the real S3A (else it would read through both adapters).
            .config("spark.sql.catalog.ice.hadoop.fs.s3a.impl", "org.apache.hadoop.fs.s3a.S3AFileSystem");
        spark = builder.getOrCreate();
        spark.range(0, ROWS, 1, 4)
            .selectExpr("id", "concat('city-', id % 37) AS city", "(id % 1000) * 0.25 AS fare")
            .write().parquet(DATASET);
        plain().createOrReplaceTempView("plain");
    }

    @AfterAll
    static void stop()
    {
        if (spark != null)
        {
            spark.stop();
        }
        if (proxy != null)
        {
            proxy.close();
        }
    }

    /** The dataset read by the real S3A, no cache: the expected answers. */
    private static Dataset<Row> plain()
    {
        return spark.read().option("fs.s3a.impl", "org.apache.hadoop.fs.s3a.S3AFileSystem").parquet(DATASET);
    }

    private static boolean dataFile(final String key, final String under)
    {
        return key.startsWith(BUCKET + "/" + under + "/") && key.endsWith(".parquet");
    }

    @Test
    void parquetThroughTheHadoopAdapterEqualsThePlainReadAndTheSecondRunReadsNothing()
    {
        final List<Row> expected = spark.sql(String.format(QUERY, "plain")).collectAsList();
        assertEquals(37, expected.size());
        spark.read().parquet(DATASET).createOrReplaceTempView("cached");
        final OriginCounters origin = proxy.counters();
        origin.reset();
        assertEquals(expected, spark.sql(String.format(QUERY, "cached")).collectAsList());
        final long cold = origin.bytes((key) -> dataFile(key, "trips"));
        assertTrue(cold > 0, "the first run read the files from the origin: " + origin);
        origin.reset();
        assertEquals(expected, spark.sql(String.format(QUERY, "cached")).collectAsList());
        assertEquals(0, origin.bytes((key) -> dataFile(key, "trips")),
            "the second run read nothing of the data files from the origin: " + origin);
        System.out.println("parquet: cold run read " + cold + " bytes of data files from the origin, warm run 0");
    }

    @Test
    void icebergThroughTheFileIoEqualsThePlainReadAndTheSecondRunReadsNothing()
    {
        final List<Row> expected = spark.sql(String.format(QUERY, "plain")).collectAsList();
        spark.sql("CREATE TABLE ice.db.trips USING iceberg AS SELECT * FROM plain");
        final OriginCounters origin = proxy.counters();
        origin.reset();
        assertEquals(expected, spark.sql(String.format(QUERY, "ice.db.trips")).collectAsList());
        final long cold = origin.bytes((key) -> dataFile(key, "iceberg"));
        assertTrue(cold > 0, "the first run read the files from the origin: " + origin);
        origin.reset();
        assertEquals(expected, spark.sql(String.format(QUERY, "ice.db.trips")).collectAsList());
        assertEquals(0, origin.bytes((key) -> dataFile(key, "iceberg")),
            "the second run read nothing of the data files from the origin: " + origin);
        System.out.println("iceberg: cold run read " + cold + " bytes of data files from the origin, warm run 0");
    }
}
