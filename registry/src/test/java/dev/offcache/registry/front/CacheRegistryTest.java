package dev.offcache.registry.front;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.offcache.registry.api.Acquisition;
import dev.offcache.registry.api.RegistryClosedException;
import dev.offcache.registry.api.Resolution;
import dev.offcache.registry.journal.ChangeLog;
import dev.offcache.registry.state.BeginOutcome;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.CompletionOutcome;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.Materialized;
import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.registry.state.RemovedEntry;
import dev.offcache.registry.state.StageRef;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Disruptor front's edges: bad input, validate-on-read, the pin snapshot and shutdown under racing callers.
 */
class CacheRegistryTest
{
    private static final DatasetSchema SCHEMA = new DatasetSchema("x:int32");
    private static final CacheKey KEY = new CacheKey("s", "c");
    /** Longer than any drain takes here; a close that reaches it waited for a writer that never came. */
    private static final long SHUTDOWN_MS = 5_000;

    @Test
    void badInputIsRefusedAtTheCallAndChangesNothing() throws Exception
    {
        try (CacheRegistry registry = CacheRegistry.launch(new CacheRegistry.Context()))
        {
            registry.beginMaterialization(KEY, "j").get(5, TimeUnit.SECONDS);
            assertMessage("jobId must not be empty", () -> registry.beginMaterialization(KEY, ""));
            assertMessage("key must not be null", () -> registry.lookup(null));
            assertMessage("sessionId must not be empty", () -> new CacheKey("", "c"));
            assertMessage("executorId must not be null", () -> registry.invalidateExecutor(null));
            assertMessage("locations must not be empty",
                () -> registry.completeMaterialization(KEY, "j", SCHEMA, List.of()));
            assertMessage("not by the completing job j",
                () -> registry.completeMaterialization(KEY, "j", SCHEMA, WaitersTest.locations("other", "e1")));
            final PartitionLocation p = WaitersTest.locations("j", "e1").get(0);
            assertMessage("repeats stage 3 partition 0",
                () -> registry.completeMaterialization(KEY, "j", SCHEMA, List.of(p, p)));
            assertMessage("length must not be negative", () -> new PartitionLocation("e", "j", 0, 0, "/p", -1));
            assertMessage("ringSize must be a power of two",
                () -> new CacheRegistry.Context().ringSize(1000).conclude());

            assertEquals(List.of(KEY), List.copyOf(registry.entries().get(5, TimeUnit.SECONDS).keySet()));
            assertEquals(new BeginOutcome.AlreadyPending("j"),
                registry.beginMaterialization(KEY, "j2").get(5, TimeUnit.SECONDS));
        }
    }

    @Test
    void aHitOnADeadExecutorIsInvalidatedReportedForUnpinningAndReadAsAMiss() throws Exception
    {
        final Set<String> dead = ConcurrentHashMap.newKeySet();
        final List<RemovedEntry> removed = new CopyOnWriteArrayList<>();
        try (CacheRegistry registry = CacheRegistry.launch(new CacheRegistry.Context()
            .liveExecutors(id -> !dead.contains(id))
            .removalListener(removed::addAll)))
        {
            registry.beginMaterialization(KEY, "j").get(5, TimeUnit.SECONDS);
            final List<PartitionLocation> locations = WaitersTest.locations("j", "e1", "e2");
            assertEquals(CompletionOutcome.PROMOTED,
                registry.completeMaterialization(KEY, "j", SCHEMA, locations).get(5, TimeUnit.SECONDS));
            assertEquals(Set.of(new StageRef("j", 3)), registry.pinnedStages());
            assertTrue(registry.isPinned("j", 3));
            final Materialized entry = (Materialized) registry.lookup(KEY).get(5, TimeUnit.SECONDS);
            assertEquals(locations, entry.locations());

            dead.add("e2");
            assertNull(registry.lookup(KEY).get(5, TimeUnit.SECONDS));
            assertEquals(List.of(new RemovedEntry(KEY, entry)), removed);
            assertEquals(Set.of(), registry.pinnedStages());
            assertTrue(!registry.isPinned("j", 3));
            assertInstanceOf(Acquisition.Claimed.class, registry.acquire(KEY, "j-again").get(5, TimeUnit.SECONDS));
            assertEquals(CompletionOutcome.STALE,
                registry.completeMaterialization(KEY, "j", SCHEMA, locations).get(5, TimeUnit.SECONDS),
                "the old job's late completion cannot resurrect the entry");
        }
    }

