package dev.offcache.range.fetch;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

import org.agrona.DirectBuffer;
import org.junit.jupiter.api.Test;

import dev.offcache.core.slab.BlockRef;
import dev.offcache.core.slab.BlockSlab;
import dev.offcache.range.metrics.RangeMetrics;
import dev.offcache.range.origin.BlockProgress;
import dev.offcache.range.origin.ObjectStore;
import dev.offcache.range.origin.OriginException;
import dev.offcache.range.origin.OriginTimeoutException;
import dev.offcache.range.origin.ShortReadException;
import dev.offcache.range.store.BlockKeys;
import dev.offcache.range.store.BlockStore;
import dev.offcache.range.store.FetchClass;
import dev.offcache.range.testing.SlabBlockStore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Seeded random stress over single flight, the one protocol of {@link BlockFetcher#claim}: reader threads (demand,
 * prefetch, and readers that bypass the store) claim random runs of blocks of a few objects, through a store far
 * smaller than the data (constant eviction), against an origin that answers inline, later, too late (timeouts),
 * short, or fails. Some readers keep their runs open until a joiner asks them to send it; some give up on their
 * blocks (cancel: they stop listening after sending). Afterwards: every waiter heard of its block exactly once, after
 * being told what it waits on (no hang, no lost block, no double delivery), with the origin's bytes or one of the
 * injected errors; no block is left in flight, no permit held or run queued, no staging buffer or slab slot leaked.
 * Both landings are covered: staged GETs, and GETs landing in slots the store reserves.
 */
class SingleFlightStressTest
{
    private static final int BLOCK = 4096;
    private static final int OBJECTS = 4;
    private static final int OBJECT_BLOCKS = 24;
    /** The last block is short. */
    private static final long OBJECT_SIZE = OBJECT_BLOCKS * (long) BLOCK - 100;
    private static final long TIMEOUT_MS = 80;
    private static final int READERS = 4;
    private static final long RUN_MS = 1_500;

    @Test
    void stagedGets()
    {
        for (final long seed : new long[] {1, 2, 3})
        {
            stress(seed, false);
        }
    }

    @Test
    void getsLandingInReservedSlots()
    {
        for (final long seed : new long[] {11, 12, 13})
        {
            stress(seed, true);
        }
    }

