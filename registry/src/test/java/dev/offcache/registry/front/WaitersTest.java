package dev.offcache.registry.front;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.offcache.registry.api.Acquisition;
import dev.offcache.registry.api.Resolution;
import dev.offcache.registry.state.AbortOutcome;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.CompletionOutcome;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.Materialized;
import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.registry.state.RemovedEntry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Wait-and-notify on Pending keys: N concurrent actions make one claim and all get the output; every way a claim can
 * end releases every waiter; nothing is polled and nothing is lost when completions race new waiters.
 */
class WaitersTest
{
    private static final int ACTIONS = 16;
    private static final DatasetSchema SCHEMA = new DatasetSchema("a:int64,b:utf8");

    private final Set<String> dead = ConcurrentHashMap.newKeySet();
    private final List<RemovedEntry> removed = new CopyOnWriteArrayList<>();
    private final CacheRegistry registry = CacheRegistry.launch(new CacheRegistry.Context()
        .liveExecutors(id -> !dead.contains(id))
        .removalListener(removed::addAll));
    private final ExecutorService pool = Executors.newFixedThreadPool(ACTIONS);

    @AfterEach
    void close()
    {
        registry.close();
        pool.shutdownNow();
    }

    @Test
    void concurrentActionsOnOneKeyMakeOneClaimAndAllGetTheLocations() throws Exception
    {
        for (int round = 0; round < 20; round++)
        {
            final CacheKey key = new CacheKey("s", "round-" + round);
            final List<Acquisition> acquisitions = acquireConcurrently(key);
            final List<Integer> claimers = indexesOf(acquisitions, Acquisition.Claimed.class);
            assertEquals(1, claimers.size(), "exactly one claim in round " + round);
            final String claimJob = "job-" + claimers.get(0);
            final List<PartitionLocation> locations = locations(claimJob, "e1", "e2");

            assertEquals(CompletionOutcome.PROMOTED,
                registry.completeMaterialization(key, claimJob, SCHEMA, locations).get(5, TimeUnit.SECONDS));

            for (int i = 0; i < ACTIONS; i++)
            {
                if (i == claimers.get(0))
                {
                    continue;
                }
                final Acquisition.Wait wait = assertInstanceOf(Acquisition.Wait.class, acquisitions.get(i));
                assertEquals(claimJob, wait.pendingJobId());
                final Resolution.Ready ready =
                    assertInstanceOf(Resolution.Ready.class, wait.resolution().get(5, TimeUnit.SECONDS));
                assertEquals(locations, ready.entry().locations());
                assertEquals(SCHEMA, ready.entry().schema());
            }
            final Acquisition later = registry.acquire(key, "job-late").get(5, TimeUnit.SECONDS);
            assertEquals(locations, assertInstanceOf(Acquisition.Hit.class, later).entry().locations());
        }
    }

    @Test
    void abortReleasesEveryWaiterAndOneOfThemCanClaimNext() throws Exception
    {
        final CacheKey key = new CacheKey("s", "aborted");
        final List<Acquisition> acquisitions = acquireConcurrently(key);
        final int claimer = indexesOf(acquisitions, Acquisition.Claimed.class).get(0);

        assertEquals(AbortOutcome.STALE,
            registry.abortMaterialization(key, "some-other-job").get(5, TimeUnit.SECONDS));
        assertEquals(AbortOutcome.ABORTED,
            registry.abortMaterialization(key, "job-" + claimer).get(5, TimeUnit.SECONDS));

        final List<Acquisition> retries = new ArrayList<>();
        for (int i = 0; i < ACTIONS; i++)
        {
            if (i != claimer)
            {
                final Acquisition.Wait wait = assertInstanceOf(Acquisition.Wait.class, acquisitions.get(i));
                assertEquals(new Resolution.Released(Resolution.Reason.ABORTED),
                    wait.resolution().get(5, TimeUnit.SECONDS));
                retries.add(registry.acquire(key, "retry-" + i).get(5, TimeUnit.SECONDS));
            }
        }
        assertEquals(1, indexesOf(retries, Acquisition.Claimed.class).size(), "one waiter re-claims the key");
    }

