package dev.offcache.benchmarks.l2client;

import java.nio.file.Path;

import dev.offcache.range.engine.RangeCache;
import dev.offcache.range.engine.RangeCacheBuilder;
import dev.offcache.range.origin.ObjectStore;
import dev.offcache.server.source.EngineObjectNames;
import dev.offcache.server.tier.TieredBlockStore;

/**
 * The L2 server's engine as the {@code offcache-server} program wires it, for the L2 benchmarks: the range-cache
 * engine in the L2 deployment over the tiered store (RAM, then SSD), whose SSD files are named through the engine.
 * The caller owns the engine, which owns the store ({@link #store}) and the origin, and closes them.
 */
final class L2Engines
{
    private L2Engines()
    {
    }

    /**
     * Opens the tiered store and builds the engine over it.
     *
     * @param origin    the engine's origin; owned by the engine.
     * @param blockSize bytes per block.
     * @param ramBytes  the RAM tier's capacity.
     * @param ssdBytes  the SSD tier's capacity.
     * @param ssdDir    the SSD tier's directory.
     * @return the engine.
     */
    static RangeCache open(
        final ObjectStore origin, final int blockSize, final long ramBytes, final long ssdBytes, final Path ssdDir)
    {
        final EngineObjectNames names = new EngineObjectNames();
        final TieredBlockStore store = TieredBlockStore.open(new TieredBlockStore.Context()
            .blockSize(blockSize)
            .ramCapacityBytes(ramBytes)
            .ssdCapacityBytes(ssdBytes)
            .ssdDir(ssdDir)
            .names(names));
        final RangeCache cache = RangeCache.newBuilder()
            .origin(origin)
            .store(store)
            .deployment(RangeCacheBuilder.Deployment.L2)
            .blockSize(blockSize)
            .build();
        names.bind(cache);
        return cache;
    }

    /**
     * The tiered store of an engine {@link #open} built.
     *
     * @param cache the engine.
     * @return its store.
     */
    static TieredBlockStore store(final RangeCache cache)
    {
        return (TieredBlockStore) cache.store();
    }
}
