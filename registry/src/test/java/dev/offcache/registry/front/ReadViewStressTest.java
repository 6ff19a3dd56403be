package dev.offcache.registry.front;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.offcache.registry.api.Acquisition;
import dev.offcache.registry.api.Resolution;
import dev.offcache.registry.state.CacheEntry;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.CompletionOutcome;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.Materialized;
import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.registry.state.Pending;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The read path under concurrency: reads are served from the view the writer publishes, never wait behind the ring,
 * and still see every acknowledged change. Run with a registry thread and with callers running the writer.
 */
class ReadViewStressTest
{
    private static final DatasetSchema SCHEMA = new DatasetSchema("s");
    private static final int WRITERS = 2;
    private static final int READERS = 2;
    private static final long RUN_NANOS = TimeUnit.MILLISECONDS.toNanos(1500);

    /**
     * Two writers cycle their own key through claim, completion and invalidation, checking after every
     * acknowledgement that their own reads (lookup, acquire, isPinned) see the change, and announcing how far they
     * got; two readers read both keys all the while. Every entry a reader sees is whole (a Pending or materialized
     * entry of one cycle, its locations all that cycle's), never older than what was announced before the read
     * began, and never older than what the same reader saw before (monotonic reads).
     */
    @ParameterizedTest(name = "writerThread={0}")
    @ValueSource(booleans = {false, true})
    @Timeout(60)
    void readersSeeEveryAcknowledgedChangeAndNoTornEntry(final boolean writerThread) throws Exception
    {
        try (CacheRegistry registry = CacheRegistry.launch(new CacheRegistry.Context().writerThread(writerThread)))
        {
            final CacheKey[] keys = {new CacheKey("s", "k0"), new CacheKey("s", "k1")};
            // announced[w] = the step writer w's last acknowledged change put its key at: 3n claimed, 3n+1
            // materialized, 3n+2 invalidated, for cycle n
            final AtomicLongArray announced = new AtomicLongArray(WRITERS);
            for (int w = 0; w < WRITERS; w++)
            {
                announced.set(w, -1);
            }
            final AtomicBoolean done = new AtomicBoolean();
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final List<Thread> threads = new ArrayList<>();
            final long[] cycles = new long[WRITERS];
            final long[] reads = new long[READERS];
            for (int w = 0; w < WRITERS; w++)
            {
                final int writer = w;
                threads.add(new Thread(() -> guard(failure, () ->
                {
                    final CacheKey key = keys[writer];
                    final long deadline = System.nanoTime() + RUN_NANOS;
                    long n = 0;
                    for (; System.nanoTime() < deadline && failure.get() == null; n++)
                    {
                        final String job = job(writer, n);
                        registry.beginMaterialization(key, job).get(10, TimeUnit.SECONDS);
                        announced.set(writer, 3 * n);
                        assertEquals(new Pending(job), registry.lookup(key).join(), "own claim visible");
                        assertEquals(CompletionOutcome.PROMOTED, registry.completeMaterialization(
                            key, job, SCHEMA, locations(job)).get(10, TimeUnit.SECONDS));
                        announced.set(writer, 3 * n + 1);
                        final CacheEntry materialized = registry.lookup(key).join();
                        assertInstanceOf(Materialized.class, materialized, "own completion visible");
                        assertEquals(locations(job), ((Materialized) materialized).locations());
                        assertEquals(new Acquisition.Hit((Materialized) materialized),
                            registry.acquire(key, "other").join());
                        assertTrue(registry.isPinned(job, 1), "own completion pins its stage");
                        assertEquals(1, registry.invalidate(key).get(10, TimeUnit.SECONDS).size());
                        announced.set(writer, 3 * n + 2);
                        assertNull(registry.lookup(key).join(), "own invalidation visible");
                        assertFalse(registry.isPinned(job, 1), "own invalidation unpins");
                    }
                    cycles[writer] = n;
                }), "writer-" + w));
            }
            for (int r = 0; r < READERS; r++)
            {
                final int reader = r;
                threads.add(new Thread(() -> guard(failure, () ->
                {
                    final long[] seen = {-1, -1};
                    long count = 0;
                    while (!done.get() && failure.get() == null)
                    {
                        for (int w = 0; w < WRITERS; w++)
                        {
                            final long before = announced.get(w);
                            final CacheEntry entry = registry.lookup(keys[w]).join();
                            count++;
                            if (entry == null)
                            {
                                continue;
                            }
                            final long step = stepOf(w, entry);
                            assertTrue(step >= before, "read " + entry + " (step " + step + ") after step " +
                                before + " was acknowledged");
                            assertTrue(step >= seen[w], "read step " + step + " after step " + seen[w]);
                            seen[w] = step;
                        }
                    }
                    reads[reader] = count;
                }), "reader-" + r));
            }
            threads.forEach(Thread::start);
            for (int i = 0; i < WRITERS; i++)
            {
                threads.get(i).join(30_000);
            }
            done.set(true);
            for (final Thread thread : threads)
            {
                thread.join(30_000);
                assertFalse(thread.isAlive(), thread.getName() + " did not finish");
            }
            if (failure.get() != null)
            {
                throw new AssertionError(failure.get());
            }
            for (int i = 0; i < WRITERS; i++)
            {
                assertTrue(cycles[i] > 10, "writer " + i + " made progress: " + cycles[i]);
            }
            for (int i = 0; i < READERS; i++)
            {
                assertTrue(reads[i] > 100, "reader " + i + " made progress: " + reads[i]);
            }
        }
    }

