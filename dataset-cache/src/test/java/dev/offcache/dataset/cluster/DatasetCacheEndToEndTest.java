package dev.offcache.dataset.cluster;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.offcache.core.region.MappedRegion;
import dev.offcache.dataset.AbortPolicy;
import dev.offcache.dataset.CachedNode;
import dev.offcache.dataset.MaterializationFailedException;
import dev.offcache.dataset.OutputReader;
import dev.offcache.dataset.ReadBackCounters;
import dev.offcache.registry.retention.RetentionPolicy;
import dev.offcache.registry.state.CacheEntry;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.Materialized;
import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.registry.state.Pending;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The {@code df.cache()} flow end to end on a real cluster (registry, coordinator, executors with shuffle stores and
 * Aeron payload servers on a real media driver): results always equal computing the input directly, and the counted
 * jobs, hits, local and remote reads, and stage directories on every executor say how they were obtained.
 */
class DatasetCacheEndToEndTest
{
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final ToyDataset INPUT = new ToyDataset(42, 4, 4096);
    static final OutputReader<long[]> ALL_ROWS = (schema, partitions) ->
    {
        int rows = 0;
        for (int i = 0; i < partitions.count(); i++)
        {
            rows += partitions.buffer(i).capacity() / Long.BYTES;
        }
        final long[] result = new long[rows];
        int at = 0;
        for (int i = 0; i < partitions.count(); i++)
        {
            at = ToyDataset.readRows(partitions.buffer(i), result, at);
        }
        return result;
    };
    /** A query built on top of the cached node: the sum of the even rows. */
    private static final OutputReader<Long> SUM_OF_EVEN = (schema, partitions) ->
    {
        long sum = 0;
        for (int i = 0; i < partitions.count(); i++)
        {
            for (int at = 0; at < partitions.buffer(i).capacity(); at += Long.BYTES)
            {
                final long value = partitions.buffer(i).getLong(at);
                sum += (value & 1) == 0 ? value : 0;
            }
        }
        return sum;
    };

    @TempDir
    Path root;

    @Test
    void coldActionMaterializesOnceWarmActionsAndQueriesOnTopRunNoJob() throws Exception
    {
        final long mappingsBefore = MappedRegion.liveMappings();
        try (TestCluster cluster = new TestCluster(root, 2, 0, AbortPolicy.CLAIM_AND_MATERIALIZE,
            RetentionPolicy.none()))
        {
            final CachedNode<ToyDataset> node = new CachedNode<>(new CacheKey("s1", "c1"), INPUT);
            final ReadBackCounters counters = cluster.coordinator.counters();

            assertArrayEquals(INPUT.computeDirectly(), get(cluster.coordinator.execute(node, ALL_ROWS)));
            assertEquals(1, counters.materializationJobs());
            assertEquals(1, cluster.jobs.started());
            // Locality: partitions 0 and 2 live on exec-0 (the reader's), 1 and 3 on exec-1.
            assertEquals(2, counters.localPartitionReads());
            assertEquals(2, counters.remotePartitionReads());
            final Materialized entry = (Materialized) cluster.registry.lookup(node.key()).get();
            for (final PartitionLocation location : entry.locations())
            {
                assertEquals("exec-" + (location.partitionId() % 2), location.executorId());
            }

            // Normal job cleanup ran: the intermediate stage is gone everywhere, the pinned output stays.
            for (final ExecutorNode executor : cluster.executors.values())
            {
                assertFalse(executor.stageExists(entry.jobId(), 0), executor.id());
                assertTrue(executor.stageExists(entry.jobId(), 1), executor.id());
            }

            for (int i = 0; i < 3; i++)
            {
                assertArrayEquals(INPUT.computeDirectly(), get(cluster.coordinator.execute(node, ALL_ROWS)));
            }
            long expectedSum = 0;
            for (final long value : INPUT.computeDirectly())
            {
                expectedSum += (value & 1) == 0 ? value : 0;
            }
            assertEquals(expectedSum, get(cluster.coordinator.execute(node, SUM_OF_EVEN)));
            assertEquals(1, counters.materializationJobs(), "warm actions ran no job");
            assertEquals(1, cluster.jobs.started());
            assertEquals(4, counters.hits());
            assertEquals(10, counters.localPartitionReads());
            assertEquals(10, counters.remotePartitionReads());
            assertEquals(10L * INPUT.rowsPerPartition() * Long.BYTES, counters.remoteBytes());
            assertEquals(10, cluster.counter("offcache_dataset_partitions_read_local_total"));
            assertEquals(10, cluster.counter("offcache_dataset_partitions_read_remote_total"));
            assertEquals(1, cluster.counter("offcache_dataset_materialization_jobs_total"));
        }
        assertEquals(mappingsBefore, MappedRegion.liveMappings(), "every read-back mapping unmapped");
    }

