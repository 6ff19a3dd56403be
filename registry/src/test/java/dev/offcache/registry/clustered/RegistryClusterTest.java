package dev.offcache.registry.clustered;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.registry.api.Acquisition;
import dev.offcache.registry.api.Resolution;
import dev.offcache.registry.model.Command;
import dev.offcache.registry.model.ReferenceModel;
import dev.offcache.registry.state.CacheEntry;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.CompletionOutcome;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.PartitionLocation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A 3-member registry cluster in this JVM on 127.0.0.1, driven through the cluster client with the registry property
 * test's random commands and checked against its reference model, through a leader kill, a member restart, a
 * snapshot and a full stop/restart. One cluster start for the whole story keeps the test short.
 */
class RegistryClusterTest
{
    private static final long TIMEOUT_S = 20;

    @TempDir
    Path dir;

    @Test
    void survivesLeaderLossRestartAndSnapshotWithExactlyOnceApplication() throws Exception
    {
        final ReferenceModel model = new ReferenceModel();
        long issued = 0;
        try (ClusterFixture cluster = new ClusterFixture(dir))
        {
            cluster.startAll();
            final int firstLeader = cluster.awaitLeader(15_000);
            try (RegistryClusterClient client = cluster.client())
            {
                // 1. Random commands one at a time: every outcome equals the model's.
                final List<Command> script = ClusterCommands.sample("a", 150);
                for (final Command command : script)
                {
                    final Object actual = ClusterCommands.publish(client, command).get(TIMEOUT_S, TimeUnit.SECONDS);
                    assertEquals(ClusterCommands.expected(model, command), ClusterCommands.normalise(actual),
                        "outcome of " + command);
                    issued += ClusterCommands.reachesCluster(command) ? 1 : 0;
                }
                issued += assertSameStateEverywhere(cluster, client, model, 3);

                // 2. A waiter on a pending key, registered with the first leader.
                final CacheKey waitKey = new CacheKey("w-session", "w-cache");
                assertInstanceOf(Acquisition.Claimed.class, client.acquire(waitKey, "w-job").get(TIMEOUT_S,
                    TimeUnit.SECONDS));
                final Acquisition waiting = client.acquire(waitKey, "other-job").get(TIMEOUT_S, TimeUnit.SECONDS);
                final CompletableFuture<Resolution> resolution = ((Acquisition.Wait) waiting).resolution();
                final CompletableFuture<Resolution> awaited = client.awaitMaterialization(waitKey);
                issued += 3;

                // 3. Kill the leader with 200 commands pipelined around the kill.
                final List<Command> pipelined = ClusterCommands.sample("b", 200);
                final List<CompletableFuture<?>> futures = new ArrayList<>();
                final int half = pipelined.size() / 2;
                for (int i = 0; i < pipelined.size(); i++)
                {
                    if (i == half)
                    {
                        futures.get(half / 2).get(TIMEOUT_S, TimeUnit.SECONDS);
                        final long killedAt = System.nanoTime();
                        cluster.stop(firstLeader);
                        final int newLeader = cluster.awaitLeader(5_000);
                        assertNotEquals(firstLeader, newLeader);
                        final long failoverMs = (System.nanoTime() - killedAt) / 1_000_000;
                        assertTrue(failoverMs < 5_000, "new leader after " + failoverMs + " ms");
                    }
                    futures.add(ClusterCommands.publish(client, pipelined.get(i)));
                }
                for (int i = 0; i < pipelined.size(); i++)
                {
                    final Object actual = futures.get(i).get(TIMEOUT_S, TimeUnit.SECONDS);
                    final Command command = pipelined.get(i);
                    assertEquals(ClusterCommands.expected(model, command), ClusterCommands.normalise(actual),
                        "outcome of pipelined " + command);
                    issued += ClusterCommands.reachesCluster(command) ? 1 : 0;
                }
                assertTrue(client.resendRounds() > 0, "in-flight commands were resent after the leader change");

                // 4. The new leader releases the waiters registered with the old one.
                assertEquals(CompletionOutcome.PROMOTED, client.completeMaterialization(waitKey, "w-job",
                    new DatasetSchema("s"), List.of(new PartitionLocation("w-exec", "w-job", 0, 0, "/w", 7)))
                    .get(TIMEOUT_S, TimeUnit.SECONDS));
                issued++;
                final Resolution released = resolution.get(TIMEOUT_S, TimeUnit.SECONDS);
                assertInstanceOf(Resolution.Ready.class, released);
                assertEquals(released, awaited.get(TIMEOUT_S, TimeUnit.SECONDS));
                model.begin(waitKey, "w-job");
                model.complete(waitKey, "w-job", new DatasetSchema("s"),
                    List.of(new PartitionLocation("w-exec", "w-job", 0, 0, "/w", 7)));

                // No acknowledged command lost, none applied twice (the probe counts every application).
                final RegistryClusterClient.Probe afterFailover = client.probe().get(TIMEOUT_S, TimeUnit.SECONDS);
                issued++;
                assertEquals(issued, afterFailover.appliedCommands(), "each issued command applied exactly once");
                assertEquals(ClusterFixture.untimedEntries(model.map),
                    ClusterFixture.untimedEntries(afterFailover.entries()));

                // 5. The killed member restarts (its mark files are stale) and catches up.
                cluster.start(firstLeader);
                issued += assertSameStateEverywhere(cluster, client, model, 3);

                // 6. Snapshot on every member, more commands after it, then stop everything.
                final long[] before = new long[3];
                for (int i = 0; i < 3; i++)
                {
                    before[i] = cluster.members[i].snapshotCount();
                }
                final int leader = cluster.awaitLeader(5_000);
                ClusterFixture.await(() -> cluster.members[leader].requestSnapshot(), 5_000, "snapshot request");
                for (int i = 0; i < 3; i++)
                {
                    final int member = i;
                    ClusterFixture.await(() -> cluster.members[member].snapshotCount() > before[member], 10_000,
                        "snapshot on member " + member);
                    assertTrue(cluster.members[member].service().snapshotsTaken() > 0);
                }
                for (final Command command : ClusterCommands.sample("c", 40))
                {
                    final Object actual = ClusterCommands.publish(client, command).get(TIMEOUT_S, TimeUnit.SECONDS);
                    assertEquals(ClusterCommands.expected(model, command), ClusterCommands.normalise(actual));
                    issued += ClusterCommands.reachesCluster(command) ? 1 : 0;
                }
                issued += assertSameStateEverywhere(cluster, client, model, 3);
            }
            final Map<CacheKey, CacheEntry> beforeStop = cluster.members[0].service().probedEntries();
            for (int i = 0; i < 3; i++)
            {
                cluster.stop(i);
            }

            // 7. Restart all: snapshot + the log after it give back exactly the same state and counters.
            cluster.startAll();
            cluster.awaitLeader(15_000);
            try (RegistryClusterClient client = cluster.client())
            {
                final RegistryClusterClient.Probe restored = client.probe().get(TIMEOUT_S, TimeUnit.SECONDS);
                issued++;
                assertEquals(beforeStop, restored.entries(), "exact state, materialization times included");
                assertEquals(issued, restored.appliedCommands());
                for (int i = 0; i < 3; i++)
                {
                    final RegistryClusteredService service = cluster.members[i].service();
                    assertEquals(1, service.snapshotsLoaded(), "member " + i + " loaded its snapshot");
                    ClusterFixture.await(() -> service.probedAtApplied() == restored.appliedCommands(), 10_000,
                        "member caught up");
                    assertEquals(beforeStop, service.probedEntries());
                }
            }
        }
    }

    /**
     * Probes through the client and checks the model and every running member at the probe's log position.
     *
     * @return 1, the probe command itself.
     */
    private static int assertSameStateEverywhere(
        final ClusterFixture cluster, final RegistryClusterClient client, final ReferenceModel model,
        final int expectedMembers) throws Exception
    {
        final RegistryClusterClient.Probe probe = client.probe().get(TIMEOUT_S, TimeUnit.SECONDS);
        assertEquals(ClusterFixture.untimedEntries(model.map), ClusterFixture.untimedEntries(probe.entries()));
        int checked = 0;
        for (final RegistryClusterMember member : cluster.members)
        {
            if (member == null)
            {
                continue;
            }
            final RegistryClusteredService service = member.service();
            ClusterFixture.await(() -> service.probedAtApplied() == probe.appliedCommands(), 10_000,
                "member " + member.memberId() + " at the probe");
            assertEquals(probe.entries(), service.probedEntries(), "member " + member.memberId());
            checked++;
        }
        assertEquals(expectedMembers, checked);
        return 1;
    }
}
