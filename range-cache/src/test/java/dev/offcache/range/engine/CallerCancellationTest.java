package dev.offcache.range.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import dev.offcache.range.testing.CountingOrigin;
import dev.offcache.range.testing.EngineFixture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A caller that gives up (an interrupted thread, a cancelled future) only stops listening: in both phases of a
 * read (the shared size lookup and the shared GET) every other caller of the same key still gets its bytes.
 */
class CallerCancellationTest
{
    private static final int BLOCK = 4096;
    private static final int READERS = 16;

    @Test
    void anInterruptedReaderDuringTheSharedSizeLookupFailsOnlyItself() throws Exception
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 64L * BLOCK, (b) -> b))
        {
            final byte[] expected = f.object("k", 3 * BLOCK, 7);
            final CompletableFuture<Void> heads = f.origin.gateHeads();
            interruptOneOf(f, heads, expected, () -> f.origin.heads() == 1);
            assertEquals(1, f.origin.heads(), "one HEAD shared by every reader");
        }
    }

    @Test
    void anInterruptedReaderDuringTheSharedGetFailsOnlyItself() throws Exception
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 64L * BLOCK, (b) -> b))
        {
            final byte[] expected = f.object("k", 3 * BLOCK, 8);
            f.cache.size("k");
            final CompletableFuture<Void> gets = f.origin.gateGets((key) -> true);
            interruptOneOf(f, gets, expected, () -> f.origin.gets() >= 1);
            assertEquals(3L * BLOCK, f.origin.log().stream().mapToLong(CountingOrigin.Get::length).sum(),
                "each block fetched once for every reader");
        }
    }

    @Test
    void cancellingOnesOwnSizeFutureLeavesTheLookupToTheOthers() throws Exception
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 64L * BLOCK, (b) -> b))
        {
            f.object("k", 3 * BLOCK + 5, 9);
            final CompletableFuture<Void> heads = f.origin.gateHeads();
            final CompletableFuture<Long> mine = f.cache.sizeAsync("k");
            final CompletableFuture<Long> theirs = f.cache.sizeAsync("k");
            assertTrue(mine.cancel(true));
            final CompletableFuture<Long> later = f.cache.sizeAsync("k");
            heads.complete(null);
            assertEquals(3L * BLOCK + 5, theirs.get(10, TimeUnit.SECONDS));
            assertEquals(3L * BLOCK + 5, later.get(10, TimeUnit.SECONDS));
            assertEquals(3L * BLOCK + 5, f.cache.size("k"));
            assertEquals(1, f.origin.heads());
            assertThrows(CancellationException.class, mine::join);
        }
    }

    @Test
    void cancellingOnesOwnReadFutureLeavesTheGetToTheOthers() throws Exception
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 64L * BLOCK, (b) -> b))
        {
            final byte[] expected = f.object("k", 2 * BLOCK, 10);
            final CompletableFuture<Void> heads = f.origin.gateHeads();
            final UnsafeBuffer mine = new UnsafeBuffer(new byte[2 * BLOCK]);
            final UnsafeBuffer theirs = new UnsafeBuffer(new byte[2 * BLOCK]);
            final CompletableFuture<Void> cancelled = f.cache.readAsync("k", 0, mine, 0, 2 * BLOCK, false);
            final CompletableFuture<Void> kept = f.cache.readAsync("k", 0, theirs, 0, 2 * BLOCK, false);
            assertTrue(cancelled.cancel(true));
            heads.complete(null);
            kept.get(10, TimeUnit.SECONDS);
            assertArrayEquals(expected, theirs.byteArray());
            assertArrayEquals(new byte[2 * BLOCK], mine.byteArray(), "nothing written after cancelling");
        }
    }

    @Test
    void forcingOnesOwnReadFutureWithObtrudeValueStopsTheCopies() throws Exception
    {
        forcedCompletionStopsTheCopies((future) -> future.obtrudeValue(null));
    }

    @Test
    void forcingOnesOwnReadFutureWithObtrudeExceptionStopsTheCopies() throws Exception
    {
        forcedCompletionStopsTheCopies((future) -> future.obtrudeException(new IllegalStateException("given up")));
    }

    @Test
    void completingOnesOwnReadFutureAsynchronouslyStopsTheCopies() throws Exception
    {
        forcedCompletionStopsTheCopies((future) -> future.completeAsync(() -> null, Runnable::run));
    }

    /**
     * A read whose GET is in flight is completed by its caller through {@code force}; when the GET then lands (and
     * another reader gets its bytes), nothing is written into the first caller's buffer.
     */
    private static void forcedCompletionStopsTheCopies(final Consumer<CompletableFuture<Void>> force)
        throws Exception
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 64L * BLOCK, (b) -> b))
        {
            final byte[] expected = f.object("k", 2 * BLOCK, 11);
            f.cache.size("k");
            final CompletableFuture<Void> gets = f.origin.gateGets((key) -> true);
            final UnsafeBuffer mine = new UnsafeBuffer(new byte[2 * BLOCK]);
            final UnsafeBuffer theirs = new UnsafeBuffer(new byte[2 * BLOCK]);
            final CompletableFuture<Void> forced = f.cache.readAsync("k", 0, mine, 0, 2 * BLOCK, false);
            final CompletableFuture<Void> kept = f.cache.readAsync("k", 0, theirs, 0, 2 * BLOCK, false);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (f.origin.gets() == 0 && System.nanoTime() < deadline)
            {
                Thread.onSpinWait();
            }
            assertEquals(1, f.origin.gets(), "the first read's GET is in flight");
            force.accept(forced);
            assertTrue(forced.isDone());
            gets.complete(null);
            kept.get(10, TimeUnit.SECONDS);
            assertArrayEquals(expected, theirs.byteArray());
            // every waiter of the fetch has been called once the fetcher forgot its blocks
            while (f.cache.fetcher().inFlightBlocks() != 0 && System.nanoTime() < deadline)
            {
                Thread.onSpinWait();
            }
            assertEquals(0, f.cache.fetcher().inFlightBlocks());
            assertArrayEquals(new byte[2 * BLOCK], mine.byteArray(), "nothing written after the caller completed it");
        }
    }

    /**
     * Starts {@link #READERS} blocking readers held at {@code gate}, interrupts one of them, opens the gate and
     * checks that exactly that one failed (with a cancellation, its interrupt flag kept) and every other reader,
     * and a reader arriving after the interrupt, got the origin's bytes.
     */
    private static void interruptOneOf(
        final EngineFixture f,
        final CompletableFuture<Void> gate,
        final byte[] expected,
        final BooleanSupplier gateReached) throws Exception
    {
        final ExecutorService pool = Executors.newFixedThreadPool(READERS + 1);
        try
        {
            final CountDownLatch started = new CountDownLatch(READERS);
            final AtomicReference<Thread> victim = new AtomicReference<>();
            final AtomicReference<Boolean> victimKeptInterrupt = new AtomicReference<>();
            final List<Future<byte[]>> reads = new ArrayList<>();
            for (int i = 0; i < READERS; i++)
            {
                final boolean isVictim = i == 0;
                reads.add(pool.submit(() ->
                {
                    if (isVictim)
                    {
                        victim.set(Thread.currentThread());
                    }
                    started.countDown();
                    try
                    {
                        return f.read("k", 0, expected.length);
                    }
                    finally
                    {
                        if (isVictim)
                        {
                            victimKeptInterrupt.set(Thread.interrupted());
                        }
                    }
                }));
            }
            assertTrue(started.await(10, TimeUnit.SECONDS));
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!gateReached.getAsBoolean() && System.nanoTime() < deadline)
            {
                Thread.onSpinWait();
            }
            assertTrue(gateReached.getAsBoolean(), "the readers reached the origin");
            // Let every reader block on the shared future before one of them is interrupted.
            waitUntilWaiting(pool, reads, victim.get());
            victim.get().interrupt();
            final ExecutionException failure = assertThrows(
                ExecutionException.class, () -> reads.get(0).get(10, TimeUnit.SECONDS));
            assertInstanceOf(CancellationException.class, failure.getCause());
            assertEquals(Boolean.TRUE, victimKeptInterrupt.get(), "the interrupt flag is kept");
            final Future<byte[]> late = pool.submit(() -> f.read("k", 0, expected.length));
            gate.complete(null);
            for (int i = 1; i < READERS; i++)
            {
                assertArrayEquals(expected, reads.get(i).get(10, TimeUnit.SECONDS), "reader " + i);
            }
            assertArrayEquals(expected, late.get(10, TimeUnit.SECONDS), "a reader arriving after the interrupt");
        }
        finally
        {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
        }
    }

    private static void waitUntilWaiting(
        final ExecutorService pool, final List<Future<byte[]>> reads, final Thread victim) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline)
        {
            final Thread.State state = victim.getState();
            if (state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING)
            {
                return;
            }
            Thread.sleep(1);
        }
        throw new AssertionError("the victim never blocked on its read; pool " + pool + ", reads " + reads.size());
    }
}
