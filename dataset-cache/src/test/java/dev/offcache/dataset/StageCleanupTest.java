package dev.offcache.dataset;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.CachedEpochClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.core.shuffle.PartitionId;
import dev.offcache.core.shuffle.PartitionInfo;
import dev.offcache.core.shuffle.PartitionWriter;
import dev.offcache.core.shuffle.PinSet;
import dev.offcache.core.shuffle.ShufflePartitionStore;
import dev.offcache.registry.retention.RetentionPolicy;
import dev.offcache.registry.front.CacheRegistry;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.CompletionOutcome;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.PartitionLocation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The registry, {@link StageCleanup} and real shuffle stores on disk (two executors in this JVM): job cleanup keeps
 * pinned stages, and every removal path (invalidate, executor loss, session removal, eviction) deletes the removed
 * entries' stage files on the executor that holds them, unless another entry still uses the stage.
 */
class StageCleanupTest
{
    @TempDir
    Path workDir;

    private final CachedEpochClock clock = new CachedEpochClock();
    private ShufflePartitionStore exec1;
    private ShufflePartitionStore exec2;
    private StageCleanup cleanup;
    private CacheRegistry registry;

    private void start(final RetentionPolicy policy)
    {
        exec1 = new ShufflePartitionStore(workDir.resolve("exec-1"), PinSet.NONE);
        exec2 = new ShufflePartitionStore(workDir.resolve("exec-2"), PinSet.NONE);
        cleanup = new StageCleanup(new LocalExecutorStages(Map.of("exec-1", exec1, "exec-2", exec2)));
        registry = CacheRegistry.launch(new CacheRegistry.Context()
            .clock(clock)
            .removalListener(cleanup)
            .retentionPolicy(policy));
        cleanup.pinnedStages(registry::pinnedStages);
    }

    @AfterEach
    void stop()
    {
        if (registry != null)
        {
            registry.close();
            cleanup.close();
        }
    }

    @Test
    void jobCleanupDeletesNothingBeforeThePinSnapshotIsKnown() throws Exception
    {
        exec1 = new ShufflePartitionStore(workDir.resolve("exec-1"), PinSet.NONE);
        final StageCleanup early = new StageCleanup(new LocalExecutorStages(Map.of("exec-1", exec1)));
        try
        {
            write(exec1, "exec-1", "jobA", 1, 1);
            early.cleanJob("jobA").get(5, TimeUnit.SECONDS);
            assertTrue(exec1.exists(new PartitionId("jobA", 1, 0)), "no snapshot yet: every stage reads pinned");
            assertEquals(0, early.jobsCleaned());
        }
        finally
        {
            early.close();
        }
    }

    @Test
    void anUnknownExecutorIsCountedAsAFailureNotThrown() throws Exception
    {
        start(RetentionPolicy.none());
        final List<PartitionLocation> a = write(exec1, "exec-9", "jobA", 1, 1);
        materialize(new CacheKey("s1", "a"), "jobA", a);
        registry.invalidate(new CacheKey("s1", "a")).get(5, TimeUnit.SECONDS);
        assertTrue(cleanup.awaitIdle(5_000));
        assertEquals(1, cleanup.failures());
        assertEquals(0, cleanup.stagesDeleted());
        assertTrue(exec1.exists(new PartitionId("jobA", 1, 0)), "only the executor a location names deletes");
    }

    @Test
    void jobCleanupKeepsPinnedStagesAndRemovalsDeleteThem() throws Exception
    {
        start(RetentionPolicy.none());
        final List<PartitionLocation> a = write(exec1, "exec-1", "jobA", 1, 2);
        write(exec1, "exec-1", "jobA", 2, 2);
        final List<PartitionLocation> b = write(exec2, "exec-2", "jobB", 1, 1);
        materialize(new CacheKey("s1", "a"), "jobA", a);
        materialize(new CacheKey("s2", "b"), "jobB", b);

        cleanup.cleanJob("jobA").get(5, TimeUnit.SECONDS);
        assertTrue(exec1.exists(new PartitionId("jobA", 1, 0)));
        assertTrue(exec1.exists(new PartitionId("jobA", 1, 1)));
        assertFalse(exec1.exists(new PartitionId("jobA", 2, 0)), "only the unpinned stage 2 goes");
        cleanup.cleanJob("jobB").get(5, TimeUnit.SECONDS);
        assertTrue(exec2.exists(new PartitionId("jobB", 1, 0)));
        assertEquals(2, cleanup.jobsCleaned());

        registry.invalidate(new CacheKey("s1", "a")).get(5, TimeUnit.SECONDS);
        assertTrue(cleanup.awaitIdle(5_000));
        assertFalse(exec1.exists(new PartitionId("jobA", 1, 0)), "the invalidated entry's stage is deleted");
        assertTrue(exec2.exists(new PartitionId("jobB", 1, 0)));

        registry.invalidateExecutor("exec-2").get(5, TimeUnit.SECONDS);
        assertTrue(cleanup.awaitIdle(5_000));
        assertFalse(exec2.exists(new PartitionId("jobB", 1, 0)), "executor loss deletes the entry's stage");
        assertEquals(2, cleanup.stagesDeleted());
        assertEquals(0, cleanup.failures());
        assertEquals(List.of(), exec1.list());
        assertEquals(List.of(), exec2.list());
    }