    /**
     * While the writer is stuck in the middle of a batch (a removal listener that blocks), reads of settled keys
     * still answer at once from the view; a write waits; a thread that published a write reads through the ring
     * behind it (it sees its own command), another thread reads the view.
     */
    @ParameterizedTest(name = "writerThread={0}")
    @ValueSource(booleans = {false, true})
    @Timeout(60)
    void readsDoNotWaitBehindABlockedWriter(final boolean writerThread) throws Exception
    {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicBoolean armed = new AtomicBoolean();
        try (CacheRegistry registry = CacheRegistry.launch(new CacheRegistry.Context()
            .writerThread(writerThread)
            .removalListener(removed ->
            {
                if (armed.compareAndSet(true, false))
                {
                    entered.countDown();
                    await(release);
                }
            })))
        {
            final CacheKey hot = new CacheKey("s", "hot");
            final CacheKey doomed = new CacheKey("s", "doomed");
            materialize(registry, hot, "hot-job");
            materialize(registry, doomed, "doomed-job");
            armed.set(true);
            final CompletableFuture<?> blocked = CompletableFuture.runAsync(() -> registry.invalidate(doomed).join());
            assertTrue(entered.await(10, TimeUnit.SECONDS), "the writer reached the removal listener");

            final CompletableFuture<CacheEntry> lookup = registry.lookup(hot);
            assertTrue(lookup.isDone(), "a lookup does not wait behind the writer");
            assertEquals("hot-job", lookup.join().jobId());
            final CompletableFuture<Acquisition> acquire = registry.acquire(hot, "another-job");
            assertTrue(acquire.isDone(), "a hit through acquire does not wait");
            assertInstanceOf(Acquisition.Hit.class, acquire.join());
            assertTrue(registry.isPinned("hot-job", 1));
            final CompletableFuture<Resolution> ready = registry.awaitMaterialization(hot);
            assertTrue(ready.isDone(), "waiting on a settled key does not wait");
            assertInstanceOf(Resolution.Ready.class, ready.join());

            final AtomicReference<CompletableFuture<CacheEntry>> ownRead = new AtomicReference<>();
            final AtomicReference<CompletableFuture<?>> write = new AtomicReference<>();
            final Thread pipelining = new Thread(() ->
            {
                write.set(registry.invalidate(hot));
                ownRead.set(registry.lookup(hot));
            });
            pipelining.start();
            pipelining.join(10_000);
            assertFalse(write.get().isDone(), "a write waits for the writer");
            assertFalse(ownRead.get().isDone(), "a read behind the thread's own write waits for it");
            final CompletableFuture<CacheEntry> otherRead = registry.lookup(hot);
            assertTrue(otherRead.isDone(), "another thread still reads the view");
            assertEquals("hot-job", otherRead.join().jobId());

            release.countDown();
            blocked.get(10, TimeUnit.SECONDS);
            assertEquals(1, ((List<?>) write.get().get(10, TimeUnit.SECONDS)).size());
            assertNull(ownRead.get().get(10, TimeUnit.SECONDS), "the read saw its thread's invalidation");
            assertNull(registry.lookup(hot).join());
        }
    }

