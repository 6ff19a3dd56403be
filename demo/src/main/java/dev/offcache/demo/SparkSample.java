package dev.offcache.demo;

import java.io.PrintStream;
import java.util.List;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.sum;

/**
 * {@code offcache-demo spark}: a Spark application (local mode, in this JVM) that reads the sample dataset from the
 * local S3 origin through S3A with offcache as the {@code s3a} file system, by configuration only (the settings of
 * docs/engines.md), and runs the same aggregation {@code --runs} times: the first run reads the origin, the later
 * ones are served from the cache (the origin's traffic lines show it, and so do the cache's counters, in the file
 * named by {@code offcache.counters.file}, read from outside with {@code ./offcache-counters FILE}).
 */
public final class SparkSample
{
    private SparkSample()
    {
    }

    /**
     * The Spark session the sample uses: every offcache and S3A setting is configuration.
     *
     * @param endpoint the S3 endpoint, e.g. {@code http://127.0.0.1:9100}.
     * @return a local session (the caller stops it).
     */
    public static SparkSession session(final String endpoint)
    {
        return SparkSession.builder()
            .appName("offcache-demo")
            .master("local[2]")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "2")
            // offcache: the s3a scheme goes through the cache, which wraps the real S3AFileSystem
            .config("spark.hadoop.fs.s3a.impl", "dev.offcache.hadoop.fs.OffcacheFileSystem")
            .config("spark.hadoop.offcache.l1.mb", "256")
            // S3A against the local origin (path-style, no TLS, its static keys)
            .config("spark.hadoop.fs.s3a.endpoint", endpoint)
            .config("spark.hadoop.fs.s3a.endpoint.region", "us-east-1")
            .config("spark.hadoop.fs.s3a.path.style.access", "true")
            .config("spark.hadoop.fs.s3a.connection.ssl.enabled", "false")
            .config("spark.hadoop.fs.s3a.access.key", "offcache-access")
            .config("spark.hadoop.fs.s3a.secret.key", "offcache-secret")
            .config("spark.hadoop.fs.s3a.aws.credentials.provider",
                "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider")
            .getOrCreate();
    }

    /**
     * Rows per country with the sum of their amounts, ordered by country.
     *
     * @param spark the session.
     * @param path  the dataset, e.g. {@code s3a://lake/events/}.
     * @return country, rows, sum(amount).
     */
    public static List<Row> countriesAndAmounts(final SparkSession spark, final String path)
    {
        final Dataset<Row> events = spark.read().parquet(path);
        return events.groupBy("country").agg(count("id").as("rows"), sum("amount").as("amount"))
            .orderBy("country").collectAsList();
    }

    static int run(final String[] args, final PrintStream out)
    {
        String endpoint = "http://127.0.0.1:" + LocalS3Origin.DEFAULT_PORT;
        int runs = 2;
        for (int i = 0; i < args.length; i++)
        {
            if ("--endpoint".equals(args[i]) && i + 1 < args.length)
            {
                endpoint = args[++i];
            }
            else if ("--runs".equals(args[i]) && i + 1 < args.length)
            {
                runs = Integer.parseInt(args[++i]);
            }
            else
            {
                System.err.println("offcache-demo spark: unknown argument " + args[i] + " (usage: offcache-demo " +
                    "spark [--endpoint URL] [--runs N]; the cache's counters file: -Doffcache.counters.file=FILE " +
                    "in OFFCACHE_JAVA_OPTS)");
                return 2;
            }
        }
        final String path = "s3a://" + LocalS3Origin.BUCKET + "/" + SampleDataset.PREFIX;
        final SparkSession spark = session(endpoint);
        try
        {
            for (int run = 1; run <= runs; run++)
            {
                final long start = System.nanoTime();
                final List<Row> rows = countriesAndAmounts(spark, path);
                final long ms = (System.nanoTime() - start) / 1_000_000;
                out.println("run " + run + ": " + rows.size() + " countries in " + ms + " ms");
                for (final Row row : rows)
                {
                    out.printf("  %s %d rows, amount %.2f%n", row.getString(0), row.getLong(1), row.getDouble(2));
                }
                out.flush();
            }
            final String counters = System.getProperty("offcache.counters.file");
            if (counters != null)
            {
                out.println("the cache's counters: ./offcache-counters " + counters);
            }
        }
        finally
        {
            spark.stop();
        }
        return 0;
    }
}
