package dev.offcache.range.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import dev.offcache.range.metrics.MetricNames;
import dev.offcache.range.testing.EngineFixture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The priority-aware fetch permits, end to end through the engine and a gated origin.
 */
class FetchPermitsTest
{
    private static final int BLOCK = 4096;

    @Test
    void demandIsServedWhilePrefetchSaturatesItsShare() throws Exception
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 256L * BLOCK, (b) -> b.fetchPermits(4, 1)))
        {
            for (int i = 0; i < 10; i++)
            {
                f.object("warm/" + i, BLOCK, i);
            }
            final byte[] demanded = f.object("hot/x", 2 * BLOCK, 99);
            for (int i = 0; i < 10; i++)
            {
                f.cache.size("warm/" + i);
            }
            f.cache.size("hot/x");
            final CompletableFuture<Void> gate = f.origin.gateGets((key) -> key.startsWith("warm/"));
            final List<CompletableFuture<Void>> prefetches = new ArrayList<>();
            for (int i = 0; i < 10; i++)
            {
                prefetches.add(f.cache.prefetch("warm/" + i, List.of()));
            }
            awaitRunning(f, 3);
            assertEquals(3, f.cache.fetcher().fetchPermits().running(),
                "prefetch holds 3 of 4 permits, never the reserve");
            assertEquals(7, f.cache.fetcher().fetchPermits().queued());

            final long start = System.nanoTime();
            assertArrayEquals(demanded, f.read("hot/x", 0, 2 * BLOCK));
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5));
            assertFalse(prefetches.get(0).isDone(), "the prefetches are still held");

            gate.complete(null);
            CompletableFuture.allOf(prefetches.toArray(new CompletableFuture<?>[0])).get(10, TimeUnit.SECONDS);
            assertEquals(11, f.origin.gets());
            assertTrue(f.origin.peakRunning() <= 4);
            assertEquals(10, f.cache.metrics().value(MetricNames.ORIGIN_GETS + MetricNames.PREFETCH));
            assertEquals(1, f.cache.metrics().value(MetricNames.ORIGIN_GETS + MetricNames.DEMAND));
            assertTrue(f.cache.metrics().value(MetricNames.PERMIT_WAITS) >= 7);
            f.origin.reset();
            for (int i = 0; i < 10; i++)
            {
                f.read("warm/" + i, 0, BLOCK);
            }
            assertEquals(0, f.origin.gets(), "prefetched blocks are served from the store");
        }
    }

    @Test
    void demandJoiningAQueuedPrefetchPromotesIt() throws Exception
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 64L * BLOCK, (b) -> b.fetchPermits(2, 1)))
        {
            final byte[] b = f.object("p/b", BLOCK, 2);
            final QueuedPrefetch queued = QueuedPrefetch.start(f);
            final CompletableFuture<Void> gateA = queued.gateA();
            final CompletableFuture<Void> prefetchA = queued.prefetchA();
            final CompletableFuture<Void> prefetchB = queued.prefetchB();

            // A demand read of b joins the queued prefetch and promotes it past the prefetch limit.
            assertArrayEquals(b, f.read("p/b", 0, BLOCK));
            assertEquals(1, f.cache.metrics().value(MetricNames.PROMOTIONS));
            assertTrue(prefetchB.isDone());
            assertFalse(prefetchA.isDone(), "a is still held at the origin");
            assertEquals(2, f.origin.gets());

            gateA.complete(null);
            prefetchA.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void demandJoiningARunningPrefetchPromotesItAndFreesAPrefetchPermit() throws Exception
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 64L * BLOCK, (b) -> b.fetchPermits(2, 1)))
        {
            final byte[] a = f.object("p/a", BLOCK, 1);
            f.object("p/c", BLOCK, 3);
            f.cache.size("p/a");
            f.cache.size("p/c");
            final CompletableFuture<Void> gate = f.origin.gateGets((key) -> true);
            final CompletableFuture<Void> prefetchA = f.cache.prefetch("p/a", List.of());
            awaitRunning(f, 1);
            final UnsafeBuffer into = new UnsafeBuffer(new byte[BLOCK]);
            final CompletableFuture<Void> demandA = f.cache.readAsync("p/a", 0, into, 0, BLOCK, false);
            OriginGetCountTest.awaitValue(f, MetricNames.PROMOTIONS, 1);
            // a now counts as demand, so a second prefetch may start at once.
            final CompletableFuture<Void> prefetchC = f.cache.prefetch("p/c", List.of());
            awaitRunning(f, 2);
            assertEquals(0, f.cache.fetcher().fetchPermits().queued());
            gate.complete(null);
            demandA.get(10, TimeUnit.SECONDS);
            assertArrayEquals(a, into.byteArray());
            prefetchA.get(10, TimeUnit.SECONDS);
            prefetchC.get(10, TimeUnit.SECONDS);
            assertEquals(2, f.origin.gets());
        }
    }

    @Test
    void aRunQueuedWhenTheEngineClosesEndsAndReturnsItsStagingBuffer() throws Exception
    {
        // The fixture's close fails on a slot or staging buffer never returned; the queued prefetch must end.
        try (EngineFixture f = new EngineFixture(BLOCK, 64L * BLOCK, (b) -> b.fetchPermits(2, 1)))
        {
            f.object("p/b", BLOCK, 2);
            final QueuedPrefetch queued = QueuedPrefetch.start(f);

            f.cache.close();
            // a's GET ends after the close, which hands its permit to b: b starts on a closed engine.
            queued.gateA().complete(null);
            assertThrows(ExecutionException.class, () -> queued.prefetchB().get(10, TimeUnit.SECONDS));
            assertThrows(ExecutionException.class, () -> queued.prefetchA().get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void peakConcurrencyNeverExceedsThePermitsUnderMixedLoad() throws Exception
    {
        final int permits = 3;
        try (EngineFixture f = new EngineFixture(BLOCK, 32L * BLOCK, (b) -> b.fetchPermits(permits, 1)))
        {
            final int objects = 12;
            final byte[][] data = new byte[objects][];
            for (int i = 0; i < objects; i++)
            {
                data[i] = f.object("mix/" + i, 20 * BLOCK + i * 37, i);
            }
            final ExecutorService pool = Executors.newFixedThreadPool(6);
            try
            {
                final List<Future<?>> tasks = new ArrayList<>();
                for (int t = 0; t < 6; t++)
                {
                    final int seed = t;
                    tasks.add(pool.submit(() ->
                    {
                        final Random random = new Random(seed);
                        for (int i = 0; i < 60; i++)
                        {
                            final int o = random.nextInt(objects);
                            final int position = random.nextInt(data[o].length);
                            final int length = random.nextInt(Math.min(6 * BLOCK, data[o].length - position) + 1);
                            if (random.nextInt(4) == 0)
                            {
                                f.cache.prefetch("mix/" + o, List.of(new ByteRange(position, length)));
                            }
                            else
                            {
                                assertArrayEquals(Arrays.copyOfRange(data[o], position, position + length),
                                    f.read("mix/" + o, position, length));
                            }
                        }
                        return null;
                    }));
                }
                for (final Future<?> task : tasks)
                {
                    task.get(60, TimeUnit.SECONDS);
                }
            }
            finally
            {
                pool.shutdownNow();
            }
            assertTrue(f.origin.peakRunning() <= permits, "peak " + f.origin.peakRunning());
            assertTrue(f.cache.fetcher().fetchPermits().peakRunning() <= permits);
            assertTrue(f.origin.gets() > 0);
        }
    }

    /**
     * With permits (2, 1): a prefetch of {@code p/a} held at the origin by a gate, so a prefetch of {@code p/b}
     * (written by the caller) waits in the queue behind it.
     */
    private record QueuedPrefetch(
        CompletableFuture<Void> gateA, CompletableFuture<Void> prefetchA, CompletableFuture<Void> prefetchB)
    {
        static QueuedPrefetch start(final EngineFixture f) throws InterruptedException
        {
            f.object("p/a", BLOCK, 1);
            f.cache.size("p/a");
            f.cache.size("p/b");
            final CompletableFuture<Void> gateA = f.origin.gateGets((key) -> key.equals("p/a"));
            final CompletableFuture<Void> prefetchA = f.cache.prefetch("p/a", List.of());
            awaitRunning(f, 1);
            final CompletableFuture<Void> prefetchB = f.cache.prefetch("p/b", List.of());
            assertEquals(1, f.cache.fetcher().fetchPermits().queued(), "b waits: prefetch has one permit, held by a");
            return new QueuedPrefetch(gateA, prefetchA, prefetchB);
        }
    }

    private static void awaitRunning(final EngineFixture f, final int running) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (f.origin.running() < running)
        {
            assertTrue(System.nanoTime() < deadline, "never reached " + running + " GETs running");
            Thread.sleep(5);
        }
    }
}
