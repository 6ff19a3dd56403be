package dev.offcache.spark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.apache.spark.ExceptionFailure;
import org.apache.spark.TaskContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.util.TaskCompletionListener;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

import dev.offcache.core.shuffle.PartitionId;

import dev.offcache.registry.state.Materialized;
import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.spark.catalyst.SparkJobRunner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * offcache across executor JVMs: Spark's {@code local-cluster[2,1,1024]} (a master and two workers in this JVM, each
 * worker forking one executor JVM with the test class path, as Spark's own suites run), payload servers on
 * 127.0.0.1. The cached partitions are written on both executors and read back where they live; an executor killed
 * with SIGKILL between two actions loses its partitions and the next action still gets the right rows, and its
 * directory is deleted by the executors that outlive it; the partitions that outlived the kill are adopted by the next
 * materialization rather than computed again. A materialization attempt that wrote its partition and then
 * failed (retried on the other executor) leaves no file.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OffcacheLocalClusterTest
{
    private static final long ROWS = 400_000;
    private static final int PARTITIONS = 8;

    /** Task attempt ids (in each executor JVM) the test UDF made fail after writing. */
    private static final Set<Long> FAILING = ConcurrentHashMap.newKeySet();
    /** Failed attempts the driver saw: "executor description". */
    private static final Set<String> FAILED_ATTEMPTS = ConcurrentHashMap.newKeySet();

    private static Path root;
    private static SparkSession spark;

    @BeforeAll
    static void startCluster() throws Exception
    {
        root = Files.createTempDirectory("offcache-spark-cluster");
        // Spark's test mode lets local-cluster executors start from the test class path without a distribution.
        System.setProperty("spark.testing", "1");
        final String flags =
            System.getProperty("offcache.jvm.flags", "--add-opens java.base/jdk.internal.misc=ALL-UNNAMED");
        spark = SparkSession.builder()
            .master("local-cluster[2,1,1024]")
            .appName("offcache-local-cluster-test")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.executorEnv.SPARK_SCALA_VERSION", "2.13")
            .config("spark.executorEnv.SPARK_LOCAL_IP", "127.0.0.1")
            .config("spark.executor.extraJavaOptions", flags)
            .config("spark.sql.shuffle.partitions", "4")
            .config("spark.plugins", OffcachePlugin.class.getName())
            .config("spark.sql.extensions", OffcacheSparkExtensions.class.getName())
            .config(OffcacheSettings.EXECUTOR_DIR, root.toString())
            .config(OffcacheSettings.TRANSPORT_HOST, "127.0.0.1")
            .config(OffcacheSettings.HEARTBEAT_INTERVAL_MS, "200")
            // A failed task is retried on the other executor (the losing-attempt test).
            .config("spark.excludeOnFailure.enabled", "true")
            .config("spark.excludeOnFailure.task.maxTaskAttemptsPerExecutor", "1")
            .getOrCreate();
        spark.udf().register("offcache_fail_after_write", (UDF1<Long, Boolean>) id ->
        {
            final TaskContext task = TaskContext.get();
            final String jobId = task.getLocalProperty(SparkJobRunner.JobProperty());
            if (jobId != null && task.partitionId() == 0 && task.attemptNumber() == 0 &&
                FAILING.add(task.taskAttemptId()))
            {
                // Runs after the task's function returned, so after the partition's file was committed.
                task.addTaskCompletionListener((TaskCompletionListener) done ->
                {
                    throw new IllegalStateException("offcache test: the attempt fails after writing, written=" +
                        Files.isRegularFile(OffcacheExecutor.current().store().pathOf(new PartitionId(jobId, 0, 0))));
                });
            }
            return Boolean.TRUE;
        }, DataTypes.BooleanType);
        spark.sparkContext().addSparkListener(new SparkListener()
        {
            @Override
            public void onTaskEnd(final SparkListenerTaskEnd end)
            {
                if (end.reason() instanceof ExceptionFailure failure && failure.description().contains("written="))
                {
                    FAILED_ATTEMPTS.add(end.taskInfo().executorId() + " " + failure.description());
                }
            }
        });
        final long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (OffcacheDriver.current().registeredExecutors().size() < 2)
        {
            assertFalse(spark.sparkContext().isStopped(), "the application stopped while executors started");
            assertTrue(System.nanoTime() < deadline, "2 executors did not register with offcache");
            Thread.sleep(100);
        }
    }

    @AfterAll
    static void stopCluster() throws IOException
    {
        if (spark != null)
        {
            spark.stop();
        }
        System.clearProperty("spark.testing");
        OffcacheExecutor.deleteRecursively(root);
    }

    private static Dataset<Row> source()
    {
        return spark.range(0, ROWS, 1, PARTITIONS).selectExpr("id",
            "CASE WHEN id % 7 = 0 THEN NULL ELSE concat('row-', id) END AS s",
            "CAST(id AS DECIMAL(30, 4)) / 7 AS d");
    }

    private static Row digest(final Dataset<Row> df)
    {
        return df.selectExpr("count(*)", "sum(id)", "bit_xor(xxhash64(id, s, d))").collectAsList().get(0);
    }

    @Test
    @Order(1)
    void theFileOfAnAttemptThatFailedAfterWritingIsDeleted() throws Exception
    {
        final Dataset<Row> failing = source().filter("offcache_fail_after_write(id)");
        final Row expected = digest(failing);
        final Dataset<Row> cached = OffcacheDatasets.cache(failing);
        assertEquals(expected, digest(cached));
        assertEquals(1, FAILED_ATTEMPTS.size(), "one attempt failed after writing: " + FAILED_ATTEMPTS);
        final String[] failed = FAILED_ATTEMPTS.iterator().next().split(" ", 2);
        assertTrue(failed[1].contains("written=true"), "its file was committed when it failed: " + failed[1]);
        final Materialized entry = assertInstanceOf(Materialized.class, OffcacheDatasets.entryOf(cached));
        final PartitionLocation winner = entry.locations().get(0);
        assertNotEquals(failed[0], winner.executorId(), "the retry ran on the other executor");
        final Map<String, Messages.Register> executors = OffcacheDriver.current().registeredExecutors();
        final Path winnerDir = Path.of(executors.get(winner.executorId()).directory());
        final Path loserFile = Path.of(executors.get(failed[0]).directory())
            .resolve(winnerDir.relativize(Path.of(winner.path())));
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (Files.exists(loserFile) && System.nanoTime() < deadline)
        {
            Thread.sleep(50);
        }
        assertFalse(Files.exists(loserFile), "the losing attempt's file is deleted: " + loserFile);
        assertTrue(Files.isRegularFile(Path.of(winner.path())), "the winner's file stays");
        assertEquals(expected, digest(cached), "read back whole");
        OffcacheDatasets.uncache(cached);
    }

    @Test
    @Order(2)
    void partitionsLiveOnBothExecutorsAreReadWhereTheyLiveAndSurviveAKilledExecutor() throws Exception
    {
        final Row expected = digest(source());
        final Dataset<Row> cached = OffcacheDatasets.cache(source());
        final OffcacheCounters before = OffcacheDatasets.counters();
        assertEquals(expected, digest(cached));
        assertEquals(expected, digest(cached));
        final Materialized entry = assertInstanceOf(Materialized.class, OffcacheDatasets.entryOf(cached));
        final Map<String, Messages.Register> executors = OffcacheDriver.current().registeredExecutors();
        assertEquals(2, entry.locations().stream().map(PartitionLocation::executorId).distinct().count(),
            "partitions on both executors: " + entry.locations());
        Thread.sleep(600);
        final OffcacheCounters warm = OffcacheDatasets.counters();
        assertEquals(1, warm.materializationJobs() - before.materializationJobs());
        assertEquals(1, warm.hits() - before.hits());
        assertTrue(warm.localReads() - before.localReads() > 0, "local reads " + warm);
        assertEquals(2L * PARTITIONS, (warm.localReads() + warm.remoteReads() + warm.recomputes()) -
            (before.localReads() + before.remoteReads() + before.recomputes()), "every partition read once per action");

        final String victim = entry.locations().get(0).executorId();
        final long pid = executors.get(victim).pid();
        assertTrue(ProcessHandle.of(pid).orElseThrow().destroyForcibly());
        assertEquals(expected, digest(cached), "the action after the kill");
        assertEquals(expected, digest(cached));
        final Materialized after = assertInstanceOf(Materialized.class, OffcacheDatasets.entryOf(cached));
        assertNotEquals(entry.jobId(), after.jobId(), "re-materialized");
        assertFalse(after.locations().stream().anyMatch(l -> l.executorId().equals(victim)));
        final OffcacheCounters end = OffcacheDatasets.counters();
        assertTrue(end.invalidations() > warm.invalidations(), "invalidation counted");
        assertEquals(1, end.materializationJobs() - warm.materializationJobs(), "one re-materialization: " + end);
        // The survivor's partitions were adopted (copied where they lay), not computed again; their old files go.
        final String survivor = executors.keySet().stream().filter(id -> !id.equals(victim)).findFirst().orElseThrow();
        final long survivorPartitions = entry.locations().stream().filter(l -> l.executorId().equals(survivor)).count();
        final long adopted = end.adoptedPartitions() - warm.adoptedPartitions();
        assertTrue(adopted >= 1 && adopted <= survivorPartitions,
            "adopted " + adopted + " of the survivor's " + survivorPartitions);
        final Path oldJob = Path.of(executors.get(survivor).directory()).resolve(entry.jobId());
        final long oldJobDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (Files.exists(oldJob) && System.nanoTime() < oldJobDeadline)
        {
            Thread.sleep(50);
        }
        assertFalse(Files.exists(oldJob), "the adopted partitions' old files are deleted: " + oldJob);

        // The killed executor could not delete its directory; the survivor (told of the loss) or the replacement
        // executor (at its start) deletes it, and never a live executor's.
        final Path killedDir = Path.of(executors.get(victim).directory());
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (Files.exists(killedDir) && System.nanoTime() < deadline)
        {
            Thread.sleep(100);
        }
        assertFalse(Files.exists(killedDir), "the killed executor's directory is deleted: " + killedDir);
        for (final Messages.Register live : OffcacheDriver.current().registeredExecutors().values())
        {
            assertTrue(Files.isDirectory(Path.of(live.directory())), "a live executor's directory stays");
        }
    }
}
