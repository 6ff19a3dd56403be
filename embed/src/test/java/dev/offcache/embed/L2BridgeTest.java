package dev.offcache.embed;

import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongConsumer;

import org.junit.jupiter.api.Test;

import dev.offcache.range.engine.RangeCache;
import dev.offcache.range.ram.RamBlockStore;
import dev.offcache.range.metrics.ReadStatistics;
import dev.offcache.range.origin.ForwardingObjectStore;
import dev.offcache.range.origin.OriginException;
import dev.offcache.range.store.FetchClass;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The bridge's rules against a scripted L2 client (the real servers are in {@code hadoop-fs}'s
 * {@code OffcacheL2Test}): which reads go to L2 and under which key, no HEAD, each answer's size checked, mismatches
 * and failures read from the source with exact bytes, and what is remembered.
 */
class L2BridgeTest
{
    private static final URI FILE = URI.create("s3a://lake/t/part-0.bin");
    private static final int LENGTH = 10_000;

    private final byte[] file = new byte[LENGTH];
    private final AtomicInteger sourceReads = new AtomicInteger();
    private final OriginRouter router = new OriginRouter();
    private final Scripted client = new Scripted();
    private final L2Bridge bridge;
    private volatile Throwable sourceThrows;

    L2BridgeTest()
    {
        for (int i = 0; i < file.length; i++)
        {
            file[i] = (byte) (i * 7 + 3);
        }
        final EngineOrigin source = (location, length, offset, destination) ->
        {
            sourceReads.incrementAndGet();
            if (sourceThrows != null)
            {
                throw sneaky(sourceThrows);
            }
            final int n = destination.remaining();
            destination.put(file, (int) offset, n);
            return CompletableFuture.completedFuture(n);
        };
        router.register("s3a/lake", source);
        router.register("s3a/other", source);
        final L2Settings settings = L2Settings.from(Map.of(L2Settings.SERVERS, "http://l2:8080",
            L2Settings.API_KEY, "k", L2Settings.LOCATIONS, "s3a://lake/")::get, (name) -> null);
        bridge = new L2Bridge(router, settings, client);
    }

    private byte[] read(final URI location, final long offset, final int n)
    {
        final String key = CacheKeys.key(location, LENGTH, CacheKeys.mtimeVersion(1));
        final ByteBuffer destination = ByteBuffer.allocateDirect(n);
        assertEquals(n, bridge.read(key, offset, destination, FetchClass.DEMAND, null).join());
        final byte[] got = new byte[n];
        destination.get(got);
        return got;
    }

    private byte[] expected(final int offset, final int n)
    {
        return java.util.Arrays.copyOfRange(file, offset, offset + n);
    }

    @Test
    void aFileUnderTheRootIsReadFromL2ByItsServerKeyWithoutAHead()
    {
        for (int i = 0; i < 5; i++)
        {
            assertArrayEquals(expected(i * 1000, 1000), read(FILE, i * 1000, 1000));
        }
        assertEquals(List.of(), client.sizeKeys, "no HEAD: each answer's reported size is checked");
        assertEquals(5, client.readKeys.size());
        assertEquals("t/part-0.bin", client.readKeys.get(0));
        assertEquals(0, sourceReads.get());
        assertEquals(5, bridge.hits());
        assertEquals(5000, bridge.bytes());
    }

    @Test
    void aFileElsewhereIsReadFromTheSourceAndL2IsNotAsked()
    {
        assertArrayEquals(expected(0, 100), read(URI.create("s3a://other/t/part-0.bin"), 0, 100));
        assertEquals(0, client.sizeKeys.size() + client.readKeys.size());
        assertEquals(1, bridge.unmapped());
        assertEquals(1, sourceReads.get());
    }

