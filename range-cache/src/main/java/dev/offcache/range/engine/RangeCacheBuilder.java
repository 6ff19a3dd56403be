package dev.offcache.range.engine;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.offcache.range.config.RangeCacheContext;
import dev.offcache.range.origin.ObjectStore;
import dev.offcache.range.store.BlockStore;

/**
 * Builds a {@link RangeCache}, Caffeine-style:
 * <pre>{@code
 * RangeCache cache = RangeCache.newBuilder()
 *     .origin(new FileSystemOrigin(root, 4))
 *     .blockSize(1 << 20)
 *     .l1Store(store)
 *     .fromEnvironment()
 *     .build();
 * }</pre>
 * Settings are applied in call order, so {@code fromEnvironment()} last lets the environment override code.
 */
public final class RangeCacheBuilder
{
    private final RangeCacheContext context = new RangeCacheContext();

    RangeCacheBuilder()
    {
    }

    /**
     * Sets the origin or next tier; the cache owns and closes it.
     *
     * @param origin the origin or next tier; the cache owns and closes it.
     * @return this.
     */
    public RangeCacheBuilder origin(final ObjectStore origin)
    {
        context.origin(origin);
        return this;
    }

    /**
     * Sets the block store (the L1 store, or the L2 tiers); the cache owns and closes it.
     *
     * @param store the block store (the L1 store, or the L2 tiers); the cache owns and closes it.
     * @return this.
     */
    public RangeCacheBuilder l1Store(final BlockStore store)
    {
        context.store(store);
        return this;
    }

    /**
     * Sets the factory that makes the store from the byte budget ({@code OFFCACHE_L1_MB}) when no store is given.
     *
     * @param factory makes the store from the byte budget ({@code OFFCACHE_L1_MB}) when no store is given.
     * @return this.
     */
    public RangeCacheBuilder l1StoreFactory(final RangeCacheContext.StoreFactory factory)
    {
        context.storeFactory(factory);
        return this;
    }

    /**
     * Sets the store's byte budget; 0 makes the cache a pass-through with no store.
     *
     * @param bytes the store's byte budget; 0 makes the cache a pass-through with no store.
     * @return this.
     */
    public RangeCacheBuilder l1BudgetBytes(final long bytes)
    {
        context.l1BudgetBytes(bytes);
        return this;
    }

    /**
     * Sets the tier: L1 (in-process, 16/4 GETs) or L2 (server, 32/8 GETs) defaults.
     *
     * @param tier L1 (in-process, 16/4 GETs) or L2 (server, 32/8 GETs) defaults.
     * @return this.
     */
    public RangeCacheBuilder tier(final RangeCacheContext.Tier tier)
    {
        context.tier(tier);
        return this;
    }

    /**
     * Sets the bytes per block, a power of two in [4 KiB, 16 MiB].
     *
     * @param bytes bytes per block, a power of two in [4 KiB, 16 MiB].
     * @return this.
     */
    public RangeCacheBuilder blockSize(final int bytes)
    {
        context.blockSize(bytes);
        return this;
    }

    /**
     * Sets the largest origin GET that contiguous missing blocks are merged into.
     *
     * @param bytes the largest origin GET that contiguous missing blocks are merged into.
     * @return this.
     */
    public RangeCacheBuilder maxCoalescedGetBytes(final int bytes)
    {
        context.maxCoalescedGetBytes(bytes);
        return this;
    }

    /**
     * Sets the largest gap of unrequested missing blocks a read's GET reads through
     * ({@link RangeCacheContext#coalesceGapBytes(int)}).
     *
     * @param bytes the largest gap read through; 0 for none.
     * @return this.
     */
    public RangeCacheBuilder coalesceGapBytes(final int bytes)
    {
        context.coalesceGapBytes(bytes);
        return this;
    }

    /**
     * Sets the fetch budget.
     *
     * @param total          origin GETs in flight at most.
     * @param demandReserved of which only demand may use this many.
     * @return this.
     */
    public RangeCacheBuilder fetchPermits(final int total, final int demandReserved)
    {
        context.fetchPermits(total).demandReservedPermits(demandReserved);
        return this;
    }

    /**
     * Sets the streaming windows.
     *
     * @param blocks   blocks per window of a large read.
     * @param inFlight windows fetched at once.
     * @return this.
     */
    public RangeCacheBuilder streamWindows(final int blocks, final int inFlight)
    {
        context.streamWindowBlocks(blocks).streamWindowsInFlight(inFlight);
        return this;
    }

    /**
     * Sets the key prefixes whose reads skip the store.
     *
     * @param prefixes key prefixes whose reads skip the store.
     * @return this.
     */
    public RangeCacheBuilder bypassPrefixes(final List<String> prefixes)
    {
        context.bypassPrefixes(prefixes);
        return this;
    }

    /**
     * Sets the deadline of one origin request.
     *
     * @param timeout deadline of one origin request.
     * @return this.
     */
    public RangeCacheBuilder originTimeout(final Duration timeout)
    {
        context.originTimeout(timeout);
        return this;
    }

    /**
     * Sets how many objects' ids and sizes are remembered.
     *
     * @param maxObjects objects whose ids and sizes are remembered.
     * @return this.
     */
    public RangeCacheBuilder maxObjects(final int maxObjects)
    {
        context.maxObjects(maxObjects);
        return this;
    }

    /**
     * Sets a counters file other processes can read, or {@code null} for memory only.
     *
     * @param file a counters file other processes can read, or {@code null} for memory only.
     * @return this.
     */
    public RangeCacheBuilder countersFile(final Path file)
    {
        context.countersFile(file);
        return this;
    }

    /**
     * Applies the process environment's {@code OFFCACHE_*} variables.
     *
     * @return this.
     */
    public RangeCacheBuilder fromEnvironment()
    {
        return fromEnvironment(System.getenv());
    }

    /**
     * Applies {@code OFFCACHE_*} variables from a map.
     *
     * @param env the variables.
     * @return this.
     */
    public RangeCacheBuilder fromEnvironment(final Map<String, String> env)
    {
        context.applyEnvironment(env);
        return this;
    }

    /**
     * Returns the context being built, for settings without a builder method.
     *
     * @return the context being built, for settings without a builder method.
     */
    public RangeCacheContext context()
    {
        return context;
    }

    /**
     * Validates the settings and builds the cache.
     *
     * @return a new cache that owns the origin and the store.
     */
    public RangeCache build()
    {
        return new RangeCache(context.conclude());
    }
}
