package dev.offcache.range.config;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.range.origin.FileSystemOrigin;
import dev.offcache.range.testing.SlabBlockStore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RangeCacheContextTest
{
    @TempDir
    Path root;

    @Test
    void defaultsFollowTheDesign()
    {
        try (FileSystemOrigin origin = new FileSystemOrigin(root, 1))
        {
            final RangeCacheContext l1 = new RangeCacheContext().origin(origin).conclude();
            assertEquals(1 << 20, l1.blockSize());
            assertEquals(8 << 20, l1.maxCoalescedGetBytes());
            assertEquals(200L << 20, l1.l1BudgetBytes());
            assertEquals(16, l1.fetchPermits());
            assertEquals(4, l1.demandReservedPermits());
            assertEquals(8, l1.streamWindowBlocks());
            assertEquals(2, l1.streamWindowsInFlight());
            final RangeCacheContext l2 = new RangeCacheContext().origin(origin).tier(RangeCacheContext.Tier.L2)
                .conclude();
            assertEquals(32, l2.fetchPermits());
            assertEquals(8, l2.demandReservedPermits());
        }
    }

    @Test
    void environmentOverridesAndSizesTheStore()
    {
        try (FileSystemOrigin origin = new FileSystemOrigin(root, 1))
        {
            final long[] budget = new long[1];
            final RangeCacheContext context = new RangeCacheContext().origin(origin)
                .storeFactory((bytes, blockSize) ->
                {
                    budget[0] = bytes;
                    return new SlabBlockStore(bytes, blockSize);
                })
                .applyEnvironment(Map.of(
                    "OFFCACHE_L1_MB", "3",
                    "OFFCACHE_BLOCK_SIZE", "64KiB",
                    "OFFCACHE_MAX_COALESCED_GET_BYTES", "256k",
                    "OFFCACHE_FETCH_PERMITS", "10",
                    "OFFCACHE_DEMAND_RESERVED_PERMITS", "3",
                    "OFFCACHE_L1_BYPASS_PREFIXES", "blobs/, tmp/",
                    "OFFCACHE_ORIGIN_TIMEOUT_MS", "1500",
                    "UNRELATED", "x"))
                .conclude();
            assertEquals(3L << 20, budget[0]);
            assertNotNull(context.store());
            assertEquals(64 << 10, context.blockSize());
            assertEquals(256 << 10, context.maxCoalescedGetBytes());
            assertEquals(10, context.fetchPermits());
            assertEquals(3, context.demandReservedPermits());
            assertEquals(List.of("blobs/", "tmp/"), context.bypassPrefixes());
            assertEquals(1500, context.originTimeout().toMillis());
            context.store().close();
        }
    }

    @Test
    void zeroBudgetIsAPassThrough()
    {
        try (FileSystemOrigin origin = new FileSystemOrigin(root, 1))
        {
            final RangeCacheContext context = new RangeCacheContext().origin(origin)
                .store(new SlabBlockStore(1 << 20, 1 << 20))
                .applyEnvironment(Map.of("OFFCACHE_L1_MB", "0")).conclude();
            assertNull(context.store());
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
        try (FileSystemOrigin origin = new FileSystemOrigin(root, 1))
        {
            refused(new RangeCacheContext().origin(origin).blockSize(3000), "blockSize");
            refused(new RangeCacheContext().origin(origin).blockSize(32 << 20), "blockSize");
            refused(new RangeCacheContext().origin(origin).blockSize(1 << 20).maxCoalescedGetBytes(4096),
                "maxCoalescedGetBytes");
            refused(new RangeCacheContext().origin(origin).fetchPermits(4).demandReservedPermits(4),
                "demandReservedPermits");
            refused(new RangeCacheContext().origin(origin).l1BudgetBytes(-5), "l1BudgetBytes");
            assertThrows(NullPointerException.class, () -> new RangeCacheContext().conclude());
        }
    }

    private static void invalid(final Map<String, String> env, final String name)
    {
        final IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
            () -> new RangeCacheContext().applyEnvironment(env));
        assertTrue(error.getMessage().contains(name), error.getMessage());
    }

    private static void refused(final RangeCacheContext context, final String name)
    {
        final IllegalArgumentException error = assertThrows(IllegalArgumentException.class, context::conclude);
        assertTrue(error.getMessage().startsWith(name), error.getMessage());
    }
}