    @Test
    void invalidationSessionRemovalAndShutdownReleaseWaiters() throws Exception
    {
        assertReleasedBy(key -> registry.invalidate(key), Resolution.Reason.INVALIDATED, "inv");
        assertReleasedBy(key -> registry.entries().thenCompose(entries ->
            registry.invalidate(key, entries.get(key).jobId())), Resolution.Reason.INVALIDATED, "inv-job");

        assertReleasedBy(key -> registry.removeSession(key.sessionId()), Resolution.Reason.SESSION_REMOVED, "sess");
        // A conditional invalidation naming another job leaves the claim and its waiters alone.
        final CacheKey kept = new CacheKey("inv-other", "c");
        assertInstanceOf(Acquisition.Claimed.class, registry.acquire(kept, "owner").get(5, TimeUnit.SECONDS));
        final Acquisition.Wait stillWaiting =
            assertInstanceOf(Acquisition.Wait.class, registry.acquire(kept, "j2").get(5, TimeUnit.SECONDS));
        assertTrue(registry.invalidate(kept, "someone-else").get(5, TimeUnit.SECONDS).isEmpty());
        assertFalse(stillWaiting.resolution().isDone());
        registry.completeMaterialization(kept, "owner", new DatasetSchema("s"), locations("owner", "e1"))
            .get(5, TimeUnit.SECONDS);
        assertInstanceOf(Resolution.Ready.class, stillWaiting.resolution().get(5, TimeUnit.SECONDS));

        final CacheKey key = new CacheKey("shutdown", "c");
        assertInstanceOf(Acquisition.Claimed.class, registry.acquire(key, "j").get(5, TimeUnit.SECONDS));
        final Acquisition.Wait wait =
            assertInstanceOf(Acquisition.Wait.class, registry.acquire(key, "j2").get(5, TimeUnit.SECONDS));
        final CompletableFuture<Resolution> awaited = registry.awaitMaterialization(key);
        registry.close();
        assertEquals(new Resolution.Released(Resolution.Reason.SHUTDOWN), wait.resolution().get(5, TimeUnit.SECONDS));
        assertEquals(new Resolution.Released(Resolution.Reason.SHUTDOWN), awaited.get(5, TimeUnit.SECONDS));
    }

    @Test
    void aPromotionOnADeadExecutorReleasesWaitersAndTheNextReadInvalidatesIt() throws Exception
    {
        final CacheKey key = new CacheKey("s", "dead-at-birth");
        assertInstanceOf(Acquisition.Claimed.class, registry.acquire(key, "j").get(5, TimeUnit.SECONDS));
        final Acquisition.Wait wait =
            assertInstanceOf(Acquisition.Wait.class, registry.acquire(key, "j2").get(5, TimeUnit.SECONDS));
        dead.add("e2");
        assertEquals(CompletionOutcome.PROMOTED,
            registry.completeMaterialization(key, "j", SCHEMA, locations("j", "e1", "e2")).get(5, TimeUnit.SECONDS));
        assertEquals(new Resolution.Released(Resolution.Reason.EXECUTOR_LOST),
            wait.resolution().get(5, TimeUnit.SECONDS));
        assertEquals(0, removed.size(), "nothing removed until a read validates the entry");
        assertNull(registry.lookup(key).get(5, TimeUnit.SECONDS));
        assertEquals(1, removed.size());
        assertEquals(Set.of(), registry.pinnedStages());
    }

    @Test
    void awaitOnAbsentOrMaterializedKeysAnswersAtOnce() throws Exception
    {
        final CacheKey key = new CacheKey("s", "await");
        assertEquals(new Resolution.Released(Resolution.Reason.NOT_PENDING),
            registry.awaitMaterialization(key).get(5, TimeUnit.SECONDS));
        registry.beginMaterialization(key, "j").get(5, TimeUnit.SECONDS);
        registry.completeMaterialization(key, "j", SCHEMA, locations("j", "e1")).get(5, TimeUnit.SECONDS);
        final Resolution resolution = registry.awaitMaterialization(key).get(5, TimeUnit.SECONDS);
        assertEquals(locations("j", "e1"), assertInstanceOf(Resolution.Ready.class, resolution).entry().locations());
    }

