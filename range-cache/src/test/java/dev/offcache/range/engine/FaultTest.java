package dev.offcache.range.engine;

import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import dev.offcache.range.metrics.CacheStats;
import dev.offcache.range.metrics.MetricNames;
import dev.offcache.range.metrics.StoreFallback;
import dev.offcache.range.origin.ObjectNotFoundException;
import dev.offcache.range.origin.OriginException;
import dev.offcache.range.origin.OriginTimeoutException;
import dev.offcache.range.origin.ShortReadException;
import dev.offcache.range.testing.EngineFixture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Origin and store faults: a clear error for the reader, nothing wrong cached, the next read succeeds.
 */
class FaultTest
{
    private static final int BLOCK = 4096;

    @Test
    void originFailureFailsTheReadCachesNothingAndTheNextReadSucceeds()
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 64L * BLOCK, (b) -> b))
        {
            final byte[] expected = f.object("x", 3 * BLOCK, 1);
            f.origin.failNextGets(1);
            final OriginException error = assertThrows(OriginException.class, () -> f.read("x", 0, 3 * BLOCK));
            assertTrue(error.getMessage().contains("'x'"), error.getMessage());
            assertEquals(0, f.store.sizeBytes());
            assertEquals(0, f.cache.fetcher().inFlightBlocks());
            assertArrayEquals(expected, f.read("x", 0, 3 * BLOCK));
            assertEquals(2, f.origin.gets());
            assertEquals(1, f.cache.metrics().value(MetricNames.ORIGIN_ERRORS));
        }
    }

    @Test
    void shortOriginDataIsAnErrorNeverAShortBlock()
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 64L * BLOCK, (b) -> b))
        {
            final byte[] expected = f.object("short", 2 * BLOCK, 2);
            f.origin.shortNextGets(1);
            final ShortReadException error = assertThrows(ShortReadException.class, () -> f.read("short", 0, 10));
            assertTrue(error.getMessage().contains("expected " + BLOCK + " bytes"), error.getMessage());
            assertEquals(0, f.store.sizeBytes());
            assertArrayEquals(expected, f.read("short", 0, 2 * BLOCK));
            assertEquals(2L * BLOCK, f.store.sizeBytes());
        }
    }

    @Test
    void stalledOriginFailsEveryWaiterWithTheSameTimeoutAndRecovers() throws Exception
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 64L * BLOCK, (b) -> b.originTimeout(Duration.ofMillis(300))))
        {
            final byte[] expected = f.object("stall", BLOCK, 3);
            f.cache.size("stall");
            final CompletableFuture<Void> gate = f.origin.gateGets((key) -> true);
            final List<CompletableFuture<Void>> reads = new ArrayList<>();
            for (int i = 0; i < 3; i++)
            {
                reads.add(f.cache.readAsync("stall", 0, new UnsafeBuffer(new byte[BLOCK]), 0, BLOCK, false));
            }
            final long start = System.nanoTime();
            final List<Throwable> causes = new ArrayList<>();
            for (final CompletableFuture<Void> read : reads)
            {
                final ExecutionException error = assertThrows(ExecutionException.class,
                    () -> read.get(10, TimeUnit.SECONDS));
                causes.add(error.getCause());
            }
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5));
            assertInstanceOf(OriginTimeoutException.class, causes.get(0));
            assertSame(causes.get(0), causes.get(1), "every waiter gets the same error");
            assertSame(causes.get(0), causes.get(2));
            assertEquals(1, f.origin.gets());
            assertEquals(0, f.store.sizeBytes());

            // The stalled GET's staging buffer is held until the origin lets go of it.
            gate.complete(null);
            assertArrayEquals(expected, f.read("stall", 0, BLOCK));
            assertEquals(2, f.origin.gets());
        }
    }

    @Test
    void aCallerThatGivesUpDoesNotStrandOthersAndItsBufferIsLeftAlone() throws Exception
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 64L * BLOCK, (b) -> b))
        {
            final byte[] expected = f.object("giveup", 2 * BLOCK, 4);
            f.cache.size("giveup");
            final CompletableFuture<Void> gate = f.origin.gateGets((key) -> true);
            final UnsafeBuffer impatient = new UnsafeBuffer(new byte[2 * BLOCK]);
            final CompletableFuture<Void> first = f.cache.readAsync("giveup", 0, impatient, 0, 2 * BLOCK, false)
                .orTimeout(50, TimeUnit.MILLISECONDS);
            final UnsafeBuffer patient = new UnsafeBuffer(new byte[2 * BLOCK]);
            final CompletableFuture<Void> second = f.cache.readAsync("giveup", 0, patient, 0, 2 * BLOCK, false);
            final ExecutionException error = assertThrows(ExecutionException.class,
                () -> first.get(10, TimeUnit.SECONDS));
            assertInstanceOf(TimeoutException.class, error.getCause());

            gate.complete(null);
            second.get(10, TimeUnit.SECONDS);
            assertArrayEquals(expected, patient.byteArray());
            assertArrayEquals(new byte[2 * BLOCK], impatient.byteArray(), "nothing written after giving up");
            assertEquals(1, f.origin.gets());
        }
    }

    @Test
    void storeFailuresFallBackToTheOriginAndNeverFailTheRead()
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 64L * BLOCK, (b) -> b))
        {
            final byte[] expected = f.object("fb", 3 * BLOCK, 5);
            f.store.failing(true);
            assertArrayEquals(expected, f.read("fb", 0, 3 * BLOCK));
            assertArrayEquals(expected, f.read("fb", 0, 3 * BLOCK));
            assertEquals(2, f.origin.gets());
            final CacheStats stats = f.cache.stats();
            assertTrue(stats.fallbackCount() >= 6, "3 probes + 3 puts per read");
            assertTrue(stats.fallbacks().get(StoreFallback.STORE_ERROR) >= 3, stats.toString());
            assertTrue(stats.fallbacks().get(StoreFallback.PUT_ERROR) >= 3, stats.toString());

            f.store.failing(false);
            assertArrayEquals(expected, f.read("fb", 0, 3 * BLOCK));
            assertArrayEquals(expected, f.read("fb", 0, 3 * BLOCK));
            assertEquals(3, f.origin.gets(), "healthy again: cached after one more GET");
        }
    }

    @Test
    void missingObjectIsNotFoundAndNotRemembered() throws Exception
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 64L * BLOCK, (b) -> b))
        {
            final ObjectNotFoundException error = assertThrows(ObjectNotFoundException.class,
                () -> f.read("later", 0, 1));
            assertTrue(error.getMessage().contains("'later'"), error.getMessage());
            final byte[] expected = f.object("later", BLOCK, 6);
            assertArrayEquals(expected, f.read("later", 0, BLOCK));
            assertEquals(2, f.origin.heads());
            assertTrue(Files.exists(f.root.resolve("later")));
        }
    }

    @Test
    void implausibleSizeIsAnErrorNotAnEntry()
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 64L * BLOCK, (b) -> b))
        {
            final byte[] expected = f.object("huge", BLOCK, 7);
            f.origin.fakeSize((1L << 48) + 1);
            final OriginException error = assertThrows(OriginException.class, () -> f.cache.size("huge"));
            assertTrue(error.getMessage().contains("implausible"), error.getMessage());
            f.origin.fakeSize(-1);
            assertArrayEquals(expected, f.read("huge", 0, BLOCK));
            assertEquals(2, f.origin.heads());
        }
    }
}