    @Test
    void concurrentActionsOnAColdKeyShareOneJob() throws Exception
    {
        try (TestCluster cluster = new TestCluster(root, 2, 0, AbortPolicy.CLAIM_AND_MATERIALIZE,
            RetentionPolicy.none()))
        {
            final CachedNode<ToyDataset> node = new CachedNode<>(new CacheKey("s1", "c1"), INPUT);
            cluster.jobs.hold();
            final List<CompletableFuture<long[]>> actions = new ArrayList<>();
            for (int i = 0; i < 8; i++)
            {
                actions.add(cluster.coordinator.execute(node, ALL_ROWS));
            }
            awaitTrue(() -> cluster.coordinator.counters().waits() == 7, "7 actions waiting");
            assertInstanceOf(Pending.class, cluster.registry.lookup(node.key()).get());
            for (final CompletableFuture<long[]> action : actions)
            {
                assertFalse(action.isDone(), "no action finishes before the job");
            }
            cluster.jobs.release();
            for (final CompletableFuture<long[]> action : actions)
            {
                assertArrayEquals(INPUT.computeDirectly(), get(action));
            }
            assertEquals(1, cluster.jobs.started());
            assertEquals(1, cluster.coordinator.counters().materializationJobs());
        }
    }

    @ParameterizedTest
    @EnumSource(AbortPolicy.class)
    void jobFailureAbortsReleasesWaitersAndALaterActionMaterializes(final AbortPolicy policy) throws Exception
    {
        try (TestCluster cluster = new TestCluster(root, 2, 0, policy, RetentionPolicy.none()))
        {
            final CachedNode<ToyDataset> node = new CachedNode<>(new CacheKey("s1", "c1"), INPUT);
            cluster.jobs.failNext(1);
            cluster.jobs.hold();
            final CompletableFuture<long[]> first = cluster.coordinator.execute(node, ALL_ROWS);
            awaitTrue(() -> cluster.jobs.started() == 1, "the first job started");
            final CompletableFuture<long[]> waiter = cluster.coordinator.execute(node, ALL_ROWS);
            awaitTrue(() -> cluster.coordinator.counters().waits() == 1, "the second action waits");
            cluster.jobs.release();

            final ExecutionException failure = assertFailure(first);
            assertInstanceOf(MaterializationFailedException.class, failure.getCause());
            assertArrayEquals(INPUT.computeDirectly(), get(waiter), "the released waiter still gets the result");
            assertEquals(2, cluster.jobs.started());
            final CacheEntry afterWaiter = cluster.registry.lookup(node.key()).get();
            if (policy == AbortPolicy.COMPUTE_INLINE)
            {
                assertEquals(1, cluster.coordinator.counters().inlineComputations());
                assertNull(afterWaiter, "an inline computation caches nothing");
                assertInlineJobDeleted(cluster);
                assertArrayEquals(INPUT.computeDirectly(), get(cluster.coordinator.execute(node, ALL_ROWS)));
                assertEquals(3, cluster.jobs.started(), "a later action materializes");
            }
            else
            {
                assertInstanceOf(Materialized.class, afterWaiter, "the waiter claimed and materialized");
                assertArrayEquals(INPUT.computeDirectly(), get(cluster.coordinator.execute(node, ALL_ROWS)));
                assertEquals(2, cluster.jobs.started());
            }
            assertInstanceOf(Materialized.class, cluster.registry.lookup(node.key()).get());
            assertEquals(1, cluster.coordinator.counters().failedJobs());
        }
    }

