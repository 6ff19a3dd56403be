package dev.offcache.spark;

import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

import dev.offcache.registry.state.CacheEntry;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.spark.catalyst.OffcacheRelation;

/**
 * The user's entry point: {@code Dataset<Row> cached = OffcacheDatasets.cache(df)} is {@code df.cache()} with the
 * data pinned on the executors as offcache output (off-heap, memory-mapped, CRC-checked) and the registry on the
 * driver. Lazy like {@code df.cache()}: the first action materializes (one Spark job) and reads back, later actions
 * — on {@code cached} itself or any plan built on it (filters, joins, aggregates) — read back without a job.
 * Classic (non-Connect) sessions; needs {@code spark.plugins=dev.offcache.spark.OffcachePlugin}. Without the plugin a
 * cached frame still gives the right rows, computed from its lineage each time.
 */
public final class OffcacheDatasets
{
    private static final long WAIT_S = 60;

    private OffcacheDatasets()
    {
    }

    /**
     * Marks a DataFrame to be cached by offcache; nothing runs until an action. Each call mints a new cache id: the
     * key is {@code (session id, cache id)}.
     *
     * @param df the DataFrame.
     * @return a DataFrame reading the cached output.
     */
    public static Dataset<Row> cache(final Dataset<Row> df)
    {
        final org.apache.spark.sql.classic.Dataset<Row> classic = classic(df);
        final org.apache.spark.sql.classic.SparkSession session = classic.sparkSession();
        OffcacheRelation.installStrategy(session);
        final OffcacheRelation relation = OffcacheRelation.of(
            new CacheKey(session.sessionUUID(), UUID.randomUUID().toString()), classic.queryExecution());
        return org.apache.spark.sql.classic.Dataset.ofRows(session, relation);
    }

    /**
     * Drops the cached output the DataFrame reads (the first offcache node of its plan) and deletes its files on the
     * executors. The DataFrame stays usable: its next action materializes again.
     *
     * @param cached a DataFrame from {@link #cache} (or built on one).
     * @return whether anything was cached.
     */
    public static boolean uncache(final Dataset<Row> cached)
    {
        final CacheKey key = OffcacheRelation.firstKey(classic(cached).queryExecution().analyzed());
        final OffcacheDriver driver = OffcacheDriver.current();
        if (key == null || driver == null)
        {
            return false;
        }
        return await(driver.uncache(key));
    }

    /**
     * Drops every dataset the session cached and deletes their files (a session has no close event in classic
     * Spark; the application's end drops everything).
     *
     * @param spark the session.
     * @return how many cached datasets were dropped.
     */
    public static int clearSession(final SparkSession spark)
    {
        final OffcacheDriver driver = OffcacheDriver.current();
        if (driver == null)
        {
            return 0;
        }
        return await(driver.removeSession(((org.apache.spark.sql.classic.SparkSession) spark).sessionUUID()));
    }

    /**
     * What offcache did in this application so far.
     *
     * @return the counters, all zero when the plugin is not running.
     */
    public static OffcacheCounters counters()
    {
        final OffcacheDriver driver = OffcacheDriver.current();
        return driver == null ? new OffcacheCounters(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0) : driver.counters();
    }

    /**
     * The registry's entry for the dataset a cached DataFrame reads (tests look at its files).
     *
     * @param cached a DataFrame from {@link #cache}.
     * @return the entry, or null when absent or no plugin runs.
     */
    static CacheEntry entryOf(final Dataset<Row> cached)
    {
        final CacheKey key = OffcacheRelation.firstKey(classic(cached).queryExecution().analyzed());
        final OffcacheDriver driver = OffcacheDriver.current();
        return key == null || driver == null ? null : await(driver.lookup(key));
    }

    private static org.apache.spark.sql.classic.Dataset<Row> classic(final Dataset<Row> df)
    {
        if (df instanceof org.apache.spark.sql.classic.Dataset<Row> classic)
        {
            return classic;
        }
        throw new IllegalArgumentException("offcache caches DataFrames of classic sessions, not " +
            df.getClass().getName() + " (Spark Connect clients need a server-side plugin)");
    }

    private static <T> T await(final java.util.concurrent.CompletableFuture<T> future)
    {
        try
        {
            return future.get(WAIT_S, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", ex);
        }
        catch (final ExecutionException | TimeoutException ex)
        {
            throw new IllegalStateException("offcache registry did not answer", ex);
        }
    }
}
