package dev.offcache.spark;

import java.util.Locale;

import org.apache.spark.SparkConf;

/**
 * The {@code spark.offcache.*} settings, read once from the application's {@link SparkConf} on the driver and on each
 * executor. Defaults suit one host; docs/spark-dataset-cache.md lists them.
 */
public final class OffcacheSettings
{
    /** The registry the driver runs: {@code driver} (in memory, default), {@code journal}, {@code cluster}. */
    public static final String REGISTRY = "spark.offcache.registry";
    /** The journal registry's directory (required for {@code journal}). */
    public static final String JOURNAL_DIR = "spark.offcache.registry.journal.dir";
    /** The registry cluster's ingress endpoints ({@code 0=host:port,1=host:port,...}; required for {@code cluster}). */
    public static final String CLUSTER_INGRESS = "spark.offcache.registry.cluster.ingressEndpoints";
    /** The cluster client's egress channel. Default {@code aeron:udp?endpoint=127.0.0.1:0}. */
    public static final String CLUSTER_EGRESS = "spark.offcache.registry.cluster.egressChannel";
    /** Parent of each executor's own directory. Default: the first of {@code spark.local.dir}, else java.io.tmpdir. */
    public static final String EXECUTOR_DIR = "spark.offcache.executor.dir";
    /** Address the executors' payload servers bind to. Default: the executor's block manager host. */
    public static final String TRANSPORT_HOST = "spark.offcache.transport.host";
    /** Term length of the executors' embedded media drivers, a power of two. Default 1 MiB. */
    public static final String TERM_LENGTH = "spark.offcache.aeron.termLength";
    /** Deadline of one remote partition fetch. Default 10000 ms. */
    public static final String FETCH_TIMEOUT_MS = "spark.offcache.fetch.timeoutMs";
    /** Whether a local partition's bytes are checked against their CRC32C when opened. Default true. */
    public static final String VERIFY_LOCAL = "spark.offcache.verifyLocal";
    /** How often executors report to the driver. Default 1000 ms. */
    public static final String HEARTBEAT_INTERVAL_MS = "spark.offcache.heartbeat.intervalMs";
    /** An executor silent for this long is treated as lost. Default 60000 ms. */
    public static final String HEARTBEAT_TIMEOUT_MS = "spark.offcache.heartbeat.timeoutMs";
    /**
     * How long the partitions that outlive a lost executor are kept for the next materialization of their dataset
     * to adopt ({@link Salvage}); 0 deletes them at once. Default 600000 ms.
     */
    public static final String SALVAGE_HOLD_MS = "spark.offcache.salvage.holdMs";

    /** The registry backends. */
    public enum Registry
    {
        /** In the driver's memory: gone with the driver. */
        DRIVER,
        /** In the driver, journaled to a directory: a restarted driver recovers what it had. */
        JOURNAL,
        /** The replicated registry on Aeron Cluster, through its client. */
        CLUSTER
    }

    final Registry registry;
    final String journalDir;
    final String clusterIngress;
    final String clusterEgress;
    final String executorDir;
    final String transportHost;
    final int termLength;
    final long fetchTimeoutMs;
    final boolean verifyLocal;
    final long heartbeatIntervalMs;
    final long heartbeatTimeoutMs;
    final long salvageHoldMs;

    OffcacheSettings(final SparkConf conf)
    {
        final String registryName = conf.get(REGISTRY, "driver").trim().toUpperCase(Locale.ROOT);
        try
        {
            registry = Registry.valueOf(registryName);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException(REGISTRY + " must be driver, journal or cluster: " +
                conf.get(REGISTRY), ex);
        }
        journalDir = conf.get(JOURNAL_DIR, null);
        clusterIngress = conf.get(CLUSTER_INGRESS, null);
        clusterEgress = conf.get(CLUSTER_EGRESS, "aeron:udp?endpoint=127.0.0.1:0");
        final String localDirs = conf.get("spark.local.dir", System.getProperty("java.io.tmpdir"));
        executorDir = conf.get(EXECUTOR_DIR, localDirs.split(",")[0].trim());
        transportHost = conf.get(TRANSPORT_HOST, null);
        termLength = (int) conf.getSizeAsBytes(TERM_LENGTH, "1m");
        fetchTimeoutMs = conf.getLong(FETCH_TIMEOUT_MS, 10_000);
        verifyLocal = conf.getBoolean(VERIFY_LOCAL, true);
        heartbeatIntervalMs = conf.getLong(HEARTBEAT_INTERVAL_MS, 1_000);
        heartbeatTimeoutMs = conf.getLong(HEARTBEAT_TIMEOUT_MS, 60_000);
        salvageHoldMs = conf.getLong(SALVAGE_HOLD_MS, 600_000);
        if (registry == Registry.JOURNAL && journalDir == null)
        {
            throw new IllegalArgumentException(REGISTRY + "=journal needs " + JOURNAL_DIR);
        }
        if (registry == Registry.CLUSTER && clusterIngress == null)
        {
            throw new IllegalArgumentException(REGISTRY + "=cluster needs " + CLUSTER_INGRESS);
        }
        if (salvageHoldMs < 0)
        {
            throw new IllegalArgumentException(SALVAGE_HOLD_MS + " must not be negative: " + salvageHoldMs);
        }
        if (heartbeatIntervalMs <= 0 || heartbeatTimeoutMs <= heartbeatIntervalMs)
        {
            throw new IllegalArgumentException(HEARTBEAT_TIMEOUT_MS + " must exceed " + HEARTBEAT_INTERVAL_MS +
                " (both positive)");
        }
    }
}
