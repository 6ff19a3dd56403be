package dev.offcache.dataset.cluster;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.core.shuffle.ShufflePartitionStore;
import dev.offcache.dataset.CachedNode;
import dev.offcache.dataset.FetchFailedException;
import dev.offcache.dataset.ReadBackCounters;
import dev.offcache.dataset.ReadPlacement;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.Materialized;
import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.transport.client.FetchException;
import dev.offcache.transport.wire.ErrorCode;

import static dev.offcache.dataset.cluster.DatasetCacheEndToEndTest.ALL_ROWS;
import static dev.offcache.dataset.cluster.DatasetCacheEndToEndTest.assertFailure;
import static dev.offcache.dataset.cluster.DatasetCacheEndToEndTest.assertNoDirsLeft;
import static dev.offcache.dataset.cluster.DatasetCacheEndToEndTest.get;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How read-back meets broken materializations, end to end: a valid partition file in another partition's place, a
 * materialization that cannot be read twice, an invalidation racing another action's claim, a dead executor noticed
 * by the transport before the scheduler, and read-back placed per action (locally on the executor the engine runs
 * the query on, through a read-only store over its directory). Rows always equal computing the input directly.
 */
class ReadBackFailuresTest
{
    private static final ToyDataset INPUT = new ToyDataset(42, 4, 4096);

    @TempDir
    Path root;

    @Test
    void aValidFileOfAnotherPartitionInAPartitionsPlaceIsAFetchFailureNeverWrongRows() throws Exception
    {
        try (TestCluster cluster = new TestCluster(root, new TestCluster.Options()))
        {
            // Partitions 0 and 2 live on exec-0 (read locally), 1 and 3 on exec-1 (fetched): same lengths.
            for (final int[] swap : new int[][] {{0, 2}, {1, 3}})
            {
                final CachedNode<ToyDataset> node =
                    new CachedNode<>(new CacheKey("s", "swap-" + swap[0] + "-" + swap[1]), INPUT);
                assertArrayEquals(INPUT.computeDirectly(), get(cluster.coordinator.execute(node, ALL_ROWS)));
                final Materialized before = (Materialized) cluster.registry.lookup(node.key()).get();
                assertTrue(before.locations().stream().allMatch(PartitionLocation::hasCrc), "CRCs recorded");
                Files.copy(Path.of(before.locations().get(swap[0]).path()),
                    Path.of(before.locations().get(swap[1]).path()), StandardCopyOption.REPLACE_EXISTING);
                final long jobs = cluster.jobs.started();
                final long failures = cluster.coordinator.counters().fetchFailures();

                assertArrayEquals(INPUT.computeDirectly(), get(cluster.coordinator.execute(node, ALL_ROWS)),
                    "partition " + swap[0] + "'s file in partition " + swap[1] + "'s place");
                assertEquals(failures + 1, cluster.coordinator.counters().fetchFailures());
                assertEquals(jobs + 1, cluster.jobs.started(), "re-materialized once");
                final TestCluster.FetchFailure failure = cluster.fetchFailures.get(cluster.fetchFailures.size() - 1);
                assertEquals(swap[1], failure.location().partitionId());
                assertTrue(String.valueOf(failure.cause()).contains("holds partition " + before.jobId() + "/1/" +
                    swap[0]), String.valueOf(failure.cause()));
                assertNotEquals(before.jobId(), cluster.registry.lookup(node.key()).get().jobId());
            }
        }
    }

