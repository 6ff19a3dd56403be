package dev.offcache.benchmarks.spark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;

import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

import dev.offcache.spark.OffcacheCounters;
import dev.offcache.spark.OffcacheDatasets;
import dev.offcache.spark.OffcacheSettings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * offcache's cached DataFrames on several executor JVMs: {@code local-cluster[2,1,1024]} started from this surefire
 * fork by the {@link LocalCluster} fixture with {@code spark.plugins} = offcache's plugin and {@code
 * spark.locality.wait=0} (a task whose partition lives on a busy executor runs at once on the other one and reads
 * remotely). Locality (partitions read where they live, on both executors), forced remote reads (materialized while one
 * executor is blocked, so the other holds every partition), {@code kill -9} of the executor holding the most cached
 * partitions between two actions and during one (right rows every time, the loss counted as an invalidation, at most
 * one re-materialization), and no file of offcache's left once the application has ended and its executor JVMs have
 * exited: neither in the directories of the executors that stopped with it nor in those of the SIGKILLed ones (which
 * the executors outliving them delete). The input has nulls, strings, decimals and a nested struct
 * ({@link BenchData}).
 */
@Timeout(value = 540, unit = TimeUnit.SECONDS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OffcacheLocalClusterTest
{
    private static final long ROWS = 200_000;
    private static final int PARTITIONS = 8;

    private static Path executorDirs;
    private static SparkRun run;
    private static final Set<String> KILLED = ConcurrentHashMap.newKeySet();

    @BeforeAll
    static void start() throws Exception
    {
        executorDirs = Files.createTempDirectory("offcache-executors");
        run = SparkRun.localCluster("offcache", ROWS, PARTITIONS, b -> b
            .config("spark.locality.wait", "0")
            .config(OffcacheSettings.EXECUTOR_DIR, executorDirs.toString())
            .config(OffcacheSettings.HEARTBEAT_INTERVAL_MS, "200"));
        run.aggregate(run.input);  // the expected result, uncached
    }

    @AfterAll
    static void stop() throws IOException
    {
        if (run != null)
        {
            run.close();
        }
        SparkRun.deleteRecursively(executorDirs);
    }

    @Test
    @Order(1)
    void partitionsAreReadWhereTheyLiveOnBothExecutors() throws Exception
    {
        final Dataset<Row> cached = OffcacheDatasets.cache(run.input);
        final long jobs = OffcacheDatasets.counters().materializationJobs();
        run.aggregate(cached);
        assertEquals(jobs + 1, OffcacheDatasets.counters().materializationJobs(), "the first action materializes");

        final OffcacheCounters warm = awaitCounters(c -> true);
        run.awaitEvents();
        run.listener.resetTasks();
        run.aggregate(cached);
        final OffcacheCounters after = awaitReads(warm);
        run.awaitEvents();
        assertEquals(warm.materializationJobs(), after.materializationJobs(), "a hit runs no materialization job");
        final Map<String, Long> local = run.listener.processLocalByExecutor();
        assertEquals(2, local.size(), "read-back tasks ran where their partition lives on both executors: " + local);
        assertTrue(after.localReads() > warm.localReads(), warm + " -> " + after);
        OffcacheDatasets.uncache(cached);
    }

    @Test
    @Order(2)
    void partitionsMaterializedOnOneExecutorAreFetchedByTheOther() throws Exception
    {
        final Dataset<Row> cached = OffcacheDatasets.cache(run.input);
        final Path release = Files.createTempDirectory("offcache-release").resolve("release.flag");
        run.awaitEvents();
        run.listener.resetTasks();
        // One task holds one executor's only core until the flag file exists (both JVMs see the same disk): the
        // materialization's tasks all run on the other executor, which then holds every partition.
        final String releasePath = release.toString();
        final CompletableFuture<Void> blocker = CompletableFuture.runAsync(() ->
            JavaSparkContext.fromSparkContext(run.spark.sparkContext()).parallelize(List.of(1), 1).foreach(x ->
            {
                while (!Files.exists(Path.of(releasePath)))
                {
                    Thread.sleep(20);
                }
            }));
        awaitTasksStarted(1);
        run.aggregate(cached);
        run.awaitEvents();
        final Map<String, Long> materializedOn = run.listener.tasksByExecutor();
        Files.createFile(release);
        blocker.get(120, TimeUnit.SECONDS);
        SparkRun.deleteRecursively(release.getParent());
        assertEquals(1, materializedOn.size(), "one executor ran the materialization: " + materializedOn);

        final OffcacheCounters warm = awaitCounters(c -> true);
        run.aggregate(cached);
        final OffcacheCounters after = awaitReads(warm);
        assertTrue(after.remoteReads() > warm.remoteReads(), "remote reads: " + warm + " -> " + after);
        assertEquals(warm.materializationJobs(), after.materializationJobs(), "a hit runs no materialization job");
        OffcacheDatasets.uncache(cached);
    }

    @Test
    @Order(3)
    void killBetweenTwoActionsGivesTheRightRowsAndOneRematerialization() throws Exception
    {
        final SparkContext sc = run.spark.sparkContext();
        LocalCluster.awaitExecutors(sc, 2, Duration.ofSeconds(300));
        final Dataset<Row> cached = OffcacheDatasets.cache(run.input);
        run.awaitEvents();
        run.listener.resetTasks();
        run.aggregate(cached);
        run.awaitEvents();
        final OffcacheCounters before = awaitCounters(c -> true);

        final String victim = run.listener.busiestExecutor();
        KILLED.add(victim);
        LocalCluster.kill9(sc, victim);
        run.aggregate(cached);  // checked against the uncached result
        final OffcacheCounters afterLoss = awaitCounters(c -> c.invalidations() > before.invalidations());
        assertTrue(afterLoss.invalidations() > before.invalidations(), "the loss invalidates: " + afterLoss);
        run.aggregate(cached);
        final OffcacheCounters after = OffcacheDatasets.counters();
        assertEquals(before.materializationJobs() + 1, after.materializationJobs(),
            "one re-materialization: " + before + " -> " + afterLoss + " -> " + after);
        OffcacheDatasets.uncache(cached);
    }

    @Test
    @Order(4)
    void killDuringAnActionGivesTheRightRows() throws Exception
    {
        final SparkContext sc = run.spark.sparkContext();
        LocalCluster.awaitExecutors(sc, 2, Duration.ofSeconds(300));
        final Dataset<Row> cached = OffcacheDatasets.cache(run.input);
        run.awaitEvents();
        run.listener.resetTasks();
        run.aggregate(cached);
        run.awaitEvents();
        final String victim = run.listener.busiestExecutor();
        final OffcacheCounters before = awaitCounters(c -> true);

        run.listener.resetTasks();
        final CompletableFuture<List<Row>> action = CompletableFuture.supplyAsync(() -> run.aggregate(cached));
        awaitTasksStarted(1);
        KILLED.add(victim);
        LocalCluster.kill9(sc, victim);
        action.get(300, TimeUnit.SECONDS);  // checked against the uncached result
        run.aggregate(cached);
        final OffcacheCounters after = awaitCounters(c -> c.invalidations() > before.invalidations());
        assertTrue(after.invalidations() > before.invalidations(), "the loss invalidates: " + after);
        assertTrue(after.materializationJobs() - before.materializationJobs() <= 1,
            "at most one re-materialization: " + before + " -> " + after);
        OffcacheDatasets.uncache(cached);
    }

    @Test
    @Order(5)
    void applicationEndLeavesNothingInTheLiveExecutorsDirectories() throws Exception
    {
        final Dataset<Row> cached = OffcacheDatasets.cache(run.input);
        run.aggregate(cached);
        final String appId = run.spark.sparkContext().applicationId();
        final Predicate<Path> ofLiveExecutor = p -> KILLED.stream()
            .noneMatch(e -> executorDirs.relativize(p).toString().startsWith("offcache-" + appId + "-" + e + "-"));
        assertTrue(files(executorDirs, ofLiveExecutor) > 0, "the cached output is on disk while the app runs");
        final Map<String, Long> executorJvms = LocalCluster.executorPids(run.spark.sparkContext());
        run.close();
        run = null;
        // stop() returns while the executors still stop (asked by the driver, then SIGTERMed by their worker):
        // what counts is what is left once their JVMs are gone.
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (final long pid : executorJvms.values())
        {
            final var process = ProcessHandle.of(pid);
            while (process.isPresent() && process.get().isAlive() && System.nanoTime() < deadline)
            {
                Thread.sleep(20);
            }
            assertTrue(process.isEmpty() || !process.get().isAlive(), "executor JVM " + pid + " exited");
        }
        assertEquals(0, files(executorDirs, ofLiveExecutor),
            "nothing of a live executor left after the end; killed " + KILLED + ", left " + leftovers());
        // A SIGKILLed executor cannot delete its own directory: the executors that outlived it (told of the loss)
        // and its replacement (at its start) deleted it.
        assertEquals(List.of(), leftovers(), "nothing of the killed executors " + KILLED + " left either");
    }

    private static List<String> leftovers() throws IOException
    {
        try (Stream<Path> paths = Files.walk(executorDirs))
        {
            return paths.filter(Files::isRegularFile).map(p -> executorDirs.relativize(p).toString()).toList();
        }
    }

    private static long files(final Path root, final Predicate<Path> which) throws IOException
    {
        try (Stream<Path> paths = Files.walk(root))
        {
            return paths.filter(Files::isRegularFile).filter(which).count();
        }
    }

    private static void awaitTasksStarted(final int tasks) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (run.listener.tasksStarted.get() < tasks && System.nanoTime() < deadline)
        {
            Thread.sleep(5);
        }
        assertTrue(run.listener.tasksStarted.get() >= tasks, "no task started");
    }

    /** Waits until the executors' heartbeats report at least one read per partition more than {@code warm}. */
    private static OffcacheCounters awaitReads(final OffcacheCounters warm) throws InterruptedException
    {
        return awaitCounters(c -> c.localReads() + c.remoteReads() >= warm.localReads() + warm.remoteReads() +
            PARTITIONS);
    }

    /** Counters once {@code condition} holds (or after 60 s) and one more heartbeat interval. */
    private static OffcacheCounters awaitCounters(final Predicate<OffcacheCounters> condition)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.test(OffcacheDatasets.counters()) && System.nanoTime() < deadline)
        {
            Thread.sleep(100);
        }
        Thread.sleep(500);
        return OffcacheDatasets.counters();
    }
}
