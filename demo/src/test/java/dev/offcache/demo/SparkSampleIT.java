package dev.offcache.demo;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.testkit.s3.S3ProxyServer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The demo end to end, as {@code ./offcache-demo s3} and {@code ./offcache-demo spark} run it (one JVM here): the
 * local S3 origin holds the sample dataset; the Spark application reads it through S3A and offcache (the shaded
 * hadoop-runtime jar, configuration only); its answer equals the one computed from the rows as written; the second
 * run makes no origin GET (counted by S3Proxy) and hits in the cache, as the counters file shows from outside.
 */
class SparkSampleIT
{
    @TempDir
    Path tmp;

    @Test
    @Timeout(600)
    void theSecondRunIsServedByTheCacheAndBothEqualTheRowsWritten() throws Exception
    {
        final Path counters = tmp.resolve("spark.counters");
        System.setProperty("offcache.counters.file", counters.toString());
        try (S3ProxyServer origin = LocalS3Origin.start(0))
        {
            final Map<String, List<Long>> expected = expected();
            final SparkSession spark = SparkSample.session(origin.endpoint().toString());
            try
            {
                final String path = "s3a://" + LocalS3Origin.BUCKET + "/" + SampleDataset.PREFIX;
                assertEquals(expected, actual(SparkSample.countriesAndAmounts(spark, path)));
                final long firstGets = origin.counters().gets();
                final long firstBytes = origin.counters().bytes();
                assertTrue(firstGets > 0, "the first run read the origin");
                final Map<String, Long> afterFirst = counters(counters);

                assertEquals(expected, actual(SparkSample.countriesAndAmounts(spark, path)));
                assertEquals(firstGets, origin.counters().gets(), "no origin GET in the second run");
                assertEquals(firstBytes, origin.counters().bytes(), "no origin byte in the second run");
                final Map<String, Long> afterSecond = counters(counters);
                final String hits = "offcache_range_block_hits_total";
                assertTrue(afterSecond.get(hits) > afterFirst.get(hits), "the second run hit: " + afterSecond);
                assertEquals(afterFirst.get("offcache_range_block_misses_total"),
                    afterSecond.get("offcache_range_block_misses_total"), "and missed nothing: " + afterSecond);
            }
            finally
            {
                spark.stop();
                System.clearProperty("offcache.counters.file");
            }
        }
    }

    /**
     * The counters file as {@code offcache-counters} prints it, through the shaded jar's own reader (by name: the
     * jar is this module's only offcache dependency, and in a reactor build before package it is not there yet).
     */
    @SuppressWarnings("unchecked")
    private static Map<String, Long> counters(final Path file) throws Exception
    {
        return (Map<String, Long>) Class.forName("dev.offcache.range.metrics.CountersFile")
            .getMethod("read", Path.class).invoke(null, file);
    }

    /** country -> {rows, amount in cents}, from the rows the dataset writes. */
    private static Map<String, List<Long>> expected()
    {
        final Map<String, long[]> sums = new TreeMap<>();
        for (int f = 0; f < SampleDataset.FILES; f++)
        {
            final java.util.SplittableRandom random = new java.util.SplittableRandom(1000 + f);
            for (int r = 0; r < SampleDataset.ROWS_PER_FILE; r++)
            {
                final long id = (long) f * SampleDataset.ROWS_PER_FILE + r;
                final long[] country = sums.computeIfAbsent(
                    SampleDataset.COUNTRIES[(int) (id % SampleDataset.COUNTRIES.length)], (k) -> new long[2]);
                country[0]++;
                country[1] += Math.round(Math.floor(random.nextDouble() * 100_000));
            }
        }
        final Map<String, List<Long>> out = new TreeMap<>();
        sums.forEach((country, s) -> out.put(country, List.of(s[0], s[1])));
        return out;
    }

    private static Map<String, List<Long>> actual(final List<Row> rows)
    {
        final Map<String, List<Long>> out = new TreeMap<>();
        for (final Row row : rows)
        {
            out.put(row.getString(0), List.of(row.getLong(1), Math.round(row.getDouble(2) * 100)));
        }
        return out;
    }
}
