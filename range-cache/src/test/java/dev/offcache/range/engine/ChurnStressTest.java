package dev.offcache.range.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.offcache.range.origin.OriginException;
import dev.offcache.range.testing.EngineFixture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bounded-time stress: threads read random ranges of several objects through a store far smaller than the data
 * (constant eviction), with prefetches and injected origin failures. Every read returns the origin's bytes or a
 * clean origin error, never wrong bytes; afterwards nothing is in flight and (at close) no slot or staging
 * buffer leaked.
 */
class ChurnStressTest
{
    private static final int BLOCK = 4096;

    @Test
    void readsStayCorrectUnderEvictionPrefetchAndFaults() throws Exception
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 8L * BLOCK, (b) -> b.fetchPermits(4, 1)
            .maxCoalescedGetBytes(3 * BLOCK).streamWindows(4, 2)))
        {
            final int objects = 6;
            final byte[][] data = new byte[objects][];
            for (int i = 0; i < objects; i++)
            {
                data[i] = f.object("churn/" + i, 32 * BLOCK + 11 * i, 100 + i);
            }
            final AtomicInteger failures = new AtomicInteger();
            final AtomicInteger successes = new AtomicInteger();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            final ExecutorService pool = Executors.newFixedThreadPool(4);
            try
            {
                final List<Future<?>> tasks = new ArrayList<>();
                for (int t = 0; t < 4; t++)
                {
                    final int seed = t;
                    tasks.add(pool.submit(() ->
                    {
                        final Random random = new Random(seed);
                        while (System.nanoTime() < deadline)
                        {
                            final int o = random.nextInt(objects);
                            final int position = random.nextInt(data[o].length);
                            final int length = random.nextInt(Math.min(10 * BLOCK, data[o].length - position) + 1);
                            final int dice = random.nextInt(20);
                            if (dice == 0)
                            {
                                f.origin.failNextGets(1);
                            }
                            if (dice == 1)
                            {
                                f.cache.prefetch("churn/" + o, List.of(new ByteRange(position, length)));
                                continue;
                            }
                            try
                            {
                                assertArrayEquals(Arrays.copyOfRange(data[o], position, position + length),
                                    f.read("churn/" + o, position, length));
                                successes.incrementAndGet();
                            }
                            catch (final OriginException ex)
                            {
                                assertTrue(ex.getMessage().contains("injected"), ex.getMessage());
                                failures.incrementAndGet();
                            }
                        }
                        return null;
                    }));
                }
                for (final Future<?> task : tasks)
                {
                    task.get(30, TimeUnit.SECONDS);
                }
            }
            finally
            {
                pool.shutdownNow();
            }
            assertTrue(successes.get() > 100, "successes " + successes.get());
            f.origin.failNextGets(0);
            final long settle = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (f.cache.fetcher().inFlightBlocks() != 0 && System.nanoTime() < settle)
            {
                Thread.sleep(5);
            }
            assertEquals(0, f.cache.fetcher().inFlightBlocks());
            assertTrue(f.store.sizeBytes() <= 8L * BLOCK);
            for (int i = 0; i < objects; i++)
            {
                assertArrayEquals(data[i], f.read("churn/" + i, 0, data[i].length));
            }
        }
    }
}