    @Test
    void aMaterializationThatCannotBeReadTwiceFailsTheActionAndStaysRegisteredNowhere() throws Exception
    {
        try (TestCluster cluster = new TestCluster(root, new TestCluster.Options()))
        {
            final CachedNode<ToyDataset> node = new CachedNode<>(new CacheKey("s", "c"), INPUT);
            // The engine has no way to reach exec-1 (for this action): every read-back of its partitions fails.
            cluster.unreachable.add("exec-1");
            final FetchFailedException failure = assertInstanceOf(FetchFailedException.class,
                assertFailure(cluster.coordinator.execute(node, ALL_ROWS)).getCause());
            assertEquals("exec-1", failure.location().executorId());
            assertEquals(2, cluster.jobs.started(), "materialized, failed, re-materialized, failed");
            assertEquals(2, cluster.coordinator.counters().fetchFailures());
            assertNull(cluster.registry.lookup(node.key()).get(), "the second broken materialization is dropped too");
            assertTrue(cluster.registry.pinnedStages().isEmpty());
            assertTrue(cluster.cleanup.awaitIdle(10_000));
            for (final ExecutorNode executor : cluster.executors.values())
            {
                try (Stream<Path> jobs = Files.list(root.resolve(executor.id())))
                {
                    assertEquals(List.of(), jobs.toList(), "nothing of either job left on " + executor.id());
                }
            }

            cluster.unreachable.clear();
            assertArrayEquals(INPUT.computeDirectly(), get(cluster.coordinator.execute(node, ALL_ROWS)));
            assertEquals(3, cluster.jobs.started(), "the next action materializes afresh");
            assertEquals(2, cluster.coordinator.counters().fetchFailures(), "and pays no failure");
        }
    }

    @Test
    void anInvalidationAfterAFetchFailureNeverDropsAMaterializationAnotherActionJustMade() throws Exception
    {
        final InterleavingRegistry[] view = new InterleavingRegistry[1];
        try (TestCluster cluster = new TestCluster(root, new TestCluster.Options().registryView(registry ->
        {
            view[0] = new InterleavingRegistry(registry);
            return view[0];
        })))
        {
            final CachedNode<ToyDataset> node = new CachedNode<>(new CacheKey("s", "c"), INPUT);
            assertArrayEquals(INPUT.computeDirectly(), get(cluster.coordinator.execute(node, ALL_ROWS)));
            final String first = cluster.registry.lookup(node.key()).get().jobId();
            Files.delete(Path.of(((Materialized) cluster.registry.lookup(node.key()).get()).locations().get(1)
                .path()));
            // Between this action's decision to drop its broken materialization and the removal reaching the
            // registry, another action finds the key gone (someone removed it) and materializes it again.
            final String[] second = new String[1];
            view[0].beforeNextRemoval(() ->
            {
                cluster.registry.invalidate(node.key()).join();
                cluster.coordinator.execute(node, ALL_ROWS).join();
                second[0] = cluster.registry.lookup(node.key()).join().jobId();
            });

            assertArrayEquals(INPUT.computeDirectly(), get(cluster.coordinator.execute(node, ALL_ROWS)));
            assertNotEquals(first, second[0]);
            assertEquals(second[0], cluster.registry.lookup(node.key()).get().jobId(),
                "the other action's materialization survived the removal of the broken one");
            assertEquals(2, cluster.jobs.started(), "the first materialization and the other action's: no third");
        }
    }