    @Test
    void aJobWhoseClaimWasRemovedWhileItRanIsReadOnceNotRunAgainAndThenDeleted() throws Exception
    {
        try (TestCluster cluster = new TestCluster(root, 2, 0, AbortPolicy.CLAIM_AND_MATERIALIZE,
            RetentionPolicy.none()))
        {
            final CachedNode<ToyDataset> node = new CachedNode<>(new CacheKey("s1", "c1"), INPUT);
            cluster.jobs.hold();
            final CompletableFuture<long[]> action = cluster.coordinator.execute(node, ALL_ROWS);
            awaitTrue(() -> cluster.jobs.started() == 1, "the job started");
            assertEquals(1, cluster.registry.invalidate(node.key()).get().size(), "the claim removed under the job");
            cluster.jobs.release();

            assertArrayEquals(INPUT.computeDirectly(), get(action));
            assertEquals(1, cluster.jobs.started(), "the stale output is read, the input not run again");
            assertEquals(0, cluster.coordinator.counters().inlineComputations());
            assertNull(cluster.registry.lookup(node.key()).get(), "nothing registered");
            assertTrue(cluster.cleanup.awaitIdle(10_000));
            for (final ExecutorNode executor : cluster.executors.values())
            {
                try (Stream<Path> jobs = Files.list(root.resolve(executor.id())))
                {
                    assertEquals(List.of(), jobs.toList(), "the stale job deleted on " + executor.id());
                }
            }
        }
    }

    @Test
    void filesDeletedOrDamagedBehindTheCachesBackAreRematerialized() throws Exception
    {
        try (TestCluster cluster = new TestCluster(root, 2, 0, AbortPolicy.CLAIM_AND_MATERIALIZE,
            RetentionPolicy.none()))
        {
            // Deleted remote file (DELETED/NOT_FOUND error frame), deleted local file, flipped byte in a remote
            // file (CORRUPT error frame: the server checks the CRC before sending), flipped byte in a local file.
            final String[][] cases = {{"exec-1", "delete"}, {"exec-0", "delete"}, {"exec-1", "flip"},
                {"exec-0", "flip"}};
            for (final String[] damage : cases)
            {
                final String victim = damage[0];
                final String what = damage[1] + " on " + victim;
                final CachedNode<ToyDataset> node = new CachedNode<>(
                    new CacheKey("s1", "c-" + damage[1] + "-" + victim), INPUT);
                assertArrayEquals(INPUT.computeDirectly(), get(cluster.coordinator.execute(node, ALL_ROWS)));
                final Materialized before = (Materialized) cluster.registry.lookup(node.key()).get();
                final PartitionLocation doomed = before.locations().stream()
                    .filter(l -> l.executorId().equals(victim)).findFirst().orElseThrow();
                if ("delete".equals(damage[1]))
                {
                    Files.delete(Path.of(doomed.path()));
                }
                else
                {
                    flipByte(Path.of(doomed.path()), doomed.length() / 2);
                }
                final long jobs = cluster.jobs.started();
                final long failures = cluster.coordinator.counters().fetchFailures();

                assertArrayEquals(INPUT.computeDirectly(), get(cluster.coordinator.execute(node, ALL_ROWS)), what);
                assertEquals(failures + 1, cluster.coordinator.counters().fetchFailures(), what);
                assertEquals(jobs + 1, cluster.jobs.started(), "re-materialized once after " + what);
                final Materialized after = (Materialized) cluster.registry.lookup(node.key()).get();
                assertNotEquals(before.jobId(), after.jobId());
                assertTrue(cluster.cleanup.awaitIdle(10_000));
                for (final ExecutorNode executor : cluster.executors.values())
                {
                    assertFalse(executor.stageExists(before.jobId(), 1), "old output deleted on " + executor.id());
                    assertFalse(executor.jobExists(before.jobId()), "no empty job directory on " + executor.id());
                }
            }
            assertEquals(cases.length, cluster.coordinator.counters().rematerializations());
        }
    }