    private static void stress(final long seed, final boolean landInSlots)
    {
        final ScheduledExecutorService timer = Executors.newScheduledThreadPool(2);
        final ChaosOrigin origin = new ChaosOrigin(seed, landInSlots, timer);
        final ReservingStore store = new ReservingStore(12L * BLOCK, BLOCK, landInSlots);
        final BlockLookup lookup = (blockKey, expected) ->
        {
            final BlockRef ref = store.acquire(blockKey);
            if (ref != null && expected >= 0 && ref.length() != expected)
            {
                ref.release();
                return null;
            }
            return ref;
        };
        final Queue<Waiter> waiters = new ConcurrentLinkedQueue<>();
        final Queue<String> problems = new ConcurrentLinkedQueue<>();
        final Counts counts = new Counts();
        try (RangeMetrics metrics = new RangeMetrics())
        {
            final BlockFetcher fetcher = new BlockFetcher(origin, store, metrics, BLOCK, 3 * BLOCK, 3, 1,
                TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS), timer);
            final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RUN_MS);
            final List<Thread> readers = new ArrayList<>();
            for (int r = 0; r < READERS; r++)
            {
                final SplittableRandom random = new SplittableRandom(seed * 1000 + r);
                final Thread reader = new Thread(() ->
                    read(fetcher, lookup, random, deadline, waiters, problems, counts), "reader-" + r);
                readers.add(reader);
                reader.start();
            }
            for (final Thread reader : readers)
            {
                join(reader);
            }
            final long settle = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            for (final Waiter waiter : waiters)
            {
                if (!waiter.await(settle))
                {
                    fail("seed " + seed + ": a waiter of block " + waiter.index + " never heard of it (" +
                        fetcher.inFlightBlocks() + " blocks in flight, " + fetcher.fetchPermits().running() +
                        " runs running, " + fetcher.fetchPermits().queued() + " queued)");
                }
            }
            assertTrue(problems.isEmpty(), () -> "seed " + seed + ": " + problems);
            for (final Waiter waiter : waiters)
            {
                assertEquals(1, waiter.heard.get(), "each waiter hears once");
            }
            // a fetch is forgotten right after its waiters heard of it, on the completing thread: give it a moment
            awaitZero(fetcher::inFlightBlocks, settle, "no block left in flight");
            awaitZero(() -> fetcher.fetchPermits().running(), settle, "no permit held");
            awaitZero(() -> fetcher.fetchPermits().queued(), settle, "no run queued");
            // a GET that timed out still owns its buffer or slots until the origin's late answer comes
            origin.awaitQuiet(settle);
            fetcher.close();
            awaitZero(() -> fetcher.staging().liveBuffers(), settle, "staging buffers leaked");
            assertTrue(counts.owned.get() > 0 && counts.joined.get() > 0 && counts.served.get() > 0,
                () -> "every path taken: " + counts);
            assertTrue(counts.failed.get() > 0 && counts.delivered.get() > 0, () -> "both endings: " + counts);
            assertTrue(store.evictionCount() > 0, "the store evicted");
            if (landInSlots)
            {
                assertTrue(store.reserved.get() > 0, "GETs landed in reserved slots");
            }
        }
        finally
        {
            timer.shutdownNow();
            store.close();
        }
        assertEquals(0, store.slab().liveSlots(), "no slab slot leaked");
    }

    /** One reader: rounds of claims of a run of blocks, until the deadline. */
    private static void read(
        final BlockFetcher fetcher, final BlockLookup lookup, final SplittableRandom random, final long deadline,
        final Queue<Waiter> all, final Queue<String> problems, final Counts counts)
    {
        final AtomicBoolean sendAsked = new AtomicBoolean();
        final Runnable sendRequest = () -> sendAsked.set(true);
        while (System.nanoTime() < deadline)
        {
            final int object = random.nextInt(OBJECTS);
            final String key = "o" + object;
            final FetchClass fetchClass = random.nextInt(4) == 0 ? FetchClass.PREFETCH : FetchClass.DEMAND;
            final boolean bypass = random.nextInt(8) == 0;
            final boolean keepsRunsOpen = random.nextBoolean();
            final boolean cancels = random.nextInt(6) == 0;
            // as if the reader had looked just before a fetch stored the block: single flight's second look serves it
            final boolean staleLook = random.nextInt(5) == 0;
            final RunAssembler runs = fetcher.assembler(key, OBJECT_SIZE, null, false, null);
            final long first = random.nextInt(OBJECT_BLOCKS);
            final int count = (int) Math.min(1 + random.nextInt(6), OBJECT_BLOCKS - first);
            final List<Waiter> round = new ArrayList<>();
            for (long index = first; index < first + count; index++)
            {
                final long blockKey = BlockKeys.pack(object + 1, index);
                final int length = (int) Math.min(BLOCK, OBJECT_SIZE - index * BLOCK);
                if (!bypass && !staleLook)
                {
                    final BlockRef ref = lookup.acquire(blockKey, length);
                    if (ref != null)
                    {
                        try
                        {
                            check(object, index, ref.buffer(), 0, ref.length(), length, problems);
                        }
                        finally
                        {
                            ref.release();
                        }
                        counts.hits.incrementAndGet();
                        continue;
                    }
                }
                final Waiter waiter = new Waiter(object, index, length, problems, counts);
                all.add(waiter);
                round.add(waiter);
                final BlockFetch owned = fetcher.claim(waiter, blockKey, index, length, fetchClass,
                    bypass ? null : lookup, keepsRunsOpen ? sendRequest : null);
                if (owned != null)
                {
                    counts.owned.incrementAndGet();
                    if (waiter.fetch != owned || !waiter.owner)
                    {
                        problems.add("the owner was not told it owns the fetch it got");
                    }
                    runs.add(owned);
                }
                else if (waiter.owner)
                {
                    counts.served.incrementAndGet();
                }
                else
                {
                    counts.joined.incrementAndGet();
                }
                if (!keepsRunsOpen || sendAsked.getAndSet(false) || random.nextInt(5) == 0)
                {
                    runs.submit();
                }
            }
            // the protocol's one duty of an owner: every owned block is sent, whether or not the owner still listens
            runs.submit();
            sendAsked.set(false);
            if (!cancels)
            {
                final long roundDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                for (final Waiter waiter : round)
                {
                    if (!waiter.await(roundDeadline))
                    {
                        problems.add("a round's waiter of block " + waiter.index + " hung");
                        return;
                    }
                }
            }
        }
    }

    private static void check(
        final int object, final long index, final DirectBuffer source, final int offset, final int length,
        final int expected, final Queue<String> problems)
    {
        if (length != expected)
        {
            problems.add("block " + index + " of o" + object + ": " + length + " bytes, expected " + expected);
            return;
        }
        for (int i = 0; i < length; i++)
        {
            if (source.getByte(offset + i) != ChaosOrigin.byteAt(object, index * BLOCK + i))
            {
                problems.add("block " + index + " of o" + object + ": wrong byte at " + i);
                return;
            }
        }
    }

    private static void join(final Thread thread)
    {
        try
        {
            thread.join(TimeUnit.SECONDS.toMillis(60));
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new AssertionError(ex);
        }
        if (thread.isAlive())
        {
            fail(thread.getName() + " hung");
        }
    }

    private static void awaitZero(final java.util.function.IntSupplier value, final long deadline, final String what)
    {
        while (value.getAsInt() != 0 && System.nanoTime() < deadline)
        {
            Thread.onSpinWait();
        }
        assertEquals(0, value.getAsInt(), what);
    }

    private static final class Counts
    {
        final AtomicInteger hits = new AtomicInteger();
        final AtomicInteger owned = new AtomicInteger();
        final AtomicInteger joined = new AtomicInteger();
        final AtomicInteger served = new AtomicInteger();
        final AtomicInteger delivered = new AtomicInteger();
        final AtomicInteger failed = new AtomicInteger();

        @Override
        public String toString()
        {
            return "hits " + hits + ", owned " + owned + ", joined " + joined + ", served at the second look " +
                served + ", delivered " + delivered + ", failed " + failed;
        }
    }

    /** One reader's wait for one block: what it was told, and what it heard (errors swallowed by the fetch). */
    private static final class Waiter implements BlockWaiter
    {
        final int object;
        final long index;
        final int length;
        final Queue<String> problems;
        final Counts counts;
        final AtomicInteger heard = new AtomicInteger();
        final CountDownLatch done = new CountDownLatch(1);
        volatile BlockFetch fetch;
        volatile boolean owner;

        Waiter(final int object, final long index, final int length, final Queue<String> problems, final Counts counts)
        {
            this.object = object;
            this.index = index;
            this.length = length;
            this.problems = problems;
            this.counts = counts;
        }

        @Override
        public void waitsOn(final long blockIndex, final BlockFetch blockFetch, final boolean isOwner)
        {
            if (blockIndex != index || blockFetch.blockIndex() != index)
            {
                problems.add("told of the wrong block");
            }
            fetch = blockFetch;
            owner = isOwner;
        }

        @Override
        public void onBlock(final long blockIndex, final DirectBuffer source, final int offset, final int blockLength)
        {
            heard(blockIndex);
            check(object, blockIndex, source, offset, blockLength, length, problems);
            counts.delivered.incrementAndGet();
            done.countDown();
        }

        @Override
        public void onBlockFailed(final long blockIndex, final Throwable cause)
        {
            heard(blockIndex);
            if (!(cause instanceof OriginTimeoutException || cause instanceof ShortReadException ||
                cause instanceof OriginException && String.valueOf(cause.getMessage()).contains("injected")))
            {
                problems.add("block " + blockIndex + " failed with an error nobody injected: " + cause);
            }
            counts.failed.incrementAndGet();
            done.countDown();
        }

        @Override
        public void onBlockPastEnd(final long blockIndex, final long objectSize)
        {
            heard(blockIndex);
            problems.add("block " + blockIndex + " past the end of an object of known size");
            done.countDown();
        }

        private void heard(final long blockIndex)
        {
            if (fetch == null)
            {
                problems.add("block " + blockIndex + " heard of before the waiter was told what it waits on");
            }
            if (blockIndex != index)
            {
                problems.add("heard of block " + blockIndex + ", waits for " + index);
            }
            if (heard.incrementAndGet() > 1)
            {
                problems.add("block " + blockIndex + " heard of twice");
            }
        }

        boolean await(final long deadline)
        {
            try
            {
                return done.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }

    /** The test's slab store, which in slot mode also reserves slots so GETs land in them. */
    private static final class ReservingStore implements BlockStore
    {
        final SlabBlockStore slabStore;
        final boolean reserves;
        final AtomicInteger reserved = new AtomicInteger();

        ReservingStore(final long capacityBytes, final int slotSize, final boolean reserves)
        {
            this.slabStore = new SlabBlockStore(capacityBytes, slotSize);
            this.reserves = reserves;
        }

        BlockSlab slab()
        {
            return slabStore.slab();
        }

        long evictionCount()
        {
            return slabStore.evictionCount();
        }

        @Override
        public BlockRef acquire(final long blockKey)
        {
            return slabStore.acquire(blockKey);
        }

        @Override
        public boolean put(
            final long blockKey, final DirectBuffer source, final int offset, final int length,
            final FetchClass fetchClass)
        {
            return slabStore.put(blockKey, source, offset, length, fetchClass);
        }

        @Override
        public BlockRef reserve(final long blockKey, final FetchClass fetchClass)
        {
            if (!reserves)
            {
                return null;
            }
            final BlockRef slot = slab().tryAllocate();
            if (slot != null)
            {
                reserved.incrementAndGet();
            }
            return slot;
        }

        @Override
        public long sizeBytes()
        {
            return slabStore.sizeBytes();
        }

        @Override
        public void close()
        {
            slabStore.close();
        }
    }

    /**
     * An origin of a few objects of known content whose answers come inline, later on a timer, after the fetch's
     * deadline, short, or not at all (an injected failure), at random.
     */
    private static final class ChaosOrigin implements ObjectStore
    {
        private final long seed;
        private final boolean readsBlocks;
        private final ScheduledExecutorService timer;
        private final AtomicLong calls = new AtomicLong();
        private final AtomicInteger running = new AtomicInteger();

        ChaosOrigin(final long seed, final boolean readsBlocks, final ScheduledExecutorService timer)
        {
            this.seed = seed;
            this.readsBlocks = readsBlocks;
            this.timer = timer;
        }

        static byte byteAt(final int object, final long position)
        {
            return (byte) (position * 131 + object * 7 + (position >>> 10));
        }

        void awaitQuiet(final long deadline)
        {
            awaitZero(running::get, deadline, "origin calls still running");
        }

        @Override
        public String namespace()
        {
            return "chaos";
        }

        @Override
        public CompletableFuture<Integer> readIfMatch(
            final String key, final long offset, final ByteBuffer destination, final String ifMatch)
        {
            return read(key, offset, destination);
        }

        @Override
        public void close()
        {
        }

        @Override
        public CompletableFuture<Long> size(final String key)
        {
            return CompletableFuture.completedFuture(OBJECT_SIZE);
        }

        @Override
        public CompletableFuture<Integer> read(
            final String key, final long offset, final ByteBuffer destination, final FetchClass fetchClass,
            final LongConsumer objectSize)
        {
            return answer(key, offset, new ByteBuffer[] {destination}, null);
        }

        @Override
        public boolean readsBlocks()
        {
            return readsBlocks;
        }

        @Override
        public CompletableFuture<Integer> readBlocks(
            final String key, final long offset, final ByteBuffer[] destinations, final FetchClass fetchClass,
            final LongConsumer objectSize, final BlockProgress progress)
        {
            return answer(key, offset, destinations, progress);
        }

        private CompletableFuture<Integer> answer(
            final String key, final long offset, final ByteBuffer[] destinations, final BlockProgress progress)
        {
            final SplittableRandom random = new SplittableRandom(seed * 31 + calls.incrementAndGet());
            final int fate = random.nextInt(100);
            final int object = Integer.parseInt(key.substring(1));
            final CompletableFuture<Integer> answer = new CompletableFuture<>();
            running.incrementAndGet();
            answer.whenComplete((bytes, error) -> running.decrementAndGet());
            final Runnable fill = () ->
            {
                if (fate < 6)
                {
                    answer.completeExceptionally(new OriginException("injected failure of '" + key + "'"));
                    return;
                }
                long position = offset;
                int total = 0;
                // a short answer stops halfway through the last destination
                for (int d = 0; d < destinations.length; d++)
                {
                    final ByteBuffer target = destinations[d];
                    int n = (int) Math.max(0, Math.min(target.remaining(), OBJECT_SIZE - position));
                    if (fate < 10 && d == destinations.length - 1)
                    {
                        n /= 2;
                    }
                    for (int i = 0; i < n; i++)
                    {
                        target.put(target.position() + i, byteAt(object, position + i));
                    }
                    position += n;
                    total += n;
                    if (null != progress)
                    {
                        progress.filled(d, n);
                    }
                }
                answer.complete(total);
            };
            if (fate >= 10 && fate < 14)
            {
                timer.schedule(fill, TIMEOUT_MS * 3 / 2, TimeUnit.MILLISECONDS);
            }
            else if (fate < 40)
            {
                fill.run();
            }
            else
            {
                timer.schedule(fill, random.nextInt(400), TimeUnit.MICROSECONDS);
            }
            return answer;
        }

        @Override
        public CompletableFuture<String> version(final String key)
        {
            return CompletableFuture.completedFuture("v");
        }

        @Override
        public CompletableFuture<Void> put(final String key, final ByteBuffer source)
        {
            return CompletableFuture.failedFuture(new UnsupportedOperationException());
        }

        @Override
        public CompletableFuture<Void> delete(final String key)
        {
            return CompletableFuture.failedFuture(new UnsupportedOperationException());
        }

        @Override
        public CompletableFuture<List<String>> list(final String prefix)
        {
            return CompletableFuture.failedFuture(new UnsupportedOperationException());
        }
    }
}