    @Test
    void aSecondDatasetOnAnExecutorTheTransportKnowsIsGoneFailsFastAndTheEngineHearsOfIt() throws Exception
    {
        final long fetchTimeoutNs = TimeUnit.SECONDS.toNanos(20);
        final List<Path> childAeronDirs;
        try (TestCluster cluster = new TestCluster(root, new TestCluster.Options().executors(1, 1)
            .watchChildren(false).fetchTimeoutNs(fetchTimeoutNs)))
        {
            childAeronDirs = cluster.childAeronDirs();
            final CachedNode<ToyDataset> a = new CachedNode<>(new CacheKey("s", "a"), INPUT);
            final CachedNode<ToyDataset> b = new CachedNode<>(new CacheKey("s", "b"), new ToyDataset(7, 4, 1000));
            assertArrayEquals(a.input().computeDirectly(), get(cluster.coordinator.execute(a, ALL_ROWS)));
            assertArrayEquals(b.input().computeDirectly(), get(cluster.coordinator.execute(b, ALL_ROWS)));
            // exec-1 dies; the scheduler has not noticed (no executor loss reported), the transport will.
            cluster.executors.get("exec-1").kill();

            assertArrayEquals(a.input().computeDirectly(), get(cluster.coordinator.execute(a, ALL_ROWS)));
            assertTrue(cluster.fetchFailures.stream().allMatch(f -> f.location().executorId().equals("exec-1")));
            final int heardForA = cluster.fetchFailures.size();
            assertTrue(heardForA >= 1, "the engine heard of the failed fetch");
            assertFalse(cluster.clients.get("exec-1").isConnected(), "the transport knows the connection is lost");

            final long start = System.nanoTime();
            assertArrayEquals(b.input().computeDirectly(), get(cluster.coordinator.execute(b, ALL_ROWS)));
            final long elapsedNs = System.nanoTime() - start;
            final List<TestCluster.FetchFailure> forB = cluster.fetchFailures.subList(heardForA,
                cluster.fetchFailures.size());
            assertFalse(forB.isEmpty());
            for (final TestCluster.FetchFailure failure : forB)
            {
                assertEquals("exec-1", failure.location().executorId());
                assertEquals(ErrorCode.CONNECTION_LOST,
                    assertInstanceOf(FetchException.class, failure.cause()).errorCode(),
                    "a known-lost connection fails the fetch at once, not at its deadline: " + failure.cause());
            }
            assertTrue(elapsedNs < fetchTimeoutNs, "the second dataset waited " + elapsedNs / 1_000_000 + " ms");
            assertEquals(4, cluster.jobs.started(), "each dataset rebuilt once on the survivor");
        }
        assertNoDirsLeft(childAeronDirs);
    }

    @Test
    void readBackIsPlacedPerActionAndLocalReadsHonourTheRecordedPaths() throws Exception
    {
        final List<Path> childAeronDirs;
        try (TestCluster cluster = new TestCluster(root, new TestCluster.Options().executors(1, 1)))
        {
            childAeronDirs = cluster.childAeronDirs();
            final ReadBackCounters counters = cluster.coordinator.counters();
            final CachedNode<ToyDataset> node = new CachedNode<>(new CacheKey("s", "c"), INPUT);
            assertArrayEquals(INPUT.computeDirectly(), get(cluster.coordinator.execute(node, ALL_ROWS)));
            assertEquals(2, counters.localPartitionReads(), "default placement: exec-0");
            assertEquals(2, counters.remotePartitionReads());

            // The query runs in this process on exec-1's host: a read-only store over the directory the exec-1 JVM
            // writes. Its partitions are read locally, exec-0's fetched.
            final ShufflePartitionStore colocated = ShufflePartitionStore.openReadOnly(root.resolve("exec-1"));
            assertArrayEquals(INPUT.computeDirectly(), get(cluster.coordinator.execute(node, ALL_ROWS,
                ReadPlacement.onExecutor("exec-1", colocated))));
            assertEquals(4, counters.localPartitionReads());
            assertEquals(4, counters.remotePartitionReads());

            // A store rooted elsewhere still reads the files where the registry recorded them.
            assertArrayEquals(INPUT.computeDirectly(), get(cluster.coordinator.execute(node, ALL_ROWS,
                ReadPlacement.onExecutor("exec-1", ShufflePartitionStore.openReadOnly(root.resolve("elsewhere"))))));
            assertEquals(6, counters.localPartitionReads());
            assertEquals(6, counters.remotePartitionReads());

            assertArrayEquals(INPUT.computeDirectly(), get(cluster.coordinator.execute(node, ALL_ROWS,
                ReadPlacement.remoteOnly())));
            assertEquals(6, counters.localPartitionReads());
            assertEquals(10, counters.remotePartitionReads());

            // While the co-located reader's store is open, the executor JVM keeps writing there: a new dataset.
            final CachedNode<ToyDataset> other = new CachedNode<>(new CacheKey("s", "other"), new ToyDataset(3, 4, 64));
            assertArrayEquals(other.input().computeDirectly(), get(cluster.coordinator.execute(other, ALL_ROWS,
                ReadPlacement.onExecutor("exec-1", colocated))));
            assertEquals(2, cluster.jobs.started());
            assertEquals(0, counters.fetchFailures());
            assertEquals(2, counters.materializationJobs());
        }
        assertNoDirsLeft(childAeronDirs);
    }
}