    @Test
    void sessionTeardownAndEvictionDeleteStagesOnEveryExecutor() throws Exception
    {
        try (TestCluster cluster = new TestCluster(root, 3, 0, AbortPolicy.CLAIM_AND_MATERIALIZE,
            RetentionPolicy.none().expireAfterMaterialized(60_000)))
        {
            final CachedNode<ToyDataset> torn = new CachedNode<>(new CacheKey("s-torn", "c1"), INPUT);
            final CachedNode<ToyDataset> kept = new CachedNode<>(new CacheKey("s-kept", "c1"),
                new ToyDataset(7, 3, 1000));
            get(cluster.coordinator.execute(torn, ALL_ROWS));
            cluster.clock.advance(30_000);
            get(cluster.coordinator.execute(kept, ALL_ROWS));
            final String tornJob = cluster.registry.lookup(torn.key()).get().jobId();
            final String keptJob = cluster.registry.lookup(kept.key()).get().jobId();
            // A later job's cleanup must not touch the pinned stages of earlier ones.
            assertTrue(cluster.cleanup.awaitIdle(10_000));
            assertStage(cluster, tornJob, true);
            assertStage(cluster, keptJob, true);

            assertEquals(1, cluster.registry.removeSession("s-torn").get().size());
            assertTrue(cluster.cleanup.awaitIdle(10_000));
            assertStage(cluster, tornJob, false);
            assertStage(cluster, keptJob, true);

            cluster.clock.advance(31_000);
            assertTrue(cluster.registry.sweep().get().isEmpty(), "not yet expired");
            cluster.clock.advance(30_000);
            assertEquals(1, cluster.registry.sweep().get().size());
            assertTrue(cluster.cleanup.awaitIdle(10_000));
            assertStage(cluster, keptJob, false);
            assertTrue(cluster.registry.pinnedStages().isEmpty());
            assertEquals(0, cluster.cleanup.failures());
        }
    }

    @Test
    void executorJvmKilledAfterMaterializationIsNeverReadAndTheDatasetIsRebuilt() throws Exception
    {
        final List<Path> childAeronDirs;
        try (TestCluster cluster = new TestCluster(root, 1, 2, AbortPolicy.CLAIM_AND_MATERIALIZE,
            RetentionPolicy.none()))
        {
            childAeronDirs = cluster.childAeronDirs();
            assertEquals(2, childAeronDirs.size());
            final ToyDataset input = new ToyDataset(11, 6, 2048);
            final CachedNode<ToyDataset> node = new CachedNode<>(new CacheKey("s1", "c1"), input);
            assertArrayEquals(input.computeDirectly(), get(cluster.coordinator.execute(node, ALL_ROWS)));
            assertArrayEquals(input.computeDirectly(), get(cluster.coordinator.execute(node, ALL_ROWS)));
            assertEquals(1, cluster.jobs.started());
            assertEquals(4, cluster.coordinator.counters().localPartitionReads(), "p0, p3 twice on exec-0");
            assertEquals(8, cluster.coordinator.counters().remotePartitionReads(), "over UDP from child JVMs");
            final String firstJob = cluster.registry.lookup(node.key()).get().jobId();

            cluster.executors.get("exec-2").kill();
            awaitTrue(() -> !cluster.live.contains("exec-2"), "executor loss noticed");
            final long lookupsOfDead = cluster.lookups("exec-2");

            assertArrayEquals(input.computeDirectly(), get(cluster.coordinator.execute(node, ALL_ROWS)));
            assertEquals(2, cluster.jobs.started(), "re-materialized");
            assertEquals(lookupsOfDead, cluster.lookups("exec-2"), "no read from the dead executor");
            final Materialized rebuilt = (Materialized) cluster.registry.lookup(node.key()).get();
            assertFalse(rebuilt.usesExecutor("exec-2"));
            assertTrue(cluster.cleanup.awaitIdle(10_000));
            for (final String survivor : new String[] {"exec-0", "exec-1"})
            {
                assertFalse(cluster.executors.get(survivor).stageExists(firstJob, 1),
                    "the lost entry's stage deleted on " + survivor);
                assertFalse(cluster.executors.get(survivor).jobExists(firstJob), "and its job directory");
                assertTrue(cluster.executors.get(survivor).stageExists(rebuilt.jobId(), 1));
            }
        }
        assertNoDirsLeft(childAeronDirs);
    }

    @Test
    void aHitNamingAnExecutorTheLiveViewDropsIsValidatedAwayAndRebuilt() throws Exception
    {
        try (TestCluster cluster = new TestCluster(root, 3, 0, AbortPolicy.CLAIM_AND_MATERIALIZE,
            RetentionPolicy.none()))
        {
            final CachedNode<ToyDataset> node = new CachedNode<>(new CacheKey("s1", "c1"), INPUT);
            assertArrayEquals(INPUT.computeDirectly(), get(cluster.coordinator.execute(node, ALL_ROWS)));
            final String firstJob = cluster.registry.lookup(node.key()).get().jobId();
            // Only the live view changes (a missed heartbeat): nobody calls invalidateExecutor.
            cluster.live.remove("exec-2");
            final long lookupsOfDead = cluster.lookups("exec-2");

            assertArrayEquals(INPUT.computeDirectly(), get(cluster.coordinator.execute(node, ALL_ROWS)));
            assertEquals(0, cluster.coordinator.counters().hits(), "validate-on-read turned the hit into a miss");
            assertEquals(0, cluster.coordinator.counters().fetchFailures());
            assertEquals(2, cluster.jobs.started());
            assertEquals(lookupsOfDead, cluster.lookups("exec-2"), "no read from the dropped executor");
            assertFalse(((Materialized) cluster.registry.lookup(node.key()).get()).usesExecutor("exec-2"));
            assertTrue(cluster.cleanup.awaitIdle(10_000));
            assertFalse(cluster.executors.get("exec-0").stageExists(firstJob, 1), "invalidated output deleted");
            assertFalse(cluster.executors.get("exec-1").stageExists(firstJob, 1), "invalidated output deleted");
        }
    }

