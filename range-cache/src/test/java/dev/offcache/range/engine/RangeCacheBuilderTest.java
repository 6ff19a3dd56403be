package dev.offcache.range.engine;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.range.config.InvalidSettingException;
import dev.offcache.range.origin.FileSystemOrigin;
import dev.offcache.range.testing.SlabBlockStore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RangeCacheBuilderTest
{
    @TempDir
    Path root;

    @Test
    void defaultsFollowTheDesign()
    {
        final RangeCacheBuilder l1 = RangeCache.newBuilder().origin(new FileSystemOrigin(root, 1));
        try (RangeCache cache = l1.build())
        {
            assertEquals(1 << 20, cache.blockSize());
            assertEquals(1 << 20, l1.blockSize());
            assertEquals(8 << 20, l1.maxCoalescedGetBytes());
            assertEquals(200L << 20, l1.l1CapacityBytes());
            assertEquals(16, l1.fetchPermits());
            assertEquals(4, l1.demandReservedPermits());
            assertEquals(8, l1.streamWindowBlocks());
            assertEquals(2, l1.streamWindowsInFlight());
            assertEquals(30_000, l1.originTimeout().toMillis());
            assertNotNull(l1.store(), "an L1 engine makes its off-heap store by default");
        }
        final RangeCacheBuilder l2 = RangeCache.newBuilder().origin(new FileSystemOrigin(root, 1))
            .deployment(RangeCacheBuilder.Deployment.L2);
        try (RangeCache cache = l2.build())
        {
            assertEquals(1 << 20, cache.blockSize());
            assertEquals(32, l2.fetchPermits());
            assertEquals(8, l2.demandReservedPermits());
            assertNull(l2.store(), "an L2 engine is given its tiers; it makes none");
        }
    }

    @Test
    void environmentOverridesAndSizesTheStore()
    {
        final long[] capacity = new long[1];
        final RangeCacheBuilder builder = RangeCache.newBuilder().origin(new FileSystemOrigin(root, 1))
            .storeFactory((bytes, blockSize) ->
            {
                capacity[0] = bytes;
                return new SlabBlockStore(bytes, blockSize);
            })
            .fromEnvironment(Map.of(
                "OFFCACHE_L1_MB", "3",
                "OFFCACHE_BLOCK_SIZE", "64KiB",
                "OFFCACHE_MAX_COALESCED_GET_BYTES", "256k",
                "OFFCACHE_FETCH_PERMITS", "10",
                "OFFCACHE_DEMAND_RESERVED_PERMITS", "3",
                "OFFCACHE_L1_BYPASS_PREFIXES", "blobs/, tmp/",
                "OFFCACHE_ORIGIN_TIMEOUT_MS", "1500",
                "UNRELATED", "x"));
        try (RangeCache cache = builder.build())
        {
            assertEquals(64 << 10, cache.blockSize());
            assertEquals(3L << 20, capacity[0]);
            assertNotNull(builder.store());
            assertEquals(64 << 10, builder.blockSize());
            assertEquals(256 << 10, builder.maxCoalescedGetBytes());
            assertEquals(10, builder.fetchPermits());
            assertEquals(3, builder.demandReservedPermits());
            assertEquals(List.of("blobs/", "tmp/"), builder.bypassPrefixes());
            assertEquals(1500, builder.originTimeout().toMillis());
        }
    }

    @Test
    void zeroCapacityIsAPassThrough()
    {
        final RangeCacheBuilder builder = RangeCache.newBuilder().origin(new FileSystemOrigin(root, 1))
            .store(new SlabBlockStore(1 << 20, 1 << 20))
            .fromEnvironment(Map.of("OFFCACHE_L1_MB", "0"));
        try (RangeCache cache = builder.build())
        {
            assertEquals(1 << 20, cache.blockSize());
            assertNull(builder.store());
        }
    }

    @Test
    void aBuilderBuildsOneCache()
    {
        final RangeCacheBuilder builder = RangeCache.newBuilder().origin(new FileSystemOrigin(root, 1))
            .l1CapacityBytes(0);
        try (RangeCache cache = builder.build())
        {
            assertEquals(1 << 20, cache.blockSize());
            assertThrows(IllegalStateException.class, builder::build);
        }
    }

    @Test
    void invalidValuesAreRefusedNamingTheVariable()
    {
        invalid(Map.of("OFFCACHE_L1_MB", "lots"), "OFFCACHE_L1_MB");
        invalid(Map.of("OFFCACHE_L1_MB", "-1"), "OFFCACHE_L1_MB");
        invalid(Map.of("OFFCACHE_BLOCK_SIZE", "0"), "OFFCACHE_BLOCK_SIZE");
        invalid(Map.of("OFFCACHE_FETCH_PERMITS", "0"), "OFFCACHE_FETCH_PERMITS");
        invalid(Map.of("OFFCACHE_L1_BYPASS_PREFIXES", "a,,b"), "OFFCACHE_L1_BYPASS_PREFIXES");
        invalid(Map.of("OFFCACHE_ORIGIN_TIMEOUT_MS", " "), "OFFCACHE_ORIGIN_TIMEOUT_MS");
    }

    @Test
    void inconsistentSettingsAreRefusedNamingTheSetting()
    {
        refused(RangeCache.newBuilder().blockSize(3000), "blockSize");
        refused(RangeCache.newBuilder().blockSize(32 << 20), "blockSize");
        refused(RangeCache.newBuilder().blockSize(1 << 20).maxCoalescedGetBytes(4096), "maxCoalescedGetBytes");
        refused(RangeCache.newBuilder().maxCoalescedGetBytes(512 << 20), "maxCoalescedGetBytes");
        refused(RangeCache.newBuilder().fetchPermits(4, 4), "demandReservedPermits");
        refused(RangeCache.newBuilder().fetchPermits(0, 0), "fetchPermits");
        refused(RangeCache.newBuilder().l1CapacityBytes(-5), "l1CapacityBytes");
        refused(RangeCache.newBuilder().l1CapacityBytes(4096), "l1CapacityBytes");
        refused(RangeCache.newBuilder().maxObjects(0), "maxObjects");
        refused(RangeCache.newBuilder().originTimeout(java.time.Duration.ZERO), "originTimeout");
        // validation needs no origin and makes nothing; building does
        assertThrows(NullPointerException.class, () -> RangeCache.newBuilder().build());
    }

    private static void invalid(final Map<String, String> env, final String name)
    {
        final IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
            () -> RangeCache.newBuilder().fromEnvironment(env));
        assertTrue(error.getMessage().contains(name), error.getMessage());
    }

    private static void refused(final RangeCacheBuilder builder, final String name)
    {
        final InvalidSettingException error = assertThrows(InvalidSettingException.class, builder::validate);
        assertEquals(name, error.setting());
        assertTrue(error.getMessage().startsWith(name + " "), error.getMessage());
    }
}
