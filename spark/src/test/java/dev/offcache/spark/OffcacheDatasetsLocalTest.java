package dev.offcache.spark;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.execution.ColumnarToRowExec;
import org.apache.spark.sql.execution.SortExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.exchange.ShuffleExchangeExec;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.offcache.core.region.MappedRegion;
import dev.offcache.registry.state.Materialized;
import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.spark.catalyst.OffcacheScanExec;
import dev.offcache.spark.catalyst.SparkJobRunner;
import dev.offcache.spark.columnar.ColumnarLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * offcache's {@code df.cache()} on a real Spark 4 in local mode ({@code local[2]}, the plugin and the SQL extension
 * configured, Spark's own planner, scheduler and tasks): results equal the uncached query's for 1.2 million rows of
 * several types over 6 partitions; materialization jobs counted by a listener (jobs carrying offcache's job
 * property); files on the executor's directory looked at directly.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class OffcacheDatasetsLocalTest
{
    private static final long ROWS = 1_200_000;
    private static final int PARTITIONS = 6;
    private static final Set<Long> SLOWED = ConcurrentHashMap.newKeySet();
    /** offcache job ids of the materialization jobs Spark started, in order. */
    private static final List<String> MATERIALIZATIONS = new ArrayList<>();
    /** Files the test UDF deletes the first time it runs (inside a task, while the action runs). */
    private static final Set<Path> DELETE_ON_FIRST_ROW = ConcurrentHashMap.newKeySet();

    private static Path root;
    private static SparkSession spark;
    private static long mappingsBefore;

    @BeforeAll
    static void startSpark() throws IOException
    {
        root = Files.createTempDirectory("offcache-spark-local");
        spark = SparkSession.builder()
            .master("local[2]")
            .appName("offcache-local-test")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.sql.shuffle.partitions", "4")
            .config("spark.plugins", OffcachePlugin.class.getName())
            .config("spark.sql.extensions", OffcacheSparkExtensions.class.getName())
            .config(OffcacheSettings.EXECUTOR_DIR, root.toString())
            .getOrCreate();
        spark.sparkContext().addSparkListener(new SparkListener()
        {
            @Override
            public void onJobStart(final SparkListenerJobStart jobStart)
            {
                final String jobId = jobStart.properties() == null ? null :
                    jobStart.properties().getProperty(SparkJobRunner.JobProperty());
                if (jobId != null)
                {
                    synchronized (MATERIALIZATIONS)
                    {
                        MATERIALIZATIONS.add(jobId);
                    }
                }
            }
        });
        spark.udf().register("offcache_test_delete", (UDF1<Long, Boolean>) id ->
        {
            for (final Path file : DELETE_ON_FIRST_ROW)
            {
                if (DELETE_ON_FIRST_ROW.remove(file))
                {
                    Files.deleteIfExists(file);
                }
            }
            return Boolean.TRUE;
        }, DataTypes.BooleanType);
        spark.udf().register("offcache_test_fail_materialization", (UDF1<Long, Boolean>) id ->
        {
            final org.apache.spark.TaskContext task = org.apache.spark.TaskContext.get();
            if (task.getLocalProperty(SparkJobRunner.JobProperty()) != null && SLOWED.add(task.taskAttemptId()))
            {
                // Partition 0 fails while partition 1, its file open, is still writing: Spark kills it after the
                // job failed, so its attempt ends after the job's cleanup ran.
                if (task.partitionId() == 0)
                {
                    Thread.sleep(300);
                    throw new IllegalStateException("offcache test: the materialization fails");
                }
                Thread.sleep(3_000);
            }
            return Boolean.TRUE;
        }, DataTypes.BooleanType);
        mappingsBefore = MappedRegion.liveMappings();
    }

    @AfterAll
    static void stopSpark() throws IOException
    {
        if (spark != null)
        {
            spark.stop();
        }
        try (Stream<Path> left = Files.list(root))
        {
            assertEquals(List.of(), left.toList(), "the executor's directory is deleted at shutdown");
        }
        Files.deleteIfExists(root);
    }

    @AfterEach
    void nothingLeftOpen()
    {
        assertEquals(0, OffcacheDatasets.counters().openPartitions(), "every read-back partition released");
        assertEquals(mappingsBefore, MappedRegion.liveMappings(), "every mapping unmapped");
    }

    /** The uncached query: several types, nulls, long strings, decimals wider than a long, a nested struct. */
    private static Dataset<Row> source()
    {
        return spark.range(0, ROWS, 1, PARTITIONS).selectExpr(
            "id",
            "CASE WHEN id % 7 = 0 THEN NULL ELSE CAST(id % 1000 AS INT) END AS n",
            "CASE WHEN id % 11 = 0 THEN NULL ELSE concat('row-', id, repeat('x', CAST(id % 13 AS INT))) END AS s",
            "CAST(id AS DECIMAL(30, 4)) * 1000000000000 / 7 AS d",
            "named_struct('a', CAST(id % 5 AS INT), " +
                "'b', CASE WHEN id % 3 = 0 THEN NULL ELSE concat('b', id % 17) END, " +
                "'c', array(CAST(id AS DOUBLE), CAST(id % 9 AS DOUBLE) / 2)) AS nested",
            "id % 2 = 0 AS flag",
            "date_add(DATE'2020-01-01', CAST(id % 1000 AS INT)) AS day");
    }

    private static Row digest(final Dataset<Row> df)
    {
        return df.selectExpr("count(*)", "sum(id)", "bit_xor(xxhash64(id, n, s, d, nested, flag, day))", "count(s)",
            "sum(n)").collectAsList().get(0);
    }

    private static int materializations()
    {
        try
        {
            spark.sparkContext().listenerBus().waitUntilEmpty();
        }
        catch (final java.util.concurrent.TimeoutException ex)
        {
            throw new AssertionError("the listener bus did not drain", ex);
        }
        synchronized (MATERIALIZATIONS)
        {
            return MATERIALIZATIONS.size();
        }
    }

    @Test
    void theFirstActionMaterializesOnceAndEveryLaterQueryOnTheCachedFrameRunsNoJob()
    {
        final Dataset<Row> uncached = source();
        final int jobsBefore = materializations();
        final OffcacheCounters before = OffcacheDatasets.counters();
        final Dataset<Row> cached = OffcacheDatasets.cache(source());
        assertEquals(jobsBefore, materializations(), "cache() is lazy");
        assertNull(OffcacheDatasets.entryOf(cached));

        // First action (it materializes every partition): on a sixth of the rows, compared as multisets over every
        // column, nothing differs; the digest (count, sums, XOR of a 64-bit hash of every column) covers all rows.
        assertEquals(0, cached.filter("id < 200000").exceptAll(uncached.filter("id < 200000")).count());
        assertEquals(jobsBefore + 1, materializations(), "the first action ran one materialization job");
        assertEquals(digest(uncached), digest(cached));
        assertEquals(jobsBefore + 1, materializations(), "the second action hit");

        assertEquals(uncached.filter("id % 50000 = 0").orderBy("id").collectAsList(),
            cached.filter("id % 50000 = 0").orderBy("id").collectAsList());
        assertEquals(uncached.filter("s IS NULL AND n > 500").count(), cached.filter("s IS NULL AND n > 500").count());
        assertEquals(uncached.groupBy("n").count().orderBy("n").collectAsList(),
            cached.groupBy("n").count().orderBy("n").collectAsList());
        final Dataset<Row> small = spark.range(0, ROWS, 997).selectExpr("id AS k", "id * 2 AS twice");
        assertEquals(uncached.join(small, uncached.col("id").equalTo(small.col("k"))).orderBy("id").collectAsList(),
            cached.join(small, cached.col("id").equalTo(small.col("k"))).orderBy("id").collectAsList());
        assertEquals(ROWS, cached.join(cached.select("id"), "id").count(), "a self-join of the cached frame");
        assertEquals(jobsBefore + 1, materializations(), "no query on the cached frame ran another materialization");

        final OffcacheCounters after = OffcacheDatasets.counters();
        assertEquals(1, after.materializationJobs() - before.materializationJobs());
        assertEquals(1, after.misses() - before.misses());
        // digest, sample, filter, group, join: one resolve each; the self-join two.
        assertEquals(7, after.hits() - before.hits());
        // Every partition of every read-back mapped locally (sorts read their input twice: sampling, then sorting).
        final long localReads = after.localReads() - before.localReads();
        assertTrue(localReads >= 8L * PARTITIONS && localReads % PARTITIONS == 0, "local reads " + localReads);
        assertEquals(before.remoteReads(), after.remoteReads(), "one executor: nothing fetched");
        assertEquals(before.recomputes(), after.recomputes());
        final Materialized entry = assertInstanceOf(Materialized.class, OffcacheDatasets.entryOf(cached));
        assertEquals(PARTITIONS, entry.locations().size());
        for (final PartitionLocation location : entry.locations())
        {
            assertEquals("driver", location.executorId());
            assertTrue(Files.isRegularFile(Path.of(location.path())), location.path());
            assertTrue(Path.of(location.path()).startsWith(root), "under the executor directory");
            assertEquals(ColumnarLayout.MAGIC, firstLong(Path.of(location.path())), "written column by column");
        }
        assertEquals(1, nodes(cached.filter("n > 3"), ColumnarToRowExec.class), "read as column batches");
        // A caller that asks the columnar scan itself for rows gets them too.
        final SparkPlan scan = scanOf(cached);
        assertTrue(scan.supportsColumnar());
        final JavaRDD<InternalRow> rows = scan.execute().toJavaRDD();
        assertEquals(ROWS, rows.count());
        assertEquals(ROWS * (ROWS - 1) / 2, rows.map(row -> row.getLong(0)).reduce(Long::sum));
        OffcacheDatasets.uncache(cached);
    }

    /** The offcache scan in a query's physical plan as planned. */
    private static SparkPlan scanOf(final Dataset<Row> query)
    {
        return planned(query, OffcacheScanExec.class).get(0);
    }

    @Test
    void aFrameWithAColumnOfNoColumnarFormIsCachedAndReadAsRows()
    {
        final String[] columns = {"id", "make_interval(0, 0, 0, CAST(id % 30 AS INT), 0, 0, 0) AS gap",
            "CASE WHEN id % 9 = 0 THEN NULL ELSE concat('r', id) END AS s"};
        // Sorted within partitions, so the rows written come from the sorter's on-heap pages (copied out one by one).
        final Dataset<Row> uncached = spark.range(0, 100_000, 1, PARTITIONS).selectExpr(columns)
            .sortWithinPartitions(functions.col("id").desc());
        final Dataset<Row> cached = OffcacheDatasets.cache(spark.range(0, 100_000, 1, PARTITIONS).selectExpr(columns)
            .sortWithinPartitions(functions.col("id").desc()));
        assertEquals(0, nodes(cached.filter("id > 3"), ColumnarToRowExec.class), "no columnar form for an interval");
        final String[] digest = {"count(*)", "sum(id)", "count(s)", "sum(extract(DAY FROM gap))"};
        assertEquals(uncached.selectExpr(digest).collectAsList(), cached.selectExpr(digest).collectAsList());
        assertEquals(uncached.filter("id % 997 = 0").orderBy("id").collectAsList(),
            cached.filter("id % 997 = 0").orderBy("id").collectAsList());
        final Materialized entry = assertInstanceOf(Materialized.class, OffcacheDatasets.entryOf(cached));
        for (final PartitionLocation location : entry.locations())
        {
            assertNotEquals(ColumnarLayout.MAGIC, firstLong(Path.of(location.path())), "written row by row");
        }
        OffcacheDatasets.uncache(cached);
    }

    private static long firstLong(final Path file)
    {
        try (java.io.InputStream in = Files.newInputStream(file))
        {
            return ByteBuffer.wrap(in.readNBytes(Long.BYTES)).order(java.nio.ByteOrder.nativeOrder()).getLong();
        }
        catch (final IOException ex)
        {
            throw new java.io.UncheckedIOException(ex);
        }
    }

    @Test
    void anAggregateOrJoinOnTheCachedFramesPartitioningKeysDoesNotShuffleIt()
    {
        final Dataset<Row> uncached = source().repartition(4, functions.col("n"));
        final Dataset<Row> cached = OffcacheDatasets.cache(source().repartition(4, functions.col("n")));
        final Dataset<Row> other = spark.range(0, 1000).selectExpr("CAST(id AS INT) AS n", "id * 3 AS m");
        // Before the first action the source's adaptive plan is not final: nothing is claimed, the scan is shuffled.
        assertEquals(1, exchanges(cached.groupBy("n").count()), "unknown partitioning: one exchange");
        assertEquals(digest(uncached), digest(cached));

        final Dataset<Row> grouped = cached.groupBy("n").agg(functions.count("*"), functions.sum("id"));
        final Dataset<Row> joined = cached.join(other.hint("merge"), "n").groupBy("n")
            .agg(functions.sum("m"), functions.count("*"));
        assertEquals(0, exchanges(grouped), "the cached side is hash-partitioned by n already");
        assertEquals(1, exchanges(joined), "a sort-merge join shuffles only the other side");
        assertEquals(sorted(uncached.groupBy("n").agg(functions.count("*"), functions.sum("id"))), sorted(grouped));
        assertEquals(sorted(uncached.join(other.hint("merge"), "n").groupBy("n")
            .agg(functions.sum("m"), functions.count("*"))), sorted(joined));
        // A frame cached without a known partitioning claims none.
        final Dataset<Row> plain = OffcacheDatasets.cache(source());
        assertEquals(digest(source()), digest(plain));
        assertEquals(1, exchanges(plain.groupBy("n").count()));
        OffcacheDatasets.uncache(cached);
        OffcacheDatasets.uncache(plain);
    }

    @Test
    void aSortMergeJoinOnTheSortKeyOfASortedCachedFrameDoesNotSortIt() throws InterruptedException
    {
        final Dataset<Row> uncached = source().repartition(4, functions.col("n")).sortWithinPartitions("n");
        final Dataset<Row> cached = OffcacheDatasets.cache(
            source().repartition(4, functions.col("n")).sortWithinPartitions("n"));
        final Dataset<Row> other = spark.range(0, 1000).selectExpr("CAST(id AS INT) AS n", "id * 3 AS m");
        // Before the first action the source's adaptive plan is not final: no order is claimed, both sides are sorted.
        assertEquals(2, sorts(cached.join(other.hint("merge"), "n")));
        assertEquals(digest(uncached), digest(cached));

        final Dataset<Row> joined = cached.join(other.hint("merge"), "n").groupBy("n")
            .agg(functions.sum("m"), functions.count("*"));
        assertEquals(1, sorts(joined), "the cached side is sorted by n within its partitions already");
        assertEquals(1, exchanges(joined), "and hash-partitioned by n: only the other side is shuffled");
        assertEquals(sorted(uncached.join(other.hint("merge"), "n").groupBy("n")
            .agg(functions.sum("m"), functions.count("*"))), sorted(joined));
        // The claim holds: every read-back partition comes in n order (nulls first), as written.
        final List<Long> outOfOrder = cached.select("n").mapPartitions(
            (MapPartitionsFunction<Row, Long>) (partition) ->
            {
                long wrong = 0;
                boolean valueSeen = false;
                int previous = Integer.MIN_VALUE;
                while (partition.hasNext())
                {
                    final Row row = partition.next();
                    if (row.isNullAt(0))
                    {
                        wrong += valueSeen ? 1 : 0;
                        continue;
                    }
                    wrong += row.getInt(0) < previous ? 1 : 0;
                    previous = row.getInt(0);
                    valueSeen = true;
                }
                return List.of(wrong).iterator();
            }, Encoders.LONG()).collectAsList();
        assertEquals(List.of(0L, 0L, 0L, 0L), outOfOrder);
        final Path job = jobDirectory(assertInstanceOf(Materialized.class, OffcacheDatasets.entryOf(cached)));
        OffcacheDatasets.uncache(cached);
        awaitGone(job);
    }

    @Test
    void aFailedMaterializationLeavesNoFilesAndTheActionIsRight() throws Exception
    {
        final Dataset<Row> input = source().filter("offcache_test_fail_materialization(id)");
        final Set<Path> before = Set.copyOf(jobDirectories());
        final long failedBefore = OffcacheDatasets.counters().failedJobs();
        final Dataset<Row> cached = OffcacheDatasets.cache(input);
        // The materialization job fails while another task writes; the action computes from the lineage (where the
        // UDF passes), and whatever the killed task had created goes with the failed job.
        assertEquals(digest(source()), digest(cached));
        assertEquals(failedBefore + 1, OffcacheDatasets.counters().failedJobs());
        assertNull(OffcacheDatasets.entryOf(cached));
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        List<Path> added = addedSince(before);
        while (!added.isEmpty() && System.nanoTime() < deadline)
        {
            Thread.sleep(20);
            added = addedSince(before);
        }
        assertEquals(List.of(), added, "no directory of the failed materialization is left");
        OffcacheDatasets.uncache(cached);
    }

    private static List<Path> addedSince(final Set<Path> before) throws IOException
    {
        return jobDirectories().stream().filter((dir) -> !before.contains(dir)).toList();
    }

    private static int sorts(final Dataset<Row> query)
    {
        return nodes(query, SortExec.class);
    }

    /** Shuffle exchanges in a query's physical plan as planned (the adaptive plan's initial one, not yet run). */
    private static int exchanges(final Dataset<Row> query)
    {
        return nodes(query, ShuffleExchangeExec.class);
    }

    /** Nodes of a type in a query's physical plan as planned (the adaptive plan's initial one, not yet run). */
    private static int nodes(final Dataset<Row> query, final Class<? extends SparkPlan> type)
    {
        return planned(query, type).size();
    }

    private static List<SparkPlan> planned(final Dataset<Row> query, final Class<? extends SparkPlan> type)
    {
        SparkPlan plan = query.queryExecution().executedPlan();
        if (plan instanceof AdaptiveSparkPlanExec adaptive)
        {
            assertFalse(adaptive.isFinalPlan(), "looked at before it runs");
            plan = adaptive.executedPlan();
        }
        return scala.jdk.javaapi.CollectionConverters.asJava(plan.collectWithSubqueries(
            new scala.runtime.AbstractPartialFunction<SparkPlan, SparkPlan>()
            {
                @Override
                public boolean isDefinedAt(final SparkPlan node)
                {
                    return type.isInstance(node);
                }

                @Override
                public SparkPlan apply(final SparkPlan node)
                {
                    return node;
                }
            }));
    }

    private static List<String> sorted(final Dataset<Row> rows)
    {
        return rows.collectAsList().stream().map(Row::toString).sorted().toList();
    }

    @Test
    void twoConcurrentFirstActionsRunOneMaterialization() throws Exception
    {
        final Dataset<Row> cached = OffcacheDatasets.cache(source());
        final Row expected = digest(source());
        final int jobsBefore = materializations();
        final OffcacheCounters before = OffcacheDatasets.counters();
        final CountDownLatch start = new CountDownLatch(1);
        final ExecutorService threads = Executors.newFixedThreadPool(2);
        try
        {
            final List<Future<Row>> results = new ArrayList<>();
            for (int i = 0; i < 2; i++)
            {
                results.add(threads.submit(() ->
                {
                    start.await();
                    return digest(cached);
                }));
            }
            start.countDown();
            for (final Future<Row> result : results)
            {
                assertEquals(expected, result.get(5, TimeUnit.MINUTES));
            }
        }
        finally
        {
            threads.shutdownNow();
        }
        assertEquals(jobsBefore + 1, materializations(), "two concurrent first actions, one materialization job");
        final OffcacheCounters after = OffcacheDatasets.counters();
        assertEquals(1, after.materializationJobs() - before.materializationJobs());
        assertEquals(1, (after.waits() - before.waits()) + (after.hits() - before.hits()),
            "the other action waited for the job (or came after it and hit)");
        OffcacheDatasets.uncache(cached);
    }

    @Test
    void uncacheAndClearSessionDeleteTheFiles() throws Exception
    {
        final Dataset<Row> first = OffcacheDatasets.cache(source().filter("id < 300000"));
        final Dataset<Row> second = OffcacheDatasets.cache(source().filter("id >= 900000"));
        assertEquals(300_000, first.count());
        assertEquals(300_000, second.count());
        final Materialized firstEntry = assertInstanceOf(Materialized.class, OffcacheDatasets.entryOf(first));
        final Materialized secondEntry = assertInstanceOf(Materialized.class, OffcacheDatasets.entryOf(second));
        final Path firstJob = jobDirectory(firstEntry);
        final Path secondJob = jobDirectory(secondEntry);
        assertTrue(Files.isDirectory(firstJob) && Files.isDirectory(secondJob));

        assertTrue(OffcacheDatasets.uncache(first));
        awaitGone(firstJob);
        assertTrue(Files.isDirectory(secondJob), "uncache drops only its own dataset");
        assertNull(OffcacheDatasets.entryOf(first));
        final int jobsBefore = materializations();
        assertEquals(300_000, first.count(), "an uncached frame materializes again on its next action");
        assertEquals(jobsBefore + 1, materializations());
        final Path firstAgain = jobDirectory(assertInstanceOf(Materialized.class, OffcacheDatasets.entryOf(first)));
        assertNotEquals(firstJob, firstAgain);

        assertTrue(OffcacheDatasets.clearSession(spark) >= 2);
        awaitGone(firstAgain);
        awaitGone(secondJob);
        assertNull(OffcacheDatasets.entryOf(second));
        // Other tests' uncaches delete their files asynchronously too: wait for the directory to empty.
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        List<Path> left = jobDirectories();
        while (!left.isEmpty() && System.nanoTime() < deadline)
        {
            Thread.sleep(20);
            left = jobDirectories();
        }
        assertEquals(List.of(), left, "nothing of the session is left");
    }

    private static List<Path> jobDirectories() throws IOException
    {
        try (Stream<Path> jobs = Files.list(OffcacheExecutor.current().directory()))
        {
            return jobs.filter(Files::isDirectory).toList();
        }
    }

    @Test
    void partitionsDeletedOrDamagedBetweenTwoActionsAreRecomputedAndTheDatasetRematerialized() throws Exception
    {
        final Dataset<Row> cached = OffcacheDatasets.cache(source());
        final Row expected = digest(source());
        assertEquals(expected, digest(cached));
        final Materialized entry = assertInstanceOf(Materialized.class, OffcacheDatasets.entryOf(cached));
        Files.delete(Path.of(entry.locations().get(0).path()));
        flipByte(Path.of(entry.locations().get(3).path()), 4096);
        final OffcacheCounters before = OffcacheDatasets.counters();
        final int jobsBefore = materializations();

        assertEquals(expected, digest(cached), "the damaged partitions come from the lineage");
        final OffcacheCounters after = OffcacheDatasets.counters();
        // The first failure drops the entry and its files at once: partitions not yet opened by then are
        // recomputed too.
        final long recomputed = after.recomputes() - before.recomputes();
        assertTrue(recomputed >= 2 && recomputed <= PARTITIONS, "recomputed " + recomputed);
        assertEquals(jobsBefore, materializations(), "the action itself does not re-materialize");
        awaitInvalidations(before.invalidations() + 1);
        assertNull(OffcacheDatasets.entryOf(cached), "the broken materialization is dropped");

        assertEquals(expected, digest(cached));
        assertEquals(jobsBefore + 1, materializations(), "the next action re-materializes once");
        final Materialized again = assertInstanceOf(Materialized.class, OffcacheDatasets.entryOf(cached));
        assertNotEquals(entry.jobId(), again.jobId());
        assertEquals(expected, digest(cached));
        assertEquals(jobsBefore + 1, materializations());
        assertEquals(recomputed, OffcacheDatasets.counters().recomputes() - before.recomputes(),
            "the new materialization reads whole");
        awaitGone(jobDirectory(entry));
        OffcacheDatasets.uncache(cached);
    }

    @Test
    void partitionsDeletedWhileAnActionRunsAreRecomputedWithinIt() throws Exception
    {
        final Dataset<Row> cached = OffcacheDatasets.cache(source());
        final Row expected = digest(source());
        assertEquals(expected, digest(cached));
        final Materialized entry = assertInstanceOf(Materialized.class, OffcacheDatasets.entryOf(cached));
        final OffcacheCounters before = OffcacheDatasets.counters();
        // local[2]: partitions 3-5 start only after two of 0-2 end; partition 0's first row deletes their files.
        for (int p = 3; p < PARTITIONS; p++)
        {
            DELETE_ON_FIRST_ROW.add(Path.of(entry.locations().get(p).path()));
        }
        assertEquals(expected, digest(cached.filter("offcache_test_delete(id)")));
        assertTrue(DELETE_ON_FIRST_ROW.isEmpty());
        assertEquals(3, OffcacheDatasets.counters().recomputes() - before.recomputes());
        awaitInvalidations(before.invalidations() + 1);
        assertEquals(expected, digest(cached));
        OffcacheDatasets.uncache(cached);
    }

    @Test
    void typedOperationsOnTheCachedFrameSeeTheSameRows()
    {
        final Dataset<Row> cached = OffcacheDatasets.cache(source().filter("id < 100000"));
        final Dataset<String> strings = cached.map((MapFunction<Row, String>) row ->
            row.getLong(0) + ":" + row.get(2) + ":" + row.get(3) + ":" + row.get(4), Encoders.STRING());
        final Dataset<String> expected = source().filter("id < 100000").map((MapFunction<Row, String>) row ->
            row.getLong(0) + ":" + row.get(2) + ":" + row.get(3) + ":" + row.get(4), Encoders.STRING());
        assertEquals(0, strings.exceptAll(expected).count());
        assertEquals(100_000, strings.count());
        assertFalse(strings.filter((org.apache.spark.api.java.function.FilterFunction<String>) s -> s.isEmpty())
            .count() > 0);
        OffcacheDatasets.uncache(cached);
    }

    private static Path jobDirectory(final Materialized entry)
    {
        return OffcacheExecutor.current().directory().resolve(entry.jobId());
    }

    private static void awaitGone(final Path path) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (Files.exists(path) && System.nanoTime() < deadline)
        {
            Thread.sleep(20);
        }
        assertFalse(Files.exists(path), "still there: " + path);
    }

    private static void awaitInvalidations(final long atLeast) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (OffcacheDatasets.counters().invalidations() < atLeast && System.nanoTime() < deadline)
        {
            Thread.sleep(20);
        }
        assertTrue(OffcacheDatasets.counters().invalidations() >= atLeast);
    }

    private static void flipByte(final Path file, final long position) throws IOException
    {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            final ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, position);
            one.put(0, (byte) (one.get(0) ^ 0x5A));
            one.rewind();
            channel.write(one, position);
        }
    }
}