    @ParameterizedTest(name = "writerThread={0}")
    @ValueSource(booleans = {false, true})
    void callsAfterCloseFailAndCallsRacingCloseAllGetAnAnswer(final boolean writerThread) throws Exception
    {
        for (int round = 0; round < 20; round++)
        {
            final CacheRegistry registry = CacheRegistry.launch(
                new CacheRegistry.Context().ringSize(16).writerThread(writerThread).shutdownTimeoutMs(SHUTDOWN_MS));
            final AtomicBoolean stop = new AtomicBoolean();
            // With a registry thread the callers only publish: the 16-slot ring stays full and each call waits for a
            // slot, so fewer calls still straddle close().
            final int calls = writerThread ? 2_000 : 20_000;
            final Queue<CompletableFuture<?>> futures = new ConcurrentLinkedQueue<>();
            final CountDownLatch started = new CountDownLatch(3);
            final List<Thread> callers = new ArrayList<>();
            for (int t = 0; t < 3; t++)
            {
                final int id = t;
                final Thread caller = new Thread(() ->
                {
                    started.countDown();
                    for (int i = 0; !stop.get() && i < calls; i++)
                    {
                        futures.add(registry.acquire(new CacheKey("s" + id, "c" + (i % 7)), "j" + i));
                    }
                });
                callers.add(caller);
                caller.start();
            }
            started.await();
            Thread.sleep(2);
            final long closeStart = System.nanoTime();
            registry.close();
            final long closeMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closeStart);
            stop.set(true);
            assertTrue(closeMs < SHUTDOWN_MS, "close() drained instead of timing out: " + closeMs + " ms");
            for (final Thread caller : callers)
            {
                caller.join(10_000);
            }
            int answered = 0;
            for (final CompletableFuture<?> future : futures)
            {
                try
                {
                    final Object value = future.get(5, TimeUnit.SECONDS);
                    if (value instanceof Acquisition.Wait wait)
                    {
                        assertEquals(new Resolution.Released(Resolution.Reason.SHUTDOWN),
                            wait.resolution().get(5, TimeUnit.SECONDS));
                    }
                }
                catch (final ExecutionException ex)
                {
                    assertInstanceOf(RegistryClosedException.class, ex.getCause());
                }
                answered++;
            }
            assertEquals(futures.size(), answered, "every call made while closing got an answer");
            assertTrue(registry.isClosed());
            final ExecutionException after =
                assertThrows(ExecutionException.class, () -> registry.lookup(KEY).get(5, TimeUnit.SECONDS));
            assertInstanceOf(RegistryClosedException.class, after.getCause());
        }
    }

    @Test
    void aJournalFailureFailsTheBatchAndStopsTheRegistry() throws Exception
    {
        final AtomicBoolean diskFull = new AtomicBoolean();
        final ChangeLog failing = new ChangeLog()
        {
            public void force()
            {
                if (diskFull.get())
                {
                    throw new UncheckedIOException(new IOException("No space left on device"));
                }
            }
        };
        try (CacheRegistry registry = CacheRegistry.launch(new CacheRegistry.Context().changeLog(failing)))
        {
            assertEquals(BeginOutcome.CLAIMED, registry.beginMaterialization(KEY, "j").get(5, TimeUnit.SECONDS));
            final Acquisition.Wait wait =
                assertInstanceOf(Acquisition.Wait.class, registry.acquire(KEY, "j2").get(5, TimeUnit.SECONDS));
            diskFull.set(true);
            final ExecutionException ex = assertThrows(ExecutionException.class,
                () -> registry.abortMaterialization(KEY, "j").get(5, TimeUnit.SECONDS));
            assertInstanceOf(RegistryClosedException.class, ex.getCause());
            assertTrue(ex.getCause().getMessage().contains("No space left on device"), ex.getCause().getMessage());
            final ExecutionException released =
                assertThrows(ExecutionException.class, () -> wait.resolution().get(5, TimeUnit.SECONDS));
            assertInstanceOf(RegistryClosedException.class, released.getCause());
            assertTrue(registry.isClosed());
            final ExecutionException later =
                assertThrows(ExecutionException.class, () -> registry.lookup(KEY).get(5, TimeUnit.SECONDS));
            assertInstanceOf(RegistryClosedException.class, later.getCause());
        }
    }

    @ParameterizedTest(name = "writerThread={0}")
    @ValueSource(booleans = {false, true})
    void aJournalAppendFailureFailsItsCommandAndStopsTheRegistry(final boolean writerThread) throws Exception
    {
        final AtomicBoolean diskFull = new AtomicBoolean();
        final ChangeLog failing = new ChangeLog()
        {
            public void endCommand()
            {
                if (diskFull.get())
                {
                    throw new UncheckedIOException(new IOException("No space left on device"));
                }
            }
        };
        final CacheRegistry registry = CacheRegistry.launch(new CacheRegistry.Context()
            .changeLog(failing).writerThread(writerThread).shutdownTimeoutMs(60_000));
        try
        {
            assertEquals(BeginOutcome.CLAIMED, registry.beginMaterialization(KEY, "j").get(5, TimeUnit.SECONDS));
            diskFull.set(true);
            final ExecutionException ex = assertThrows(ExecutionException.class,
                () -> registry.abortMaterialization(KEY, "j").get(5, TimeUnit.SECONDS));
            assertInstanceOf(RegistryClosedException.class, ex.getCause());
            assertTrue(ex.getCause().getMessage().contains("No space left on device"), ex.getCause().getMessage());
            assertTrue(registry.isClosed());
            final ExecutionException later = assertThrows(ExecutionException.class,
                () -> registry.beginMaterialization(KEY, "j2").get(5, TimeUnit.SECONDS));
            assertInstanceOf(RegistryClosedException.class, later.getCause());
        }
        finally
        {
            // The writer (a registry thread too) stops on the shutdown command, not after the drain timeout.
            assertTimeoutPreemptively(Duration.ofSeconds(30), registry::close);
        }
    }

    private static void assertMessage(final String expected, final Executable call)
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, call);
        assertTrue(ex.getMessage().contains(expected), ex.getMessage());
    }
}
