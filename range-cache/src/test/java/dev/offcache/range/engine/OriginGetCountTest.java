package dev.offcache.range.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import dev.offcache.range.metrics.MetricNames;
import dev.offcache.range.testing.CountingOrigin;
import dev.offcache.range.testing.EngineFixture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How many requests reach the origin: coalescing, no gap bridging, single flight for blocks and sizes.
 */
class OriginGetCountTest
{
    private static final int BLOCK = 4096;

    @Test
    void fiveMissingBlocksWithAThreeBlockCapTakeTwoGets()
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 64L * BLOCK, (b) -> b.maxCoalescedGetBytes(3 * BLOCK)))
        {
            final byte[] expected = f.object("a", 5 * BLOCK, 1);
            assertArrayEquals(expected, f.read("a", 0, 5 * BLOCK));
            assertEquals(2, f.origin.gets());
            assertEquals(List.of(new CountingOrigin.Get("a", 0, 3 * BLOCK), new CountingOrigin.Get("a", 3 * BLOCK,
                2 * BLOCK)), f.origin.log());
            assertEquals(5, f.cache.metrics().value(MetricNames.COALESCED_BLOCKS));
            assertEquals(5, f.cache.metrics().value(MetricNames.BLOCK_MISSES));

            f.origin.reset();
            assertArrayEquals(expected, f.read("a", 0, 5 * BLOCK));
            assertEquals(0, f.origin.gets(), "second read is all hits");
            assertEquals(5, f.cache.metrics().value(MetricNames.BLOCK_HITS));
        }
    }

    @Test
    void runsAreNotCutAtReadAheadWindowEdges()
    {
        // issue 19 item 11: windows of 8 blocks used to cut the run 6..11 at block 8 (3 GETs)
        try (EngineFixture f = new EngineFixture(BLOCK, 64L * BLOCK, (b) -> b.maxCoalescedGetBytes(8 * BLOCK)
            .streamWindows(8, 2)))
        {
            final byte[] expected = f.object("w", 12 * BLOCK, 11);
            f.read("w", 5L * BLOCK, 1);
            f.origin.reset();
            assertArrayEquals(expected, f.read("w", 0, 12 * BLOCK));
            assertEquals(List.of(new CountingOrigin.Get("w", 0, 5 * BLOCK),
                new CountingOrigin.Get("w", 6L * BLOCK, 6 * BLOCK)), f.origin.log());
        }
    }

    @Test
    void contiguousMissesCostCeilOfTheirBytesOverTheCapWhateverTheWindow()
    {
        for (final int windowBlocks : new int[] {1, 3, 8, 13})
        {
            try (EngineFixture f = new EngineFixture(BLOCK, 128L * BLOCK, (b) -> b.maxCoalescedGetBytes(8 * BLOCK)
                .streamWindows(windowBlocks, 2)))
            {
                final byte[] expected = f.object("c", 37 * BLOCK + 5, 12);
                assertArrayEquals(expected, f.read("c", 0, expected.length));
                assertEquals(5, f.origin.gets(), "38 blocks at 8 per GET, windows of " + windowBlocks);
            }
        }
    }

    @Test
    void lastShortBlockIsFetchedToTheEndOfTheObject()
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 64L * BLOCK, (b) -> b))
        {
            final byte[] expected = f.object("short", 2 * BLOCK + 100, 2);
            assertArrayEquals(Arrays.copyOfRange(expected, 2 * BLOCK + 50, 2 * BLOCK + 100),
                f.read("short", 2 * BLOCK + 50, 50));
            assertEquals(List.of(new CountingOrigin.Get("short", 2 * BLOCK, 100)), f.origin.log());
            assertEquals(100, f.store.sizeBytes());
        }
    }

    @Test
    void scatteredMissingBlocksAreNeverBridged()
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 64L * BLOCK, (b) -> b))
        {
            final byte[] expected = f.object("s", 5 * BLOCK, 3);
            f.read("s", BLOCK, 1);
            f.read("s", 3 * BLOCK, 1);
            f.origin.reset();

            assertArrayEquals(expected, f.read("s", 0, 5 * BLOCK));
            assertEquals(List.of(
                new CountingOrigin.Get("s", 0, BLOCK),
                new CountingOrigin.Get("s", 2 * BLOCK, BLOCK),
                new CountingOrigin.Get("s", 4 * BLOCK, BLOCK)), f.origin.log());
        }
    }

    @Test
    void vectoredRangesShareGetsOnlyWhereTheirBlocksAdjoin()
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 64L * BLOCK, (b) -> b))
        {
            final byte[] expected = f.object("v", 10 * BLOCK, 4);
            final List<RangeRequest> ranges = new ArrayList<>();
            final long[][] spans = {{10, 100}, {BLOCK + 5, 10}, {6L * BLOCK + 1, BLOCK}};
            for (final long[] span : spans)
            {
                ranges.add(new RangeRequest(span[0], (int) span[1], new UnsafeBuffer(new byte[(int) span[1]]), 0));
            }
            f.cache.readVectored("v", ranges);
            for (final RangeRequest r : ranges)
            {
                assertArrayEquals(Arrays.copyOfRange(expected, (int) r.position(), (int) r.position() + r.length()),
                    r.destination().byteArray());
            }
            assertEquals(List.of(
                new CountingOrigin.Get("v", 0, 2 * BLOCK),
                new CountingOrigin.Get("v", 6L * BLOCK, 2 * BLOCK)), f.origin.log());
        }
    }

    @Test
    void concurrentIdenticalReadsFetchEachBlockOnce() throws Exception
    {
        final int readers = 8;
        try (EngineFixture f = new EngineFixture(BLOCK, 64L * BLOCK, (b) -> b))
        {
            final byte[] expected = f.object("same", 3 * BLOCK, 5);
            f.cache.size("same");
            final CompletableFuture<Void> gate = f.origin.gateGets((key) -> true);
            // Started together, the readers race for each block's claim: a reader that joined block 0 may win block 1
            // before block 0's owner claims it, so a run can split (up to one GET per block). Single flight is per
            // block: whatever the split, no block is asked for twice.
            final List<byte[]> results = readTogether(f, readers, () -> f.read("same", 0, 3 * BLOCK), () ->
                awaitValue(f, MetricNames.SINGLE_FLIGHT_JOINS, 3L * (readers - 1)), gate);
            results.forEach((result) -> assertArrayEquals(expected, result));
            final List<CountingOrigin.Get> gets = new ArrayList<>(f.origin.log());
            gets.sort(Comparator.comparingLong(CountingOrigin.Get::offset));
            long next = 0;
            for (final CountingOrigin.Get get : gets)
            {
                assertEquals(next, get.offset(), "GETs tile the object, none overlaps: " + gets);
                next += get.length();
            }
            assertEquals(3L * BLOCK, next, "every byte asked for once: " + gets);
            assertTrue(gets.size() <= 3, gets.toString());
        }
    }

    @Test
    void readsArrivingWhileARunIsInFlightShareItsOneGet() throws Exception
    {
        final int readers = 8;
        try (EngineFixture f = new EngineFixture(BLOCK, 64L * BLOCK, (b) -> b))
        {
            final byte[] expected = f.object("same", 3 * BLOCK, 5);
            f.cache.size("same");
            final CompletableFuture<Void> gate = f.origin.gateGets((key) -> true);
            final ExecutorService first = Executors.newSingleThreadExecutor();
            try
            {
                final Future<byte[]> owner = first.submit(() -> f.read("same", 0, 3 * BLOCK));
                awaitGets(f, 1); // the first read's run of three blocks is sent (and held at the gate)
                final List<byte[]> results = readTogether(f, readers - 1, () -> f.read("same", 0, 3 * BLOCK),
                    () -> awaitValue(f, MetricNames.SINGLE_FLIGHT_JOINS, 3L * (readers - 1)), gate);
                results.forEach((result) -> assertArrayEquals(expected, result));
                assertArrayEquals(expected, owner.get(10, TimeUnit.SECONDS));
            }
            finally
            {
                first.shutdownNow();
            }
            assertEquals(1, f.origin.gets());
        }
    }

    /** Starts {@code readers} reads at once, waits for {@code joined}, opens {@code gate}, returns their results. */
    private static List<byte[]> readTogether(
        final EngineFixture f, final int readers, final Callable<byte[]> read,
        final Waiting joined, final CompletableFuture<Void> gate) throws Exception
    {
        final ExecutorService pool = Executors.newFixedThreadPool(readers);
        try
        {
            final CyclicBarrier start = new CyclicBarrier(readers);
            final List<Future<byte[]>> futures = new ArrayList<>();
            for (int i = 0; i < readers; i++)
            {
                futures.add(pool.submit(() ->
                {
                    start.await();
                    return read.call();
                }));
            }
            joined.await();
            gate.complete(null);
            final List<byte[]> results = new ArrayList<>();
            for (final Future<byte[]> future : futures)
            {
                results.add(future.get(10, TimeUnit.SECONDS));
            }
            return results;
        }
        finally
        {
            pool.shutdownNow();
        }
    }

    /** A wait that may be interrupted. */
    @FunctionalInterface
    private interface Waiting
    {
        void await() throws InterruptedException;
    }

    private static void awaitGets(final EngineFixture f, final int gets) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (f.origin.gets() < gets)
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("no GET sent in 10 s");
            }
            Thread.sleep(1);
        }
    }

    @Test
    void concurrentSizeMissesShareOneHead() throws Exception
    {
        final int readers = 8;
        try (EngineFixture f = new EngineFixture(BLOCK, 64L * BLOCK, (b) -> b))
        {
            f.object("sized", 12345, 6);
            final CompletableFuture<Void> gate = f.origin.gateHeads();
            final List<CompletableFuture<Long>> sizes = new ArrayList<>();
            final ExecutorService pool = Executors.newFixedThreadPool(readers);
            try
            {
                final CountDownLatch started = new CountDownLatch(readers);
                for (int i = 0; i < readers; i++)
                {
                    sizes.add(CompletableFuture.supplyAsync(
                        () ->
                        {
                            started.countDown();
                            return f.cache.size("sized");
                        },
                        pool));
                }
                // Every reader is running and the HEAD is held at the gate: none may issue a second HEAD meanwhile.
                assertTrue(started.await(10, TimeUnit.SECONDS));
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (f.origin.heads() < 1 && System.nanoTime() < deadline)
                {
                    Thread.sleep(5);
                }
                Thread.sleep(100);
                assertEquals(1, f.origin.heads());
                gate.complete(null);
                for (final CompletableFuture<Long> size : sizes)
                {
                    assertEquals(12345L, size.get(10, TimeUnit.SECONDS));
                }
            }
            finally
            {
                pool.shutdownNow();
            }
            assertEquals(1, f.origin.heads());
            f.cache.size("sized");
            assertEquals(1, f.origin.heads(), "the size is remembered");
        }
    }

    static void awaitValue(final EngineFixture f, final String metric, final long atLeast) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (f.cache.metrics().value(metric) < atLeast)
        {
            assertTrue(System.nanoTime() < deadline, metric + " never reached " + atLeast);
            Thread.sleep(5);
        }
    }
}
