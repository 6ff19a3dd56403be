package dev.offcache.dataset.cluster;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import dev.offcache.registry.clustered.ClusterFixture;
import dev.offcache.registry.clustered.RegistryClusterClient;
import dev.offcache.dataset.AbortPolicy;
import dev.offcache.dataset.CachedNode;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.Materialized;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code df.cache()} end to end with the coordinator on the replicated registry: three Aeron Cluster members, the
 * scheduler's {@link RegistryClusterClient}, and executors with shuffle stores and Aeron payload servers. The cached
 * dataset survives the loss of the registry's leader (no new job), and an executor loss still degrades to a
 * rebuild, never a wrong answer, and its stages are cleaned up through the client's removal listener.
 */
class ClusteredDatasetCacheTest
{
    private static final long WAIT_S = 30;
    private static final ToyDataset INPUT = new ToyDataset(7, 4, 2048);

    @TempDir
    Path root;

    @Test
    void aCachedDatasetOutlivesTheRegistryLeaderAndAnExecutorLossRebuildsIt() throws Exception
    {
        try (ClusterFixture registry = new ClusterFixture(root.resolve("registry")))
        {
            registry.startAll();
            final int firstLeader = registry.awaitLeader(15_000);
            try (TestCluster cluster = new TestCluster(root.resolve("executors"), 2,
                AbortPolicy.CLAIM_AND_MATERIALIZE, registry::client))
            {
                final RegistryClusterClient client = cluster.clustered;
                final CachedNode<ToyDataset> node = new CachedNode<>(new CacheKey("s1", "c1"), INPUT);
                final long[] truth = INPUT.computeDirectly();

                assertArrayEquals(truth, execute(cluster, node));
                assertArrayEquals(truth, execute(cluster, node));
                assertEquals(1, cluster.jobs.started(), "the second action was a hit");
                final String firstJob = client.lookup(node.key()).get(WAIT_S, TimeUnit.SECONDS).jobId();

                // the registry's leader goes away: a new one serves the same entry, no job runs again
                registry.stop(firstLeader);
                final int secondLeader = registry.awaitLeader(15_000);
                assertNotEquals(firstLeader, secondLeader);
                assertArrayEquals(truth, execute(cluster, node));
                assertEquals(1, cluster.jobs.started(), "still a hit after the leader change");
                assertEquals(2, cluster.coordinator.counters().hits());

                // an executor is lost: the entry naming it is never read; the dataset is rebuilt on the survivor
                cluster.executorLost("exec-1");
                assertArrayEquals(truth, execute(cluster, node));
                assertEquals(2, cluster.jobs.started(), "re-materialized");
                final Materialized rebuilt =
                    (Materialized) client.lookup(node.key()).get(WAIT_S, TimeUnit.SECONDS);
                assertNotEquals(firstJob, rebuilt.jobId());
                assertFalse(rebuilt.usesExecutor("exec-1"));
                // the client's removal listener ran the same cleanup as the in-process registry's
                assertTrue(cluster.cleanup.awaitIdle(10_000));
                assertFalse(cluster.executors.get("exec-0").stageExists(firstJob, 1),
                    "the lost entry's output stage deleted on the survivor");
                assertTrue(cluster.executors.get("exec-0").stageExists(rebuilt.jobId(), 1));
            }
        }
    }

    private static long[] execute(final TestCluster cluster, final CachedNode<ToyDataset> node) throws Exception
    {
        return cluster.coordinator.execute(node, DatasetCacheEndToEndTest.ALL_ROWS).get(WAIT_S, TimeUnit.SECONDS);
    }
}
