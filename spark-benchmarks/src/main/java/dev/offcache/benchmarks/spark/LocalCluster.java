package dev.offcache.benchmarks.spark;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

import org.apache.spark.SparkContext;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.util.Utils;

/**
 * Spark's {@code local-cluster[N,1,M]} mode started from a plain JVM (a surefire fork or a JMH fork) with no Spark
 * distribution: a Master and N Workers inside this JVM, each Worker forking one executor JVM with this JVM's class
 * path. It relies on Spark's test mode: the {@code spark.testing} system property (exactly {@code 1}), a
 * {@code spark.test.home} (it need not exist) and {@code SPARK_SCALA_VERSION} in the executors' environment; Spark
 * adds its own {@code --add-opens} to executors, offcache's go in {@code spark.executor.extraJavaOptions}. Test mode
 * also changes a few Spark defaults (no reserved memory), so a JVM that uses it runs only local-cluster sessions.
 *
 * <p>Executors are found as child processes (Linux: {@code /proc}): their command line names the application id and
 * the executor id, so one can be killed with SIGKILL (an executor dying unannounced, as the OOM killer does).
 */
public final class LocalCluster
{
    private static final String EXECUTOR_MAIN = "org.apache.spark.executor.CoarseGrainedExecutorBackend";

    private LocalCluster()
    {
    }

    /**
     * A session builder for {@code local-cluster[executors,1,memoryMiB]}; sets the test-mode system properties.
     *
     * @param executors executor JVMs (one core each).
     * @param memoryMiB heap per executor, at least 1024 (Spark's default executor memory).
     * @param executorJavaOptions extra executor JVM options (offcache's {@code --add-opens}).
     * @return the builder; the caller adds its own settings and calls {@code getOrCreate()}.
     * @throws IOException if the Spark home directory cannot be made.
     */
    public static SparkSession.Builder builder(
        final int executors, final int memoryMiB, final String executorJavaOptions) throws IOException
    {
        final Path home = Files.createTempDirectory("offcache-spark-home");
        loopbackOnly();
        System.setProperty("spark.testing", "1");
        System.setProperty("spark.test.home", home.toString());
        return SparkSession.builder()
            .master("local-cluster[" + executors + ",1," + memoryMiB + "]")
            .config("spark.ui.enabled", "false")
            .config("spark.executorEnv.SPARK_SCALA_VERSION", "2.13")
            // Test mode hands executors this JVM's class path as it is; a relative entry (java -jar x.jar, as JMH
            // forks inherit it) does not resolve in the Worker's directory, and every executor fails to start.
            .config("spark.executor.extraClassPath", absoluteClassPath())
            .config("spark.executor.extraJavaOptions", executorJavaOptions)
            // A loaded 2-core machine must not turn slow heartbeats into lost executors.
            .config("spark.network.timeout", "300s")
            .config("spark.executor.heartbeatInterval", "2s");
    }

    private static String absoluteClassPath()
    {
        final StringJoiner out = new StringJoiner(File.pathSeparator);
        for (final String entry : System.getProperty("java.class.path").split(File.pathSeparator))
        {
            out.add(Path.of(entry).toAbsolutePath().toString());
        }
        return out.toString();
    }

    /**
     * Makes Spark's in-process services (driver, Master, Workers) and the executors they launch use 127.0.0.1 instead
     * of the first non-loopback interface Spark picks when the host name resolves to loopback. Call before the first
     * session of the JVM.
     */
    public static void loopbackOnly()
    {
        Utils.setCustomHostname("127.0.0.1");
    }

    /**
     * Waits until {@code executors} executors are registered; fails at once if the application stopped (executors
     * that cannot launch end it after a few tries).
     *
     * @param sc the context.
     * @param executors executors to wait for.
     * @param timeout how long to wait.
     * @throws InterruptedException if interrupted.
     */
    public static void awaitExecutors(final SparkContext sc, final int executors, final Duration timeout)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (liveExecutors(sc) < executors)
        {
            if (sc.isStopped())
            {
                throw new IllegalStateException("the Spark application stopped while waiting for executors");
            }
            if (System.nanoTime() > deadline)
            {
                throw new IllegalStateException(
                    "only " + liveExecutors(sc) + " of " + executors + " executors after " + timeout);
            }
            Thread.sleep(50);
        }
    }

    /**
     * Executors registered with the driver now (the driver itself not counted).
     *
     * @param sc the context.
     * @return the count.
     */
    public static int liveExecutors(final SparkContext sc)
    {
        return sc.statusTracker().getExecutorInfos().length - 1;
    }

    /**
     * The executor JVMs of this application now running, by executor id.
     *
     * @param sc the context.
     * @return executor id to process id.
     */
    public static Map<String, Long> executorPids(final SparkContext sc)
    {
        final String appId = sc.applicationId();
        final Map<String, Long> pids = new HashMap<>();
        // The Workers run in this JVM, so the executors are its children. Their command lines (~20 KB with the class
        // path) are read from /proc: ProcessHandle.Info gives no arguments for a command line that long.
        ProcessHandle.current().children().forEach(p ->
        {
            final List<String> a = commandLine(p.pid());
            final int app = a.indexOf("--app-id");
            final int id = a.indexOf("--executor-id");
            if (a.contains(EXECUTOR_MAIN) && app >= 0 && id >= 0 && appId.equals(a.get(app + 1)) && p.isAlive())
            {
                pids.put(a.get(id + 1), p.pid());
            }
        });
        return pids;
    }

    private static List<String> commandLine(final long pid)
    {
        try
        {
            final byte[] raw = Files.readAllBytes(Path.of("/proc", String.valueOf(pid), "cmdline"));
            return Arrays.asList(new String(raw, StandardCharsets.UTF_8).split("\0"));
        }
        catch (final IOException e)
        {
            return List.of();  // the process is gone, or this is not Linux
        }
    }

    /**
     * Kills one executor JVM with SIGKILL and waits until its process is gone (not until Spark notices).
     *
     * @param sc the context.
     * @param executorId the executor.
     * @return the killed process id.
     * @throws InterruptedException if interrupted.
     */
    public static long kill9(final SparkContext sc, final String executorId) throws InterruptedException
    {
        final Long pid = executorPids(sc).get(executorId);
        if (pid == null)
        {
            throw new IllegalStateException("no running JVM for executor " + executorId + ": " + executorPids(sc));
        }
        final ProcessHandle process = ProcessHandle.of(pid).orElseThrow();
        process.destroyForcibly();  // SIGKILL on Linux
        final long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (process.isAlive() && System.nanoTime() < deadline)
        {
            Thread.sleep(5);
        }
        return pid;
    }
}