    @Test
    void aSizeOtherThanTheAdaptersLengthSendsTheFileToTheSourceForGood()
    {
        client.size = LENGTH + 1;
        assertArrayEquals(expected(0, 100), read(FILE, 0, 100));
        assertArrayEquals(expected(100, 100), read(FILE, 100, 100));
        assertEquals(1, client.readKeys.size(), "the verdict is remembered: the second read skips L2");
        assertEquals(0, client.sizeKeys.size());
        assertEquals(1, bridge.sizeMismatches());
        assertEquals(0, bridge.hits(), "the first answer's bytes were replaced by the source's");
        assertEquals(1, bridge.unverified());
        assertEquals(2, sourceReads.get());
    }

    @Test
    void anAnswerShorterThanExpectedIsAMismatchAndItsBytesAreReplacedBySourceBytes()
    {
        client.shortBy = 10;
        assertArrayEquals(expected(500, 1000), read(FILE, 500, 1000));
        assertEquals(1, bridge.sizeMismatches());
        assertEquals(0, bridge.hits());
        assertArrayEquals(expected(0, 1000), read(FILE, 0, 1000));
        assertEquals(1, client.readKeys.size(), "the file no longer goes to L2");
        assertEquals(2, sourceReads.get());
    }

    @Test
    void aFailedL2ReadIsServedByTheSourceAndTheNextOneTriesL2Again()
    {
        client.failReads = 1;
        assertArrayEquals(expected(0, 1000), read(FILE, 0, 1000));
        assertEquals(1, bridge.fallbacks());
        assertEquals(1, sourceReads.get());
        assertArrayEquals(expected(1000, 1000), read(FILE, 1000, 1000));
        assertEquals(2, client.readKeys.size());
        assertEquals(1, bridge.hits());
    }

    @Test
    void anAnswerWithoutASizeIsServedByTheSourceAndNotRemembered()
    {
        client.unsizedReads = 1;
        assertArrayEquals(expected(0, 1000), read(FILE, 0, 1000));
        assertEquals(1, bridge.unverified());
        assertEquals(0, bridge.hits());
        assertEquals(1, sourceReads.get());
        assertArrayEquals(expected(0, 1000), read(FILE, 0, 1000));
        assertEquals(2, client.readKeys.size(), "L2 is asked again");
        assertEquals(1, bridge.hits());
        assertEquals(0, bridge.sizeMismatches());
    }

    @Test
    void theBridgeNeverAsksL2ForMoreThanTheAdaptersFileHolds()
    {
        final String key = CacheKeys.key(FILE, LENGTH, CacheKeys.mtimeVersion(1));
        final ByteBuffer destination = ByteBuffer.allocate(500);
        assertEquals(100, bridge.read(key, LENGTH - 100, destination, FetchClass.DEMAND, null).join());
        assertEquals(List.of(100), client.readLengths);
    }

    @Test
    void anErrorThrownByTheL2ClientIsAFallbackToTheSource()
    {
        client.throwOnRead = new AssertionError("a bug in the client");
        assertArrayEquals(expected(0, 1000), read(FILE, 0, 1000));
        assertEquals(1, bridge.fallbacks());
        assertEquals(1, sourceReads.get());
        assertEquals(0, bridge.hits());
    }

    @Test
    void aSourceThrowingAnErrorOrACheckedExceptionFailsTheReadInsteadOfLeavingItWaiting() throws Exception
    {
        final String key = CacheKeys.key(FILE, LENGTH, CacheKeys.mtimeVersion(1));
        final String elsewhere = CacheKeys.key(URI.create("s3a://other/t/part-0.bin"), LENGTH,
            CacheKeys.mtimeVersion(1));
        for (final Throwable thrown : List.of(new IOException("sneaky"), new AssertionError("a bug in the source")))
        {
            sourceThrows = thrown;
            // after an L2 failure (the source is read from the client's completion) and for a file under no root
            client.failReads = 1;
            for (final String k : List.of(key, elsewhere))
            {
                final CompletableFuture<Integer> read =
                    bridge.read(k, 0, ByteBuffer.allocate(100), FetchClass.DEMAND, null);
                final ExecutionException failure =
                    assertThrows(ExecutionException.class, () -> read.get(10, TimeUnit.SECONDS), k);
                assertSame(thrown, failure.getCause(), k);
            }
        }
    }

