package dev.offcache.benchmarks.spark;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.spark.SparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@link LocalCluster} fixture on a real {@code local-cluster[2,1,1024]}: two executor JVMs forked from this
 * surefire fork, found as processes, one killed with SIGKILL while it holds cached blocks of Spark's own
 * {@code df.cache()}; Spark sees the loss, recomputes the lost partitions and returns the right rows, launches a
 * replacement, and no executor JVM outlives the application. About a minute on 2 idle cores, several on a loaded
 * machine.
 */
@Timeout(value = 480, unit = TimeUnit.SECONDS)
class LocalClusterTest
{
    private static final long ROWS = 100_000;
    private static final int PARTITIONS = 8;

    private static SparkSession spark;
    private static final RunListener LISTENER = new RunListener();

    @BeforeAll
    static void start() throws Exception
    {
        spark = LocalCluster.builder(2, 1024, SparkBenchmarkMain.offcacheFlags())
            .appName("local-cluster-test")
            .getOrCreate();
        spark.sparkContext().addSparkListener(LISTENER);
        LocalCluster.awaitExecutors(spark.sparkContext(), 2, Duration.ofSeconds(120));
    }

    @AfterAll
    static void stop()
    {
        if (spark != null)
        {
            spark.stop();
        }
        System.clearProperty("spark.testing");
    }

    @Test
    void killedExecutorIsRecomputedReplacedAndNothingOutlivesTheApplication() throws Exception
    {
        final SparkContext sc = spark.sparkContext();
        final Map<String, Long> pids = LocalCluster.executorPids(sc);
        assertEquals(2, pids.size(), "one JVM per executor: " + pids);
        assertNotEquals(ProcessHandle.current().pid(), pids.values().iterator().next());

        final Dataset<Row> input = BenchData.input(spark, ROWS, PARTITIONS, sc.longAccumulator("computed"));
        final java.util.List<Row> expected = BenchData.aggregate(input);
        final Dataset<Row> cached = input.cache();
        LISTENER.resetTasks();
        assertEquals(expected, BenchData.aggregate(cached));
        sc.listenerBus().waitUntilEmpty(30_000);
        final String victim = LISTENER.busiestExecutor();
        assertNotNull(victim);
        final long removedBefore = LISTENER.executorsRemoved.get();

        final long pid = LocalCluster.kill9(sc, victim);
        assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "SIGKILL'd JVM gone");
        assertEquals(expected, BenchData.aggregate(cached), "right rows after the loss");
        assertEquals(expected, BenchData.aggregate(cached), "and again");
        sc.listenerBus().waitUntilEmpty(30_000);
        assertEquals(removedBefore + 1, LISTENER.executorsRemoved.get(), "the driver saw the executor go");

        LocalCluster.awaitExecutors(sc, 2, Duration.ofSeconds(120));
        final Map<String, Long> after = LocalCluster.executorPids(sc);
        assertEquals(2, after.size(), "a replacement was launched: " + after);
        assertFalse(after.containsKey(victim), "the killed executor's id is not reused: " + after);

        spark.stop();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (after.values().stream().anyMatch(p -> ProcessHandle.of(p).isPresent()) && System.nanoTime() < deadline)
        {
            Thread.sleep(50);
        }
        assertTrue(after.values().stream().noneMatch(p -> ProcessHandle.of(p).isPresent()),
            "no executor JVM outlives the application");
    }
}