    @Test
    void aStageSharedByTwoEntriesStaysUntilTheLastOneGoes() throws Exception
    {
        start(RetentionPolicy.none());
        final List<PartitionLocation> shared = write(exec1, "exec-1", "jobS", 4, 1);
        materialize(new CacheKey("s1", "x"), "jobS", shared);
        materialize(new CacheKey("s2", "y"), "jobS", shared);

        registry.removeSession("s1").get(5, TimeUnit.SECONDS);
        assertTrue(cleanup.awaitIdle(5_000));
        assertTrue(exec1.exists(new PartitionId("jobS", 4, 0)), "still pinned by s2/y");
        assertEquals(0, cleanup.stagesDeleted());

        registry.removeSession("s2").get(5, TimeUnit.SECONDS);
        assertTrue(cleanup.awaitIdle(5_000));
        assertFalse(exec1.exists(new PartitionId("jobS", 4, 0)));
        assertEquals(1, cleanup.stagesDeleted());
    }

    @Test
    void evictedEntriesLoseTheirFiles() throws Exception
    {
        start(RetentionPolicy.none().expireAfterMaterialized(1_000).maxTotalBytes(5_000));
        clock.update(1);
        materialize(new CacheKey("s", "old"), "jobOld", write(exec1, "exec-1", "jobOld", 0, 1));
        clock.update(2);
        materialize(new CacheKey("s", "big"), "jobBig", write(exec1, "exec-1", "jobBig", 0, 3));
        clock.update(3);
        materialize(new CacheKey("s", "new"), "jobNew", write(exec1, "exec-1", "jobNew", 0, 1));

        registry.sweep().get(5, TimeUnit.SECONDS);
        assertTrue(cleanup.awaitIdle(5_000));
        assertFalse(exec1.exists(new PartitionId("jobOld", 0, 0)), "over the byte cap: oldest first");
        assertFalse(exec1.exists(new PartitionId("jobBig", 0, 0)));
        assertTrue(exec1.exists(new PartitionId("jobNew", 0, 0)));

        clock.update(1_003);
        registry.sweep().get(5, TimeUnit.SECONDS);
        assertTrue(cleanup.awaitIdle(5_000));
        assertFalse(exec1.exists(new PartitionId("jobNew", 0, 0)), "expired by TTL");
        assertEquals(List.of(), exec1.list());
    }

    private void materialize(final CacheKey key, final String job, final List<PartitionLocation> locations)
        throws Exception
    {
        registry.beginMaterialization(key, job).get(5, TimeUnit.SECONDS);
        assertEquals(CompletionOutcome.PROMOTED,
            registry.completeMaterialization(key, job, new DatasetSchema("v:int64"), locations)
                .get(5, TimeUnit.SECONDS));
    }

    private static List<PartitionLocation> write(final ShufflePartitionStore store, final String executor,
        final String job, final int stage, final int count)
    {
        final List<PartitionLocation> out = new ArrayList<>();
        final UnsafeBuffer bytes = new UnsafeBuffer(new byte[2_000]);
        for (int p = 0; p < count; p++)
        {
            bytes.setMemory(0, bytes.capacity(), (byte) (p + 1));
            final PartitionInfo info;
            try (PartitionWriter writer = store.openWriter(new PartitionId(job, stage, p)))
            {
                writer.write(bytes, 0, bytes.capacity());
                info = writer.commit();
            }
            out.add(new PartitionLocation(executor, job, stage, p, info.path().toString(), info.length()));
        }
        return out;
    }
}