    @Test
    void executorJvmKilledBeforeTheSchedulerNoticesGivesAFetchFailureAndARebuild() throws Exception
    {
        final List<Path> childAeronDirs;
        try (TestCluster cluster = new TestCluster(root, 1, 1, AbortPolicy.CLAIM_AND_MATERIALIZE,
            RetentionPolicy.none(), false))
        {
            childAeronDirs = cluster.childAeronDirs();
            final CachedNode<ToyDataset> node = new CachedNode<>(new CacheKey("s1", "c1"), INPUT);
            assertArrayEquals(INPUT.computeDirectly(), get(cluster.coordinator.execute(node, ALL_ROWS)));
            final String firstJob = cluster.registry.lookup(node.key()).get().jobId();
            // The registry's live view still names exec-1 (no heartbeat missed yet), so the hit validates and the
            // read-back is what finds the executor gone.
            cluster.executors.get("exec-1").kill();
            assertTrue(cluster.live.contains("exec-1"));

            assertArrayEquals(INPUT.computeDirectly(), get(cluster.coordinator.execute(node, ALL_ROWS)));
            assertEquals(1, cluster.coordinator.counters().fetchFailures());
            assertEquals(1, cluster.coordinator.counters().rematerializations());
            assertEquals(2, cluster.jobs.started());
            final Materialized rebuilt = (Materialized) cluster.registry.lookup(node.key()).get();
            assertFalse(rebuilt.usesExecutor("exec-1"));
            assertTrue(cluster.cleanup.awaitIdle(10_000));
            assertFalse(cluster.executors.get("exec-0").stageExists(firstJob, 1), "lost entry's stage deleted");
        }
        assertNoDirsLeft(childAeronDirs);
    }

    private static void assertStage(final TestCluster cluster, final String jobId, final boolean present)
    {
        for (final ExecutorNode executor : cluster.executors.values())
        {
            assertFalse(executor.stageExists(jobId, 0), "intermediate stage of " + jobId + " on " + executor.id());
            assertEquals(present, executor.stageExists(jobId, 1), "output stage of " + jobId + " on " +
                executor.id());
            assertEquals(present, executor.jobExists(jobId), "job directory of " + jobId + " on " + executor.id());
        }
    }

    private void assertInlineJobDeleted(final TestCluster cluster) throws Exception
    {
        assertTrue(cluster.cleanup.awaitIdle(10_000));
        for (final ExecutorNode executor : cluster.executors.values())
        {
            final Path workDir = root.resolve(executor.id());
            try (Stream<Path> jobs = Files.list(workDir))
            {
                final List<String> inline = jobs.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith("-inline")).toList();
                assertTrue(inline.isEmpty(), "inline job output left on " + executor.id() + ": " + inline);
            }
        }
    }

    static void assertNoDirsLeft(final List<Path> dirs)
    {
        for (final Path dir : dirs)
        {
            assertFalse(Files.exists(dir), "left behind: " + dir);
        }
    }

    private static void flipByte(final Path file, final long position) throws IOException
    {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            final ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, position);
            one.put(0, (byte) (one.get(0) ^ 0x01)).position(0);
            channel.write(one, position);
        }
    }

    static <T> T get(final CompletableFuture<T> future) throws Exception
    {
        return future.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    static ExecutionException assertFailure(final CompletableFuture<?> future) throws Exception
    {
        try
        {
            future.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (final ExecutionException ex)
        {
            return ex;
        }
        return fail("expected a failure");
    }

    static void awaitTrue(final BooleanSupplier condition, final String what) throws InterruptedException
    {
        final long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                fail("timed out waiting for: " + what);
            }
            Thread.sleep(5);
        }
    }
}