    @Test
    void anL2HitIsCountedInTheStatisticsOfTheEngineReadThatSentIt()
    {
        try (RangeCache cache = RangeCache.newBuilder().origin(bridge).l1CapacityBytes(1 << 20)
            .storeFactory(RamBlockStore::create).blockSize(4096).build())
        {
            final String key = CacheKeys.key(FILE, LENGTH, CacheKeys.mtimeVersion(1));
            cache.rememberSize(key, LENGTH);
            final ReadStatistics cold = new ReadStatistics();
            final byte[] got = new byte[LENGTH];
            cache.read(key, 0, got, 0, LENGTH, cold);
            assertArrayEquals(file, got);
            assertEquals(List.of(1L, 1L, (long) LENGTH, (long) LENGTH),
                List.of(cold.originRequests(), cold.l2Hits(), cold.l2Bytes(), cold.originBytes()), cold.toString());
            final ReadStatistics warm = new ReadStatistics();
            cache.read(key, 0, new byte[LENGTH], 0, LENGTH, warm);
            assertEquals(List.of(3L, 0L, 0L), List.of(warm.blockHits(), warm.originRequests(), warm.l2Hits()),
                warm.toString());
            // a file under no root: a request the source served, no L2 hit
            final String other = CacheKeys.key(URI.create("s3a://other/t/part-0.bin"), LENGTH,
                CacheKeys.mtimeVersion(1));
            cache.rememberSize(other, LENGTH);
            final ReadStatistics elsewhere = new ReadStatistics();
            cache.read(other, 0, new byte[100], 0, 100, elsewhere);
            assertEquals(List.of(1L, 0L, 4096L), List.of(elsewhere.originRequests(), elsewhere.l2Hits(),
                elsewhere.originBytes()), elsewhere.toString());
            assertEquals(1, bridge.hits());
        }
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> T sneaky(final Throwable thrown) throws T
    {
        throw (T) thrown;
    }

    /**
     * An L2 client whose answers are scripted: the object is {@code file}, its size {@code size}, reported with each
     * answer as L2's {@code Content-Range} does; reads may come back short, fail, or report no size.
     */
    private final class Scripted extends ForwardingObjectStore
    {
        final List<String> sizeKeys = new ArrayList<>();
        final List<String> readKeys = new ArrayList<>();
        final List<Integer> readLengths = new ArrayList<>();
        long size = LENGTH;
        int shortBy;
        int failReads;
        int unsizedReads;
        Throwable throwOnRead;

        Scripted()
        {
            super(new OriginRouter());
        }

        @Override
        public CompletableFuture<Long> size(final String key)
        {
            sizeKeys.add(key);
            return CompletableFuture.completedFuture(size);
        }

        @Override
        public boolean readsReportSize()
        {
            return true;
        }

        @Override
        public CompletableFuture<Integer> read(
            final String key, final long offset, final ByteBuffer destination, final FetchClass fetchClass,
            final LongConsumer objectSize)
        {
            final CompletableFuture<Integer> read = answer(key, offset, destination);
            if (unsizedReads > 0)
            {
                unsizedReads--;
            }
            else if (!read.isCompletedExceptionally())
            {
                objectSize.accept(size);
            }
            return read;
        }

        private CompletableFuture<Integer> answer(final String key, final long offset, final ByteBuffer destination)
        {
            readKeys.add(key);
            readLengths.add(destination.remaining());
            if (throwOnRead != null)
            {
                throw L2BridgeTest.<RuntimeException>sneaky(throwOnRead);
            }
            if (failReads > 0)
            {
                failReads--;
                // Half a body arrived before the failure: the bridge must not keep it.
                destination.duplicate().put(new byte[destination.remaining() / 2]);
                return CompletableFuture.failedFuture(new OriginException("reset mid-body"));
            }
            final int n = destination.remaining() - shortBy;
            final ByteBuffer target = destination.duplicate();
            for (int i = 0; i < n; i++)
            {
                target.put(shortBy > 0 ? 0 : file[(int) offset + i]);
            }
            return CompletableFuture.completedFuture(n);
        }
    }
}
