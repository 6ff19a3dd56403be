package dev.offcache.embed;

import java.net.URI;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One cache per JVM and settings; reads routed to the registered source by prefix; versions never mixed; the JVM
 * flag check and bad settings.
 */
class JvmCachesTest
{
    private static final CacheSettings SMALL = new CacheSettings(4L << 20, 64 << 10, 1L << 20, 4);

    @AfterEach
    void close()
    {
        JvmCaches.closeAll();
    }

    @Test
    void equalSettingsShareOneCache()
    {
        final SharedCache a = JvmCaches.get(SMALL);
        assertSame(a, JvmCaches.get(new CacheSettings(4L << 20, 64 << 10, 1L << 20, 4)));
        assertNotSame(a, JvmCaches.get(new CacheSettings(8L << 20, 64 << 10, 1L << 20, 4)));
        assertEquals(2, JvmCaches.count());
    }

    @Test
    void aColdReadWithSmallBlocksIsOneSourceReadPerCoalescedGetNotPerEightBlocks()
    {
        // 64 KiB blocks: a read-ahead of 8-block windows would cut a 6 MiB read into 12 reads of 512 KiB.
        final SharedCache shared = JvmCaches.get(new CacheSettings(16L << 20, 64 << 10, 1L << 20, 4));
        final byte[] file = new byte[7 << 20];
        for (int i = 0; i < file.length; i++)
        {
            file[i] = (byte) (i * 13 + (i >>> 16));
        }
        final List<Integer> lengths = new java.util.concurrent.CopyOnWriteArrayList<>();
        shared.router().register("s3a/lake", (location, length, offset, destination) ->
        {
            lengths.add(destination.remaining());
            final int n = destination.remaining();
            destination.put(file, (int) offset, n);
            return CompletableFuture.completedFuture(n);
        });
        final String key = shared.open(URI.create("s3a://lake/t/big.parquet"), file.length, CacheKeys.LENGTH_ONLY);
        final byte[] into = new byte[6 << 20];
        shared.cache().read(key, 1 << 20, into, 0, into.length);
        assertTrue(java.util.Arrays.equals(file, 1 << 20, (1 << 20) + into.length, into, 0, into.length));
        assertEquals(List.of(6 << 20), lengths, "one read of the 6 MiB (under the 8 MiB coalescing cap)");
    }

    @Test
    void readsGoToTheSourceOfTheirPrefixOnceAndARewriteIsANewKey() throws Exception
    {
        final SharedCache shared = JvmCaches.get(SMALL);
        final AtomicInteger reads = new AtomicInteger();
        final byte[] file = new byte[200_000];
        for (int i = 0; i < file.length; i++)
        {
            file[i] = (byte) (i * 31);
        }
        final EngineOrigin source = (location, length, offset, destination) ->
        {
            assertEquals("s3a://lake/t/part-0.parquet", location.toString());
            reads.incrementAndGet();
            final int n = destination.remaining();
            destination.put(file, (int) offset, n);
            return CompletableFuture.completedFuture(n);
        };
        shared.router().register("s3a/lake", source);
        final URI location = URI.create("s3a://lake/t/part-0.parquet");
        final String v1 = shared.open(location, file.length, CacheKeys.mtimeVersion(1));
        final byte[] into = new byte[100_000];
        shared.cache().read(v1, 50_000, into, 0, into.length);
        for (int i = 0; i < into.length; i++)
        {
            assertEquals(file[50_000 + i], into[i]);
        }
        final int cold = reads.get();
        shared.cache().read(v1, 50_000, into, 0, into.length);
        assertEquals(cold, reads.get(), "warm: no source read");
        final String v2 = shared.open(location, file.length, CacheKeys.mtimeVersion(2));
        shared.cache().read(v2, 50_000, into, 0, into.length);
        assertTrue(reads.get() > cold, "a new version is read again");
        assertEquals(0, shared.cache().metrics().value(dev.offcache.range.metrics.MetricNames.ORIGIN_HEADS),
            "sizes come from the keys");

        shared.router().unregister("s3a/lake", source);
        final String other = shared.open(location, file.length, CacheKeys.mtimeVersion(3));
        assertThrows(RuntimeException.class, () -> shared.cache().read(other, 0, ByteBuffer.allocate(10)),
            "no source: the read fails, so the adapter falls back to its own file system");
    }

    @Test
    void missingFlagsAreNamedWithWhereToPutThem()
    {
        final List<String> missing = JvmFlags.missing((pkg) -> !"jdk.internal.misc".equals(pkg));
        assertEquals(List.of("--add-opens java.base/jdk.internal.misc=ALL-UNNAMED"), missing);
        final String message = JvmFlags.message(missing);
        assertTrue(message.contains("spark.executor.extraJavaOptions"), message);
        assertTrue(message.contains("--add-opens java.base/jdk.internal.misc=ALL-UNNAMED"), message);
        assertEquals(List.of(), JvmFlags.missing(), "Surefire runs with offcache.jvm.flags");
    }

    @Test
    void badSettingsNameTheirKey()
    {
        final IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
            () -> CacheSettings.from((k) -> CacheSettings.L1_MB.equals(k) ? "lots" : null));
        assertTrue(bad.getMessage().contains("offcache.l1.mb='lots'"), bad.getMessage());
        final IllegalArgumentException block = assertThrows(IllegalArgumentException.class,
            () -> CacheSettings.from((k) -> CacheSettings.BLOCK_SIZE.equals(k) ? "3000" : null));
        assertTrue(block.getMessage().contains(CacheSettings.BLOCK_SIZE), block.getMessage());
        assertEquals(256 << 10, CacheSettings.from((k) -> CacheSettings.BLOCK_SIZE.equals(k) ? "256K" : null)
            .blockSize());
        assertEquals(CacheSettings.defaults(), CacheSettings.from((k) -> null));
        assertEquals(64 << 10, CacheSettings.from((k) -> CacheSettings.BLOCK_SIZE.equals(k) ? "64K" : null)
            .blockSize());
        assertEquals(512 << 10, CacheSettings.from((k) -> CacheSettings.COALESCE_GAP.equals(k) ? "512K" : null)
            .coalesceGapBytes());
        assertEquals(0, CacheSettings.from((k) -> CacheSettings.COALESCE_GAP.equals(k) ? "0" : null)
            .coalesceGapBytes());
        final IllegalArgumentException gap = assertThrows(IllegalArgumentException.class,
            () -> CacheSettings.from((k) -> CacheSettings.COALESCE_GAP.equals(k) ? "9M" : null));
        assertTrue(gap.getMessage().contains(CacheSettings.COALESCE_GAP), gap.getMessage());
    }

    @Test
    void fetchPermitsReadTheOlderKeyWhenTheirOwnIsUnset()
    {
        assertEquals(8, CacheSettings.from((k) -> CacheSettings.IO_THREADS.equals(k) ? "8" : null).fetchPermits());
        assertEquals(12, CacheSettings.from((k) -> switch (k)
        {
            case CacheSettings.FETCH_PERMITS -> "12";
            case CacheSettings.IO_THREADS -> "8";
            default -> null;
        }).fetchPermits(), "the new key wins");
        assertEquals(16, CacheSettings.from((k) -> null).fetchPermits(), "the engine's L1 default");
        final IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
            () -> CacheSettings.from((k) -> CacheSettings.FETCH_PERMITS.equals(k) ? "1" : null));
        assertTrue(bad.getMessage().contains(CacheSettings.FETCH_PERMITS), bad.getMessage());
        assertEquals(CacheSettings.DEFAULT_BLOCK_SIZE, CacheSettings.defaults().blockSize());
    }
}