    @Test
    void completionsRacingNewWaitersLoseNoWakeUp() throws Exception
    {
        for (int round = 0; round < 200; round++)
        {
            final CacheKey key = new CacheKey("race", "k" + round);
            assertInstanceOf(Acquisition.Claimed.class, registry.acquire(key, "owner").get(5, TimeUnit.SECONDS));
            final CyclicBarrier barrier = new CyclicBarrier(4);
            final List<Future<Materialized>> readers = new ArrayList<>();
            for (int r = 0; r < 3; r++)
            {
                readers.add(pool.submit(() ->
                {
                    barrier.await(5, TimeUnit.SECONDS);
                    final Acquisition acquisition = registry.acquire(key, "reader").get(5, TimeUnit.SECONDS);
                    if (acquisition instanceof Acquisition.Hit hit)
                    {
                        return hit.entry();
                    }
                    final Resolution resolution =
                        ((Acquisition.Wait) acquisition).resolution().get(5, TimeUnit.SECONDS);
                    return ((Resolution.Ready) resolution).entry();
                }));
            }
            barrier.await(5, TimeUnit.SECONDS);
            registry.completeMaterialization(key, "owner", SCHEMA, locations("owner", "e1"));
            for (final Future<Materialized> reader : readers)
            {
                assertEquals("owner", reader.get(5, TimeUnit.SECONDS).jobId());
            }
        }
    }

    private void assertReleasedBy(
        final Function<CacheKey, CompletableFuture<?>> removal, final Resolution.Reason reason, final String session)
        throws Exception
    {
        final CacheKey key = new CacheKey(session, "c");
        final List<Acquisition> acquisitions = acquireConcurrently(key);
        assertEquals(1, indexesOf(acquisitions, Acquisition.Claimed.class).size());
        removal.apply(key).get(5, TimeUnit.SECONDS);
        int released = 0;
        for (final Acquisition acquisition : acquisitions)
        {
            if (acquisition instanceof Acquisition.Wait wait)
            {
                assertEquals(new Resolution.Released(reason), wait.resolution().get(5, TimeUnit.SECONDS));
                released++;
            }
        }
        assertEquals(ACTIONS - 1, released);
        assertTrue(registry.entries().get(5, TimeUnit.SECONDS).isEmpty());
    }

    private List<Acquisition> acquireConcurrently(final CacheKey key) throws Exception
    {
        final CyclicBarrier barrier = new CyclicBarrier(ACTIONS);
        final List<Future<Acquisition>> futures = new ArrayList<>();
        for (int i = 0; i < ACTIONS; i++)
        {
            final String job = "job-" + i;
            futures.add(pool.submit(() ->
            {
                barrier.await(5, TimeUnit.SECONDS);
                return registry.acquire(key, job).get(5, TimeUnit.SECONDS);
            }));
        }
        final List<Acquisition> out = new ArrayList<>();
        for (final Future<Acquisition> future : futures)
        {
            out.add(future.get(10, TimeUnit.SECONDS));
        }
        return out;
    }

    private static List<Integer> indexesOf(final List<Acquisition> acquisitions, final Class<?> type)
    {
        final List<Integer> out = new ArrayList<>();
        for (int i = 0; i < acquisitions.size(); i++)
        {
            if (type.isInstance(acquisitions.get(i)))
            {
                out.add(i);
            }
        }
        return out;
    }

    static List<PartitionLocation> locations(final String job, final String... executors)
    {
        final List<PartitionLocation> out = new ArrayList<>();
        for (int p = 0; p < executors.length; p++)
        {
            out.add(new PartitionLocation(executors[p], job, 3, p, "/w/" + job + "/3/" + p + ".data", 100 + p));
        }
        return out;
    }
}
