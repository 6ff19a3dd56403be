package dev.offcache.registry.pinning;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.CachedEpochClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.core.shuffle.PartitionId;
import dev.offcache.core.shuffle.PartitionInfo;
import dev.offcache.core.shuffle.PartitionWriter;
import dev.offcache.core.shuffle.ShufflePartitionStore;
import dev.offcache.registry.eviction.EvictionPolicy;
import dev.offcache.registry.front.CacheRegistry;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.CompletionOutcome;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.PartitionLocation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The registry and a real shuffle store on disk: job cleanup keeps pinned stages, and every removal path
 * (invalidate, executor loss, session removal, eviction) deletes the removed entries' stage files unless another
 * entry still uses the stage.
 */
class PinningTest
{
    @TempDir
    Path workDir;

    private final CachedEpochClock clock = new CachedEpochClock();
    private final RegistryPinSet pins = new RegistryPinSet();
    private ShufflePartitionStore store;
    private StageReclaimer reclaimer;
    private CacheRegistry registry;

    private void start(final EvictionPolicy policy)
    {
        store = new ShufflePartitionStore(workDir, pins);
        reclaimer = new StageReclaimer(store);
        registry = CacheRegistry.launch(new CacheRegistry.Context()
            .clock(clock)
            .pinListener(pins)
            .removalListener(reclaimer)
            .evictionPolicy(policy));
    }

    @AfterEach
    void stop()
    {
        if (registry != null)
        {
            registry.close();
            reclaimer.close();
        }
    }

    @Test
    void everyStageReadsPinnedUntilTheRegistryPublishes()
    {
        assertTrue(new RegistryPinSet().isPinned("any-job", 0));
    }

    @Test
    void jobCleanupKeepsPinnedStagesAndRemovalsDeleteThem() throws Exception
    {
        start(EvictionPolicy.none());
        assertFalse(pins.isPinned("jobA", 1), "an empty registry pins nothing");
        final List<PartitionLocation> a = write("exec-1", "jobA", 1, 2);
        write("exec-1", "jobA", 2, 2);
        final List<PartitionLocation> b = write("exec-2", "jobB", 1, 1);
        materialize(new CacheKey("s1", "a"), "jobA", a);
        materialize(new CacheKey("s2", "b"), "jobB", b);

        assertEquals(1, store.deleteJob("jobA"), "only the unpinned stage 2 goes");
        assertTrue(store.exists(new PartitionId("jobA", 1, 0)));
        assertTrue(store.exists(new PartitionId("jobA", 1, 1)));
        assertFalse(store.exists(new PartitionId("jobA", 2, 0)));
        assertEquals(0, store.deleteJob("jobB"));

        registry.invalidate(new CacheKey("s1", "a")).get(5, TimeUnit.SECONDS);
        assertTrue(reclaimer.awaitIdle(5_000));
        assertFalse(store.exists(new PartitionId("jobA", 1, 0)), "the invalidated entry's stage is deleted");
        assertTrue(store.exists(new PartitionId("jobB", 1, 0)));

        registry.invalidateExecutor("exec-2").get(5, TimeUnit.SECONDS);
        assertTrue(reclaimer.awaitIdle(5_000));
        assertFalse(store.exists(new PartitionId("jobB", 1, 0)), "executor loss deletes the entry's stage");
        assertEquals(2, reclaimer.stagesDeleted());
        assertEquals(List.of(), store.list());
    }

    @Test
    void aStageSharedByTwoEntriesStaysUntilTheLastOneGoes() throws Exception
    {
        start(EvictionPolicy.none());
        final List<PartitionLocation> shared = write("exec-1", "jobS", 4, 1);
        materialize(new CacheKey("s1", "x"), "jobS", shared);
        materialize(new CacheKey("s2", "y"), "jobS", shared);

        registry.removeSession("s1").get(5, TimeUnit.SECONDS);
        assertTrue(reclaimer.awaitIdle(5_000));
        assertTrue(store.exists(new PartitionId("jobS", 4, 0)), "still pinned by s2/y");
        assertEquals(1, reclaimer.stagesKept());

        registry.removeSession("s2").get(5, TimeUnit.SECONDS);
        assertTrue(reclaimer.awaitIdle(5_000));
        assertFalse(store.exists(new PartitionId("jobS", 4, 0)));
    }

    @Test
    void evictedEntriesLoseTheirFiles() throws Exception
    {
        start(EvictionPolicy.none().expireAfterMaterialized(1_000).maxTotalBytes(5_000));
        clock.update(1);
        materialize(new CacheKey("s", "old"), "jobOld", write("exec-1", "jobOld", 0, 1));
        clock.update(2);
        materialize(new CacheKey("s", "big"), "jobBig", write("exec-1", "jobBig", 0, 3));
        clock.update(3);
        materialize(new CacheKey("s", "new"), "jobNew", write("exec-1", "jobNew", 0, 1));

        registry.sweep().get(5, TimeUnit.SECONDS);
        assertTrue(reclaimer.awaitIdle(5_000));
        assertFalse(store.exists(new PartitionId("jobOld", 0, 0)), "over the byte cap: oldest first");
        assertFalse(store.exists(new PartitionId("jobBig", 0, 0)));
        assertTrue(store.exists(new PartitionId("jobNew", 0, 0)));

        clock.update(1_003);
        registry.sweep().get(5, TimeUnit.SECONDS);
        assertTrue(reclaimer.awaitIdle(5_000));
        assertFalse(store.exists(new PartitionId("jobNew", 0, 0)), "expired by TTL");
        assertEquals(List.of(), store.list());
    }

    private void materialize(final CacheKey key, final String job, final List<PartitionLocation> locations)
        throws Exception
    {
        registry.beginMaterialization(key, job).get(5, TimeUnit.SECONDS);
        assertEquals(CompletionOutcome.PROMOTED,
            registry.completeMaterialization(key, job, new DatasetSchema("v:int64"), locations)
                .get(5, TimeUnit.SECONDS));
    }

    private List<PartitionLocation> write(final String executor, final String job, final int stage, final int count)
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
