package dev.offcache.range.engine;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.offcache.core.slab.BlockRef;
import dev.offcache.range.metrics.MetricNames;
import dev.offcache.range.store.BlockFile;
import dev.offcache.range.testing.CountingOrigin;
import dev.offcache.range.testing.EngineFixture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The engine's response stream ({@link BlockStream}): body order, exact bytes, origin GETs (contiguous misses
 * coalesced up to the cap and across the look-ahead, several in flight), one counted lookup per chunk, the credit
 * bound, a pausing sink, cancellation and failure, all on a single-threaded executor standing in for an event loop.
 */
class BlockStreamTest
{
    private static final int BLOCK = 4096;

    private ExecutorService loop;

    @BeforeEach
    void startLoop()
    {
        loop = Executors.newSingleThreadExecutor();
    }

    @AfterEach
    void stopLoop()
    {
        loop.shutdownNow();
    }

    @Test
    void contiguousColdBlocksCostCeilOfTheirBytesOverTheCapInFlightTogether() throws Exception
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 128L * BLOCK, (b) -> b.maxCoalescedGetBytes(8 * BLOCK)))
        {
            final byte[] data = f.object("cold", 40 * BLOCK + 17, 1);
            f.cache.size("cold");
            final CompletableFuture<Void> gate = f.origin.gateGets((key) -> true);
            final Recorder sink = new Recorder(f.cache, 0, data.length);
            startOnLoop(f, "cold", new long[] {0}, new long[] {data.length}, StreamCredit.unbounded(), sink);
            // read-ahead = 2 windows of max(8, 8) blocks: two GETs of 8 blocks go out before either answers
            awaitTrue(() -> f.origin.running() == 2, "two GETs in flight at once");
            gate.complete(null);
            sink.done.get(30, TimeUnit.SECONDS);
            assertArrayEquals(data, sink.bytes());
            assertEquals(6, f.origin.gets(), "41 blocks at 8 per GET");
            assertEquals(41, f.cache.metrics().value(MetricNames.BLOCK_REQUESTS), "one lookup per chunk");
            assertEquals(41, f.cache.metrics().value(MetricNames.BLOCK_MISSES));
            assertEquals(0, f.cache.metrics().value(MetricNames.BLOCK_HITS));
            sink.assertInOrder();
        }
    }

    @Test
    void blocksLandingBehindAPendingHeadHandNothingToTheExecutor() throws Exception
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 128L * BLOCK, (b) -> b.maxCoalescedGetBytes(8 * BLOCK)))
        {
            final byte[] data = f.object("behind", 16 * BLOCK, 3);
            f.cache.size("behind");
            // only the first GET (blocks 0-7, sent first) is held: the second lands whole behind a pending head
            final java.util.concurrent.atomic.AtomicBoolean first = new java.util.concurrent.atomic.AtomicBoolean(true);
            final CompletableFuture<Void> gate = f.origin.gateGets((key) -> first.getAndSet(false));
            final AtomicLong handOffs = new AtomicLong();
            final java.util.concurrent.Executor counting = (task) ->
            {
                handOffs.incrementAndGet();
                loop.execute(task);
            };
            final Recorder sink = new Recorder(f.cache, 0, data.length);
            sink.executor = loop;
            loop.submit(() ->
            {
                sink.stream = f.cache.openStream("behind", new long[] {0}, new long[] {data.length},
                    StreamCredit.unbounded(), counting, sink);
                sink.stream.start();
            }).get(10, TimeUnit.SECONDS);
            // a block leaves the in-flight set after its waiters were handed it: eight left means the second GET's
            // blocks all reached the stream's slots
            awaitTrue(() -> f.origin.gets() == 2 && f.cache.fetcher().inFlightBlocks() == 8,
                "the second GET's blocks handed over, the first GET held");
            loop.submit(() ->
            {
            }).get(10, TimeUnit.SECONDS);
            // one at most: a block that lands while the starting drain still looks at the slots schedules another
            final long behind = handOffs.get();
            assertTrue(behind <= 1,
                () -> "eight blocks landed behind the pending head, " + behind + " drains handed over");
            assertEquals(0, sink.positions.size());
            gate.complete(null);
            sink.done.get(30, TimeUnit.SECONDS);
            assertArrayEquals(data, sink.bytes());
            sink.assertInOrder();
            final long afterHead = handOffs.get() - behind;
            assertTrue(afterHead >= 1 && afterHead <= 8,
                () -> "one drain per arrival of the head at most, got " + afterHead);
        }
    }

    @Test
    void hitsBetweenMissesSplitTheRunsAndEachLookupCountsOnce() throws Exception
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 128L * BLOCK, (b) -> b.maxCoalescedGetBytes(4 * BLOCK)))
        {
            final byte[] data = f.object("mixed", 20 * BLOCK, 2);
            f.read("mixed", 3L * BLOCK, 1);
            f.read("mixed", 12L * BLOCK, 2 * BLOCK);
            f.origin.reset();
            final long requestsBefore = f.cache.metrics().value(MetricNames.BLOCK_REQUESTS);
            final long hitsBefore = f.cache.metrics().value(MetricNames.BLOCK_HITS);
            final Recorder sink = new Recorder(f.cache, 100, data.length - 100);
            startOnLoop(f, "mixed", new long[] {100}, new long[] {data.length - 100}, StreamCredit.unbounded(),
                sink);
            sink.done.get(30, TimeUnit.SECONDS);
            assertArrayEquals(Arrays.copyOfRange(data, 100, data.length), sink.bytes());
            assertEquals(List.of(
                new CountingOrigin.Get("mixed", 0, 3 * BLOCK),
                new CountingOrigin.Get("mixed", 4L * BLOCK, 4 * BLOCK),
                new CountingOrigin.Get("mixed", 8L * BLOCK, 4 * BLOCK),
                new CountingOrigin.Get("mixed", 14L * BLOCK, 4 * BLOCK),
                new CountingOrigin.Get("mixed", 18L * BLOCK, 2 * BLOCK)), sorted(f.origin.log()));
            assertEquals(20, f.cache.metrics().value(MetricNames.BLOCK_REQUESTS) - requestsBefore);
            assertEquals(3, f.cache.metrics().value(MetricNames.BLOCK_HITS) - hitsBefore);
        }
    }

    @Test
    void aReaderJoiningABlockOfTheOpenRunGetsTheRunSentAtOnce() throws Exception
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 128L * BLOCK, (b) -> b.maxCoalescedGetBytes(8 * BLOCK)))
        {
            final byte[] data = f.object("edge", 40 * BLOCK, 9);
            f.read("edge", 3L * BLOCK, 1);
            f.origin.reset();
            final CompletableFuture<Void> gate = f.origin.gateGets((key) -> true);
            final Recorder sink = new Recorder(f.cache, 0, data.length);
            startOnLoop(f, "edge", new long[] {0}, new long[] {data.length}, StreamCredit.unbounded(), sink);
            // look-ahead of 16 chunks: runs 0..2 and 4..11 sent (held at the gate), 12..15 kept open to grow
            // (start() returned: its first look-ahead is done, synchronously)
            assertEquals(2, f.origin.log().size(), "two runs sent; the run at the look-ahead's edge is still open");
            final UnsafeBuffer other = new UnsafeBuffer(new byte[BLOCK]);
            final CompletableFuture<Void> read = f.cache.readAsync("edge", 13L * BLOCK, other, 0, BLOCK, false);
            awaitTrue(() -> f.origin.running() == 3, "the joiner had the open run sent");
            assertEquals(new CountingOrigin.Get("edge", 12L * BLOCK, 4 * BLOCK), f.origin.log().get(2));
            gate.complete(null);
            read.get(30, TimeUnit.SECONDS);
            assertArrayEquals(Arrays.copyOfRange(data, 13 * BLOCK, 14 * BLOCK), other.byteArray());
            sink.done.get(30, TimeUnit.SECONDS);
            assertArrayEquals(data, sink.bytes());
        }
    }

    @Test
    void severalRangesStreamInBodyOrderAndShareGetsWhereTheyAdjoin() throws Exception
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 128L * BLOCK, (b) -> b))
        {
            final byte[] data = f.object("multi", 30 * BLOCK, 3);
            final long[] starts = {10, 2L * BLOCK - 5, 2L * BLOCK + 7, 9L * BLOCK, 20L * BLOCK, 0};
            final long[] lengths = {100, 3 * BLOCK, 0, 2 * BLOCK + 1, 5, 20};
            f.cache.size("multi");
            final Recorder sink = new Recorder(f.cache, -1, -1);
            startOnLoop(f, "multi", starts, lengths, StreamCredit.unbounded(), sink);
            sink.done.get(30, TimeUnit.SECONDS);
            final ByteBuffer expected = ByteBuffer.allocate((int) Arrays.stream(lengths).sum());
            for (int i = 0; i < starts.length; i++)
            {
                expected.put(data, (int) starts[i], (int) lengths[i]);
            }
            assertArrayEquals(expected.array(), sink.bytes());
            // block 0 (range 0) and 1..4 (range 1) adjoin: one run; 9..11 one; 20 one; block 0 again joins or hits
            assertEquals(List.of(
                new CountingOrigin.Get("multi", 0, 5 * BLOCK),
                new CountingOrigin.Get("multi", 9L * BLOCK, 3 * BLOCK),
                new CountingOrigin.Get("multi", 20L * BLOCK, BLOCK)), sorted(f.origin.log()));
            assertEquals(List.of(0, 1, 1, 1, 1, 3, 3, 3, 4, 5), sink.ranges);
        }
    }

    @Test
    void theCreditBoundsWhatTheStreamHoldsAheadAndAllOfItComesBack() throws Exception
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 128L * BLOCK, (b) -> b))
        {
            final byte[] data = f.object("credit", 64 * BLOCK, 4);
            f.cache.size("credit");
            final CountingCredit credit = new CountingCredit(3L * BLOCK);
            final Recorder sink = new Recorder(f.cache, 0, data.length);
            sink.credit = credit;
            startOnLoop(f, "credit", new long[] {0}, new long[] {data.length}, credit, sink);
            sink.done.get(30, TimeUnit.SECONDS);
            assertArrayEquals(data, sink.bytes());
            assertTrue(credit.peak.get() <= 3L * BLOCK, "peak " + credit.peak.get());
            assertEquals(0, credit.used.get(), "every reservation returned");
            assertTrue(credit.waits.get() > 0, "the stream waited for credit");
        }
    }

    @Test
    void aSinkThatPausesGetsEveryChunkAfterItResumes() throws Exception
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 128L * BLOCK, (b) -> b.maxCoalescedGetBytes(4 * BLOCK)))
        {
            final byte[] data = f.object("slow", 33 * BLOCK, 5);
            f.cache.size("slow");
            final Recorder sink = new Recorder(f.cache, 0, data.length);
            sink.pauseEvery = 1;
            startOnLoop(f, "slow", new long[] {0}, new long[] {data.length}, StreamCredit.unbounded(), sink);
            while (!sink.done.isDone())
            {
                awaitTrue(() -> sink.paused || sink.done.isDone(), "paused or done");
                loop.submit(() ->
                {
                    sink.paused = false;
                    sink.stream.resume();
                }).get(10, TimeUnit.SECONDS);
            }
            assertArrayEquals(data, sink.bytes());
            assertEquals(9, f.origin.gets(), "33 blocks at 4 per GET");
        }
    }

    @Test
    void cancellingReturnsEveryReferenceAndTheCreditEvenForFetchesStillRunning() throws Exception
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 128L * BLOCK, (b) -> b))
        {
            final byte[] data = f.object("gone", 48 * BLOCK, 6);
            f.read("gone", BLOCK, 4 * BLOCK);
            final int residentSlots = f.store.slab().liveSlots();
            final CompletableFuture<Void> gate = f.origin.gateGets((key) -> true);
            final CountingCredit credit = new CountingCredit(1L << 30);
            final Recorder sink = new Recorder(f.cache, 0, data.length);
            sink.credit = credit;
            startOnLoop(f, "gone", new long[] {0}, new long[] {data.length}, credit, sink);
            // block 0 waits for its GET; the hits 1..4 behind it are held by the look-ahead; later GETs wait too
            awaitTrue(() -> f.origin.running() >= 2, "GETs waiting at the gate");
            assertTrue(f.store.slab().liveSlots() == residentSlots && credit.used.get() > 4L * BLOCK,
                "the look-ahead holds the hits and the credit of every chunk it took");
            loop.submit(sink.stream::cancel).get(10, TimeUnit.SECONDS);
            assertEquals(0, credit.used.get(), "credit of every chunk not handed over came back");
            gate.complete(null);
            awaitTrue(() -> f.cache.fetcher().inFlightBlocks() == 0, "the fetches complete for others");
            assertEquals(0, sink.bytes().length, "nothing was handed over");
            assertTrue(sink.stream.isDone());
            assertArrayEquals(data, f.read("gone", 0, data.length), "the fetched blocks were stored");
            // closing the fixture checks that no slab slot leaked: a reference the stream kept would keep one
        }
    }

    @Test
    void aFailedFetchFailsTheStreamAndReturnsItsCredit() throws Exception
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 128L * BLOCK, (b) -> b))
        {
            f.object("bad", 16 * BLOCK, 7);
            f.cache.size("bad");
            f.origin.failNextGets(100);
            final CountingCredit credit = new CountingCredit(1L << 30);
            final Recorder sink = new Recorder(f.cache, 0, 16 * BLOCK);
            sink.credit = credit;
            startOnLoop(f, "bad", new long[] {0}, new long[] {16 * BLOCK}, credit, sink);
            final Throwable error = sink.failure.get(30, TimeUnit.SECONDS);
            assertTrue(error.getMessage().contains("injected"), error.getMessage());
            assertEquals(0, credit.used.get());
            f.origin.failNextGets(0);
        }
    }

    @Test
    void blocksFromASlowerTierAreLoadedAndCountedAsHitsOnce() throws Exception
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 128L * BLOCK, (b) -> b))
        {
            final byte[] data = f.object("tiered", 10 * BLOCK, 8);
            f.read("tiered", 0, data.length);
            f.store.slowerTier(true);
            f.origin.reset();
            final long before = f.cache.metrics().value(MetricNames.BLOCK_REQUESTS);
            final Recorder sink = new Recorder(f.cache, 0, data.length);
            startOnLoop(f, "tiered", new long[] {0}, new long[] {data.length}, StreamCredit.unbounded(), sink);
            sink.done.get(30, TimeUnit.SECONDS);
            f.store.slowerTier(false);
            assertArrayEquals(data, sink.bytes());
            assertEquals(0, f.origin.gets());
            assertEquals(10, f.cache.metrics().value(MetricNames.BLOCK_REQUESTS) - before);
            assertEquals(10, f.cache.metrics().value(MetricNames.BLOCK_LOADED_HITS));
            assertEquals(10, f.cache.metrics().value(MetricNames.BLOCK_MISSES), "only the first read's misses");
        }
    }

    @Test
    void manyStreamsOverSharedBlocksWithATinyStoreStayExactAndLeakNothing() throws Exception
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 12L * BLOCK, (b) -> b.maxCoalescedGetBytes(3 * BLOCK)
            .fetchPermits(4, 1)))
        {
            final byte[][] data = new byte[3][];
            for (int i = 0; i < data.length; i++)
            {
                data[i] = f.object("shared/" + i, 24 * BLOCK + 13 * i, 20 + i);
                f.cache.size("shared/" + i);
            }
            final ExecutorService loops = Executors.newFixedThreadPool(3);
            try
            {
                final Random random = new Random(42);
                final List<Recorder> sinks = new ArrayList<>();
                final List<byte[]> expected = new ArrayList<>();
                final CountingCredit credit = new CountingCredit(16L * BLOCK);
                for (int i = 0; i < 60; i++)
                {
                    final int o = random.nextInt(data.length);
                    final int start = random.nextInt(data[o].length);
                    final int length = random.nextInt(data[o].length - start) + 1;
                    final Recorder sink = new Recorder(f.cache, start, length);
                    sink.credit = credit;
                    sink.pauseEvery = random.nextInt(3) == 0 ? 3 : 0;
                    final ExecutorService executor = Executors.newSingleThreadExecutor();
                    sink.executor = executor;
                    sinks.add(sink);
                    expected.add(Arrays.copyOfRange(data[o], start, start + length));
                    executor.submit(() ->
                    {
                        sink.stream = f.cache.openStream("shared/" + o, new long[] {start}, new long[] {length},
                            credit, executor, sink);
                        sink.stream.start();
                    });
                }
                // like sockets that drain: every paused sink is resumed soon (each on its own loop)
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (!sinks.stream().allMatch((sink) -> sink.done.isDone()))
                {
                    assertTrue(System.nanoTime() < deadline, "streams did not finish in time");
                    for (final Recorder sink : sinks)
                    {
                        assertTrue(!sink.failure.isDone(), () -> "failed: " + sink.failure.join());
                        if (sink.paused)
                        {
                            sink.paused = false;
                            sink.executor.submit(sink.stream::resume);
                        }
                    }
                    Thread.sleep(1);
                }
                for (int i = 0; i < sinks.size(); i++)
                {
                    assertArrayEquals(expected.get(i), sinks.get(i).bytes(), "stream " + i);
                    sinks.get(i).executor.shutdown();
                }
                assertEquals(0, credit.used.get());
                awaitTrue(() -> f.cache.fetcher().inFlightBlocks() == 0, "nothing left in flight");
            }
            finally
            {
                loops.shutdownNow();
            }
        }
    }

    private void startOnLoop(
        final EngineFixture f, final String key, final long[] starts, final long[] lengths, final StreamCredit credit,
        final Recorder sink) throws Exception
    {
        sink.executor = loop;
        loop.submit(() ->
        {
            sink.stream = f.cache.openStream(key, starts, lengths, credit, loop, sink);
            sink.stream.start();
        }).get(10, TimeUnit.SECONDS);
    }

    private static List<CountingOrigin.Get> sorted(final List<CountingOrigin.Get> gets)
    {
        final List<CountingOrigin.Get> copy = new ArrayList<>(gets);
        copy.sort((a, b) -> Long.compare(a.offset(), b.offset()));
        return copy;
    }

    static void awaitTrue(final java.util.function.BooleanSupplier condition, final String what)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("timed out waiting: " + what);
            }
            Thread.sleep(1);
        }
    }

    /** A budget like the server's: bounded, counting its peak and its waits. */
    static final class CountingCredit implements StreamCredit
    {
        final long limit;
        final AtomicLong used = new AtomicLong();
        final AtomicLong peak = new AtomicLong();
        final AtomicLong waits = new AtomicLong();
        private final java.util.concurrent.ConcurrentLinkedQueue<Runnable> waiters =
            new java.util.concurrent.ConcurrentLinkedQueue<>();

        CountingCredit(final long limit)
        {
            this.limit = limit;
        }

        @Override
        public boolean tryReserve(final long bytes)
        {
            while (true)
            {
                final long now = used.get();
                if (now + bytes > limit)
                {
                    return false;
                }
                if (used.compareAndSet(now, now + bytes))
                {
                    peak.accumulateAndGet(now + bytes, Math::max);
                    return true;
                }
            }
        }

        @Override
        public void await(final Runnable wakeUp)
        {
            waits.incrementAndGet();
            waiters.add(wakeUp);
            if (used.get() <= limit - BLOCK)
            {
                wakeAll();
            }
        }

        @Override
        public void release(final long bytes)
        {
            used.addAndGet(-bytes);
            wakeAll();
        }

        private void wakeAll()
        {
            Runnable waiter;
            while ((waiter = waiters.poll()) != null)
            {
                waiter.run();
            }
        }
    }

    /** Collects the chunks in order (copying them out), releases each resource and its credit at once. */
    static final class Recorder implements StreamSink
    {
        final RangeCache cache;
        final long start;
        final ByteBuffer out = ByteBuffer.allocate(1 << 20);
        final List<Long> positions = new ArrayList<>();
        final List<Integer> ranges = new ArrayList<>();
        final List<Object> held = new ArrayList<>();
        final CompletableFuture<Void> done = new CompletableFuture<>();
        final CompletableFuture<Throwable> failure = new CompletableFuture<>();
        StreamCredit credit = StreamCredit.unbounded();
        volatile boolean paused;
        boolean holdRefs;
        int pauseEvery;
        int count;
        volatile BlockStream stream;
        ExecutorService executor;

        Recorder(final RangeCache cache, final long start, final long length)
        {
            this.cache = cache;
            this.start = start;
        }

        @Override
        public boolean onMemory(final int range, final long position, final BlockRef ref, final int offset,
            final int length)
        {
            final byte[] bytes = new byte[length];
            ref.buffer().getBytes(offset, bytes);
            if (holdRefs)
            {
                // like a socket that has not written the chunk yet
                held.add(ref);
            }
            else
            {
                ref.release();
            }
            return took(range, position, bytes);
        }

        @Override
        public boolean onFile(final int range, final long position, final BlockFile file, final int offset,
            final int length)
        {
            throw new AssertionError("no files in this store");
        }

        @Override
        public boolean onCopy(final int range, final long position, final ByteBuffer copy)
        {
            final byte[] bytes = new byte[copy.remaining()];
            copy.get(bytes);
            BufferUtil.free(copy);
            return took(range, position, bytes);
        }

        private boolean took(final int range, final long position, final byte[] bytes)
        {
            positions.add(position);
            ranges.add(range);
            synchronized (out)
            {
                out.put(bytes);
            }
            credit.release(bytes.length);
            count++;
            if (pauseEvery > 0 && count % pauseEvery == 0)
            {
                paused = true;
                return false;
            }
            return true;
        }

        @Override
        public void onIdle()
        {
        }

        @Override
        public void onComplete()
        {
            releaseAll();
            done.complete(null);
        }

        @Override
        public void onError(final Throwable error)
        {
            releaseAll();
            failure.complete(error);
        }

        void releaseAll()
        {
            for (final Object resource : held)
            {
                ((BlockRef) resource).release();
            }
            held.clear();
        }

        byte[] bytes()
        {
            synchronized (out)
            {
                return Arrays.copyOf(out.array(), out.position());
            }
        }

        void assertInOrder()
        {
            for (int i = 1; i < positions.size(); i++)
            {
                assertTrue(positions.get(i) > positions.get(i - 1), "in order at " + i);
            }
            assertNotNull(stream);
        }
    }
}
