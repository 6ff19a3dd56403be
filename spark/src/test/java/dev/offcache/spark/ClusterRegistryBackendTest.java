package dev.offcache.spark;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.core.media.EmbeddedDrivers;
import dev.offcache.registry.clustered.RegistryClusterClient;
import dev.offcache.registry.clustered.RegistryClusterMember;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.Materialized;
import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.testkit.net.LoopbackPorts;

import static dev.offcache.spark.LocalSparkApp.PARTITIONS;
import static dev.offcache.spark.LocalSparkApp.digest;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code spark.offcache.registry=cluster} on a real Spark ({@code local[2]}) against a real registry cluster: one
 * Aeron Cluster member started here on 127.0.0.1 (its own media driver, archive and consensus module), the plugin's
 * driver talking to it through the cluster client. A miss runs one materialization job, a hit none, the rows equal
 * the uncached query's, and uncache reaches the cluster and deletes the files.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ClusterRegistryBackendTest
{
    private static final List<String> HOSTS = List.of("127.0.0.1");
    private static final long WAIT_MS = 30_000;

    @TempDir
    Path root;

    @Test
    void missRunsOneJobHitRunsNoneAndTheClusterHoldsTheEntry() throws Exception
    {
        final int portBase = LoopbackPorts.randomBase(10);
        try (RegistryClusterMember member = RegistryClusterMember.launch(new RegistryClusterMember.Context()
            .memberId(0)
            .hosts(HOSTS)
            .portBase(portBase)
            .memberDir(root.resolve("member").toFile())
            .aeronDirectoryName(EmbeddedDrivers.uniqueDirectoryName())
            .logTermLength(1 << 20)
            .ingressTermLength(256 * 1024)))
        {
            awaitLeader(member);
            final CacheKey key;
            try (LocalSparkApp app = LocalSparkApp.start(root.resolve("executor"), Map.of(
                OffcacheSettings.REGISTRY, "cluster",
                OffcacheSettings.CLUSTER_INGRESS, RegistryClusterMember.ingressEndpoints(HOSTS, portBase))))
            {
                final Dataset<Row> cached = OffcacheDatasets.cache(app.source().filter("id % 3 <> 1"));
                final Row expected = digest(app.source().filter("id % 3 <> 1"));
                final OffcacheCounters before = OffcacheDatasets.counters();

                assertEquals(expected, digest(cached));
                assertEquals(1, app.materializations(), "the miss ran one materialization job");
                final Materialized entry = assertInstanceOf(Materialized.class, OffcacheDatasets.entryOf(cached));
                assertEquals(PARTITIONS, entry.locations().size());

                assertEquals(expected, digest(cached));
                assertEquals(app.source().filter("id % 3 <> 1 AND id < 1000").orderBy("id").collectAsList(),
                    cached.filter("id < 1000").orderBy("id").collectAsList());
                assertEquals(1, app.materializations(), "hits ran no job");
                final OffcacheCounters after = OffcacheDatasets.counters();
                assertEquals(1, after.materializationJobs() - before.materializationJobs());
                assertEquals(2, after.hits() - before.hits(), "validated by the cluster's live view");
                assertEquals(before.recomputes(), after.recomputes());
                assertEquals(before.uncached(), after.uncached());

                assertTrue(OffcacheDatasets.uncache(cached), "the cluster held the entry");
                assertNull(OffcacheDatasets.entryOf(cached));
                for (final PartitionLocation location : entry.locations())
                {
                    awaitGone(Path.of(location.path()));
                }
                assertEquals(expected, digest(cached));
                assertEquals(2, app.materializations(), "after uncache the next action materializes again");
                key = LocalSparkApp.keyOf(cached);
                assertInstanceOf(Materialized.class, OffcacheDatasets.entryOf(cached));
            }
            // The application's end removed its session from the cluster (and the cleanup ran before the client
            // closed): another client finds nothing.
            try (RegistryClusterClient client = RegistryClusterClient.connect(new RegistryClusterClient.Context()
                .ingressEndpoints(RegistryClusterMember.ingressEndpoints(HOSTS, portBase))
                .egressChannel("aeron:udp?endpoint=127.0.0.1:0")))
            {
                assertNull(client.lookup(key).get(WAIT_MS, TimeUnit.MILLISECONDS));
            }
        }
    }

    private static void awaitLeader(final RegistryClusterMember member) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (!member.isLeader() && System.nanoTime() < deadline)
        {
            Thread.sleep(10);
        }
        assertTrue(member.isLeader(), "a one-member cluster elects itself");
    }

    private static void awaitGone(final Path file) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (Files.exists(file) && System.nanoTime() < deadline)
        {
            Thread.sleep(20);
        }
        assertFalse(Files.exists(file), "still there: " + file);
    }
}
