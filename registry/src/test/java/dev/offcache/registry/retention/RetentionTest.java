package dev.offcache.registry.retention;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.CachedEpochClock;
import org.junit.jupiter.api.Test;

import dev.offcache.registry.api.Acquisition;
import dev.offcache.registry.front.CacheRegistry;
import dev.offcache.registry.api.Resolution;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.registry.state.RemovedEntry;
import dev.offcache.registry.state.StageRef;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Eviction with an injected clock: TTL, byte cap and idle-session expiry remove exactly the entries they should,
 * and every removal reaches the removal listener and leaves the pin set.
 */
class RetentionTest
{
    private final CachedEpochClock clock = new CachedEpochClock();
    private final List<RemovedEntry> removed = new CopyOnWriteArrayList<>();

    @Test
    void ttlRemovesEntriesOlderThanTheLimitAndNothingYounger() throws Exception
    {
        try (CacheRegistry registry = registry(RetentionPolicy.none().expireAfterMaterialized(1000)))
        {
            materialize(registry, new CacheKey("s", "old"), "j1", 10);
            clock.update(500);
            materialize(registry, new CacheKey("s", "young"), "j2", 10);

            clock.update(999);
            assertEquals(List.of(), sweep(registry));
            clock.update(1000);
            assertEquals(Set.of(new CacheKey("s", "old")), keys(sweep(registry)));
            assertEquals(Set.of(new CacheKey("s", "old")), keys(removed));
            assertEquals(Set.of(new StageRef("j2", 0)), registry.pinnedStages());
            clock.update(1500);
            assertEquals(Set.of(new CacheKey("s", "young")), keys(sweep(registry)));
            assertTrue(registry.entries().get(5, TimeUnit.SECONDS).isEmpty());
        }
    }

    @Test
    void byteCapRemovesOldestFirstUntilTheTotalFits() throws Exception
    {
        try (CacheRegistry registry = registry(RetentionPolicy.none().maxTotalBytes(350)))
        {
            clock.update(1);
            materialize(registry, new CacheKey("s", "a"), "ja", 100);
            clock.update(2);
            materialize(registry, new CacheKey("t", "b"), "jb", 200);
            clock.update(3);
            materialize(registry, new CacheKey("s", "c"), "jc", 300);

            assertEquals(List.of(new CacheKey("s", "a"), new CacheKey("t", "b")), keysInOrder(sweep(registry)));
            assertEquals(Set.of(new CacheKey("s", "c")), registry.entries().get(5, TimeUnit.SECONDS).keySet());
            assertEquals(List.of(), sweep(registry), "within the cap: nothing more");
        }
    }

    @Test
    void idleSessionsLoseEveryEntryIncludingPendingClaims() throws Exception
    {
        try (CacheRegistry registry = registry(RetentionPolicy.none().expireIdleSessionsAfter(1000)))
        {
            materialize(registry, new CacheKey("idle", "a"), "ja", 10);
            registry.beginMaterialization(new CacheKey("idle", "pending"), "jp").get(5, TimeUnit.SECONDS);
            final Acquisition.Wait wait = assertInstanceOf(Acquisition.Wait.class,
                registry.acquire(new CacheKey("idle", "pending"), "jq").get(5, TimeUnit.SECONDS));
            materialize(registry, new CacheKey("busy", "b"), "jb", 10);

            clock.update(800);
            registry.lookup(new CacheKey("busy", "b")).get(5, TimeUnit.SECONDS);
            clock.update(1000);
            assertEquals(Set.of(new CacheKey("idle", "a"), new CacheKey("idle", "pending")),
                keys(sweep(registry)));
            assertEquals(new Resolution.Released(Resolution.Reason.SESSION_REMOVED),
                wait.resolution().get(5, TimeUnit.SECONDS));
            assertEquals(Set.of(new CacheKey("busy", "b")), registry.entries().get(5, TimeUnit.SECONDS).keySet());
            clock.update(1800);
            assertEquals(Set.of(new CacheKey("busy", "b")), keys(sweep(registry)));
        }
    }

    @Test
    void theSweeperAgentSweepsOnItsOwnWhenTheIntervalPasses() throws Exception
    {
        final CountDownLatch swept = new CountDownLatch(1);
        try (CacheRegistry registry = CacheRegistry.launch(new CacheRegistry.Context()
            .clock(clock)
            .retentionPolicy(RetentionPolicy.none().expireAfterMaterialized(100))
            .sweepIntervalMs(10)
            .removalListener(entries -> swept.countDown())))
        {
            materialize(registry, new CacheKey("s", "a"), "ja", 10);
            clock.update(1_000);
            assertTrue(swept.await(5, TimeUnit.SECONDS), "the sweeper removed the expired entry");
            assertTrue(registry.entries().get(5, TimeUnit.SECONDS).isEmpty());
        }
    }

    @Test
    void negativeLimitsAreRefused()
    {
        assertThrows(IllegalArgumentException.class, () -> RetentionPolicy.none().expireAfterMaterialized(-1));
        assertThrows(IllegalArgumentException.class, () -> new RetentionSweeper(Thread::yield, clock, 0));
    }

    private CacheRegistry registry(final RetentionPolicy policy)
    {
        return CacheRegistry.launch(new CacheRegistry.Context()
            .clock(clock)
            .retentionPolicy(policy)
            .removalListener(removed::addAll));
    }

    private static void materialize(
        final CacheRegistry registry, final CacheKey key, final String job, final long bytes) throws Exception
    {
        registry.beginMaterialization(key, job).get(5, TimeUnit.SECONDS);
        registry.completeMaterialization(key, job, new DatasetSchema("s"),
            List.of(new PartitionLocation("e1", job, 0, 0, "/w/" + job + "/0/0.data", bytes)))
            .get(5, TimeUnit.SECONDS);
    }

    private static List<RemovedEntry> sweep(final CacheRegistry registry) throws Exception
    {
        final CompletableFuture<List<RemovedEntry>> sweep = registry.sweep();
        return sweep.get(5, TimeUnit.SECONDS);
    }

    private static Set<CacheKey> keys(final List<RemovedEntry> entries)
    {
        return Set.copyOf(keysInOrder(entries));
    }

    private static List<CacheKey> keysInOrder(final List<RemovedEntry> entries)
    {
        final List<CacheKey> keys = new ArrayList<>();
        entries.forEach(e -> keys.add(e.key()));
        return keys;
    }
}