    /**
     * A continuation of a registry future runs inside the writer's step: a write it publishes is applied in the same
     * drain (no deadlock), and close() from it is refused instead of hanging.
     */
    @Test
    @Timeout(60)
    @SuppressWarnings("try")
    void continuationsInsideTheWriterNeitherDeadlockNorClose() throws Exception
    {
        for (final boolean writerThread : new boolean[] {false, true})
        {
            try (CacheRegistry registry = CacheRegistry.launch(new CacheRegistry.Context().writerThread(writerThread)))
            {
                final CacheKey key = new CacheKey("s", "k");
                final CacheKey other = new CacheKey("s", "other");
                materialize(registry, other, "other-job");
                assertEquals(Acquisition.Claimed.class, registry.acquire(key, "j1").join().getClass());
                final Acquisition.Wait wait = (Acquisition.Wait) registry.acquire(key, "j2").join();
                final AtomicReference<CompletableFuture<?>> nested = new AtomicReference<>();
                final AtomicReference<Throwable> closeRefused = new AtomicReference<>();
                final CompletableFuture<Void> continuation = wait.resolution().thenRun(() ->
                {
                    nested.set(registry.invalidate(other));
                    try
                    {
                        registry.close();
                    }
                    catch (final IllegalStateException ex)
                    {
                        closeRefused.set(ex);
                    }
                });
                registry.completeMaterialization(key, "j1", SCHEMA, locations("j1")).get(10, TimeUnit.SECONDS);
                continuation.get(10, TimeUnit.SECONDS);
                assertInstanceOf(IllegalStateException.class, closeRefused.get(), "writerThread=" + writerThread);
                assertEquals(1, ((List<?>) nested.get().get(10, TimeUnit.SECONDS)).size());
                assertNull(registry.lookup(other).join());
                assertFalse(registry.isClosed());
            }
        }
    }

    private static void materialize(final CacheRegistry registry, final CacheKey key, final String job)
    {
        registry.beginMaterialization(key, job).join();
        assertEquals(CompletionOutcome.PROMOTED,
            registry.completeMaterialization(key, job, SCHEMA, locations(job)).join());
    }

    private static String job(final int writer, final long cycle)
    {
        return "w" + writer + "-" + cycle;
    }

    /**
     * The writer's step an entry belongs to, checking that it is whole.
     */
    private static long stepOf(final int writer, final CacheEntry entry)
    {
        final String job = entry.jobId();
        assertTrue(job.startsWith("w" + writer + "-"), "entry of another writer: " + entry);
        final long cycle = Long.parseLong(job.substring(job.indexOf('-') + 1));
        if (entry instanceof Materialized materialized)
        {
            assertEquals(locations(job), materialized.locations(), "torn entry " + entry);
            assertEquals(SCHEMA, materialized.schema());
            return 3 * cycle + 1;
        }
        return 3 * cycle;
    }

    private static List<PartitionLocation> locations(final String job)
    {
        return List.of(
            new PartitionLocation("e1", job, 1, 0, "/w/" + job + "/1/0.data", 100 + job.length()),
            new PartitionLocation("e2", job, 1, 1, "/w/" + job + "/1/1.data", 200 + job.length()));
    }

    private static void await(final CountDownLatch latch)
    {
        try
        {
            latch.await(30, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private static void guard(final AtomicReference<Throwable> failure, final ThrowingRunnable body)
    {
        try
        {
            body.run();
        }
        catch (final Throwable ex)
        {
            failure.compareAndSet(null, ex);
        }
    }

    @FunctionalInterface
    private interface ThrowingRunnable
    {
        void run() throws Exception;
    }
}
