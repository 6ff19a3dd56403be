package dev.offcache.range.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import dev.offcache.range.origin.ObjectStore;
import dev.offcache.range.l1.L1BlockStore;
import dev.offcache.range.store.BlockStore;

/**
 * Everything a range-cache engine is configured with, with defaults, {@code OFFCACHE_*} environment overrides and
 * validation in {@link #conclude()}. Built by {@code RangeCache.newBuilder()}; not shared between engines.
 *
 * <p>Memory: the context names the store and the origin; the engine that is built from it owns and closes them.
 */
public final class RangeCacheContext
{
    /** Default block size: 1 MiB. */
    public static final int DEFAULT_BLOCK_SIZE = 1 << 20;
    /** Smallest block size (a slab slot). */
    public static final int MIN_BLOCK_SIZE = 4 << 10;
    /** Largest block size (a slab slot). */
    public static final int MAX_BLOCK_SIZE = 16 << 20;
    /** Default cap of one coalesced origin GET: 8 MiB. */
    public static final int DEFAULT_MAX_COALESCED_GET_BYTES = 8 << 20;
    /** Largest cap of one coalesced origin GET: 256 MiB. */
    public static final int MAX_COALESCED_GET_BYTES_LIMIT = 256 << 20;
    /** Default gap of unrequested missing bytes a read's GET reads through: 0 (a GET per run of wanted blocks). */
    public static final int DEFAULT_COALESCE_GAP_BYTES = 0;
    /** Default L1 byte budget: 200 MiB. */
    public static final long DEFAULT_L1_BYTES = 200L << 20;
    /** Default window of a streaming read, in blocks. */
    public static final int DEFAULT_STREAM_WINDOW_BLOCKS = 8;
    /** Default windows of one read in flight at once. */
    public static final int DEFAULT_STREAM_WINDOWS_IN_FLIGHT = 2;
    /** Default origin request deadline. */
    public static final Duration DEFAULT_ORIGIN_TIMEOUT = Duration.ofSeconds(30);
    /** Default number of objects whose id and size are remembered. */
    public static final int DEFAULT_MAX_OBJECTS = 1_000_000;

    /** Environment variable of {@link #l1BudgetBytes(long)}, in MiB. */
    public static final String ENV_L1_MB = "OFFCACHE_L1_MB";
    /** Environment variable of {@link #blockSize(int)}. */
    public static final String ENV_BLOCK_SIZE = "OFFCACHE_BLOCK_SIZE";
    /** Environment variable of {@link #maxCoalescedGetBytes(int)}. */
    public static final String ENV_MAX_COALESCED_GET_BYTES = "OFFCACHE_MAX_COALESCED_GET_BYTES";
    /** Environment variable of {@link #coalesceGapBytes(int)}. */
    public static final String ENV_COALESCE_GAP_BYTES = "OFFCACHE_COALESCE_GAP_BYTES";
    /** Environment variable of {@link #fetchPermits(int)}. */
    public static final String ENV_FETCH_PERMITS = "OFFCACHE_FETCH_PERMITS";
    /** Environment variable of {@link #demandReservedPermits(int)}. */
    public static final String ENV_DEMAND_RESERVED_PERMITS = "OFFCACHE_DEMAND_RESERVED_PERMITS";
    /** Environment variable of {@link #streamWindowBlocks(int)}. */
    public static final String ENV_STREAM_WINDOW_BLOCKS = "OFFCACHE_STREAM_WINDOW_BLOCKS";
    /** Environment variable of {@link #streamWindowsInFlight(int)}. */
    public static final String ENV_STREAM_WINDOWS_IN_FLIGHT = "OFFCACHE_STREAM_WINDOWS_IN_FLIGHT";
    /** Environment variable of {@link #bypassPrefixes(List)}, comma-separated. */
    public static final String ENV_L1_BYPASS_PREFIXES = "OFFCACHE_L1_BYPASS_PREFIXES";
    /** Environment variable of {@link #originTimeout(Duration)}, in milliseconds. */
    public static final String ENV_ORIGIN_TIMEOUT_MS = "OFFCACHE_ORIGIN_TIMEOUT_MS";
    /** Environment variable of {@link #maxObjects(int)}. */
    public static final String ENV_MAX_OBJECTS = "OFFCACHE_MAX_OBJECTS";
    /** Environment variable of {@link #countersFile(Path)}. */
    public static final String ENV_RANGE_COUNTERS_FILE = "OFFCACHE_RANGE_COUNTERS_FILE";

    private ObjectStore origin;
    private BlockStore store;
    private StoreFactory storeFactory;
    private Tier tier = Tier.L1;
    private int blockSize = DEFAULT_BLOCK_SIZE;
    private int maxCoalescedGetBytes = DEFAULT_MAX_COALESCED_GET_BYTES;
    private int coalesceGapBytes = DEFAULT_COALESCE_GAP_BYTES;
    private long l1BudgetBytes = DEFAULT_L1_BYTES;
    private int fetchPermits = -1;
    private int demandReservedPermits = -1;
    private int streamWindowBlocks = DEFAULT_STREAM_WINDOW_BLOCKS;
    private int streamWindowsInFlight = DEFAULT_STREAM_WINDOWS_IN_FLIGHT;
    private List<String> bypassPrefixes = List.of();
    private Duration originTimeout = DEFAULT_ORIGIN_TIMEOUT;
    private int maxObjects = DEFAULT_MAX_OBJECTS;
    private Path countersFile;
    private boolean concluded;

    /**
     * Which deployment the engine serves; it sets the default fetch budget.
     */
    public enum Tier
    {
        /** In a query process: 16 GETs in flight, 4 reserved for demand. */
        L1(16, 4),
        /** In the shared cache server: 32 GETs in flight, 8 reserved for demand. */
        L2(32, 8);

        private final int permits;
        private final int demandReserved;

        Tier(final int permits, final int demandReserved)
        {
            this.permits = permits;
            this.demandReserved = demandReserved;
        }

        /**
         * Returns the default number of origin GETs in flight.
         *
         * @return the default number of origin GETs in flight.
         */
        public int permits()
        {
            return permits;
        }

        /**
         * Returns the default number of those reserved for demand.
         *
         * @return the default number of those reserved for demand.
         */
        public int demandReserved()
        {
            return demandReserved;
        }
    }

    /**
     * Makes a store for a byte budget and block size, so {@code OFFCACHE_L1_MB} can size it.
     */
    @FunctionalInterface
    public interface StoreFactory
    {
        /**
         * Makes a store.
         *
         * @param budgetBytes the byte budget, at least one block.
         * @param blockSize   the block size.
         * @return a new store the engine will own.
         */
        BlockStore create(long budgetBytes, int blockSize);
    }

    /**
     * Applies the {@code OFFCACHE_*} variables found in an environment (others are ignored).
     *
     * @param env usually {@link System#getenv()}.
     * @return this.
     * @throws IllegalArgumentException naming the variable when a value does not parse.
     */
    public RangeCacheContext applyEnvironment(final Map<String, String> env)
    {
        final EnvironmentReader reader = new EnvironmentReader(env);
        reader.bytes(ENV_L1_MB, 1L << 20, Long.MAX_VALUE >> 20).ifPresent((v) -> l1BudgetBytes = v);
        reader.size(ENV_BLOCK_SIZE).ifPresent((v) -> blockSize = v);
        reader.size(ENV_MAX_COALESCED_GET_BYTES).ifPresent((v) -> maxCoalescedGetBytes = v);
        reader.nonNegativeInt(ENV_COALESCE_GAP_BYTES).ifPresent((v) -> coalesceGapBytes = v);
        reader.positiveInt(ENV_FETCH_PERMITS).ifPresent((v) -> fetchPermits = v);
        reader.nonNegativeInt(ENV_DEMAND_RESERVED_PERMITS).ifPresent((v) -> demandReservedPermits = v);
        reader.positiveInt(ENV_STREAM_WINDOW_BLOCKS).ifPresent((v) -> streamWindowBlocks = v);
        reader.positiveInt(ENV_STREAM_WINDOWS_IN_FLIGHT).ifPresent((v) -> streamWindowsInFlight = v);
        reader.list(ENV_L1_BYPASS_PREFIXES).ifPresent((v) -> bypassPrefixes = v);
        reader.positiveInt(ENV_ORIGIN_TIMEOUT_MS).ifPresent((v) -> originTimeout = Duration.ofMillis(v));
        reader.positiveInt(ENV_MAX_OBJECTS).ifPresent((v) -> maxObjects = v);
        reader.string(ENV_RANGE_COUNTERS_FILE).ifPresent((v) -> countersFile = Path.of(v));
        return this;
    }

    /**
     * Validates the settings and fills derived defaults. Idempotent.
     *
     * @return this.
     * @throws IllegalArgumentException naming the setting that is wrong.
     */
    public RangeCacheContext conclude()
    {
        if (concluded)
        {
            return this;
        }
        Objects.requireNonNull(origin, "origin must be set");
        if (blockSize < MIN_BLOCK_SIZE || blockSize > MAX_BLOCK_SIZE || Integer.bitCount(blockSize) != 1)
        {
            throw new IllegalArgumentException(
                "blockSize must be a power of two in [" + MIN_BLOCK_SIZE + ", " + MAX_BLOCK_SIZE + "]: " + blockSize);
        }
        if (maxCoalescedGetBytes < blockSize || maxCoalescedGetBytes > MAX_COALESCED_GET_BYTES_LIMIT)
        {
            throw new IllegalArgumentException("maxCoalescedGetBytes must be in [blockSize=" + blockSize + ", " +
                MAX_COALESCED_GET_BYTES_LIMIT + "]: " + maxCoalescedGetBytes);
        }
        if (coalesceGapBytes < 0 || coalesceGapBytes > maxCoalescedGetBytes)
        {
            throw new IllegalArgumentException("coalesceGapBytes must be in [0, maxCoalescedGetBytes=" +
                maxCoalescedGetBytes + "]: " + coalesceGapBytes);
        }
        if (fetchPermits < 0)
        {
            fetchPermits = tier.permits();
        }
        if (demandReservedPermits < 0)
        {
            demandReservedPermits = Math.min(tier.demandReserved(), fetchPermits - 1);
        }
        if (fetchPermits < 1)
        {
            throw new IllegalArgumentException("fetchPermits must be >= 1: " + fetchPermits);
        }
        if (demandReservedPermits >= fetchPermits)
        {
            throw new IllegalArgumentException("demandReservedPermits must be < fetchPermits=" + fetchPermits +
                " (prefetch needs at least one): " + demandReservedPermits);
        }
        if (streamWindowBlocks < 1 || streamWindowsInFlight < 1)
        {
            throw new IllegalArgumentException("streamWindowBlocks and streamWindowsInFlight must be >= 1: " +
                streamWindowBlocks + ", " + streamWindowsInFlight);
        }
        if (l1BudgetBytes < 0)
        {
            throw new IllegalArgumentException("l1BudgetBytes must be >= 0: " + l1BudgetBytes);
        }
        if (originTimeout.isNegative() || originTimeout.isZero())
        {
            throw new IllegalArgumentException("originTimeout must be positive: " + originTimeout);
        }
        if (maxObjects < 1)
        {
            throw new IllegalArgumentException("maxObjects must be >= 1: " + maxObjects);
        }
        for (final String prefix : bypassPrefixes)
        {
            if (prefix == null || prefix.isEmpty())
            {
                throw new IllegalArgumentException("bypass prefixes must not be empty: " + bypassPrefixes);
            }
        }
        if (l1BudgetBytes == 0)
        {
            if (store != null)
            {
                store.close();
            }
            store = null;
        }
        else if (store == null && (storeFactory != null || tier == Tier.L1))
        {
            // In an engine process the default store is the off-heap W-TinyLFU L1, sized by OFFCACHE_L1_MB.
            final StoreFactory factory = storeFactory != null ? storeFactory : L1BlockStore::create;
            if (l1BudgetBytes < blockSize)
            {
                throw new IllegalArgumentException("l1BudgetBytes must hold at least one block (" + blockSize +
                    "): " + l1BudgetBytes);
            }
            store = factory.create(l1BudgetBytes, blockSize);
        }
        concluded = true;
        return this;
    }

    /**
     * Sets the origin (or next tier) behind the cache; the engine owns and closes it.
     *
     * @param origin the origin (or next tier) behind the cache; the engine owns and closes it.
     * @return this.
     */
    public RangeCacheContext origin(final ObjectStore origin)
    {
        this.origin = origin;
        return this;
    }

    /**
     * Returns the origin.
     *
     * @return the origin.
     */
    public ObjectStore origin()
    {
        return origin;
    }

    /**
     * Sets a ready store for blocks (used unless the budget is 0); the engine owns and closes it.
     *
     * @param store a ready store for blocks (used unless the budget is 0); the engine owns and closes it.
     * @return this.
     */
    public RangeCacheContext store(final BlockStore store)
    {
        this.store = store;
        return this;
    }

    /**
     * Returns the store, or {@code null} for a pass-through engine.
     *
     * @return the store, or {@code null} for a pass-through engine.
     */
    public BlockStore store()
    {
        return store;
    }

    /**
     * Sets the factory that makes the store from the budget when no store is given.
     *
     * @param storeFactory makes the store from the budget when no store is given.
     * @return this.
     */
    public RangeCacheContext storeFactory(final StoreFactory storeFactory)
    {
        this.storeFactory = storeFactory;
        return this;
    }

    /**
     * Sets which deployment this is, for the default fetch budget.
     *
     * @param tier which deployment, for the default fetch budget.
     * @return this.
     */
    public RangeCacheContext tier(final Tier tier)
    {
        this.tier = Objects.requireNonNull(tier, "tier");
        return this;
    }

    /**
     * Returns the tier.
     *
     * @return the tier.
     */
    public Tier tier()
    {
        return tier;
    }

    /**
     * Sets the bytes per block, a power of two in [4 KiB, 16 MiB].
     *
     * @param blockSize bytes per block, a power of two in [4 KiB, 16 MiB].
     * @return this.
     */
    public RangeCacheContext blockSize(final int blockSize)
    {
        this.blockSize = blockSize;
        return this;
    }

    /**
     * Returns bytes per block.
     *
     * @return bytes per block.
     */
    public int blockSize()
    {
        return blockSize;
    }

    /**
     * Sets the largest origin GET that contiguous missing blocks are merged into.
     *
     * @param maxCoalescedGetBytes the largest origin GET that contiguous missing blocks are merged into.
     * @return this.
     */
    public RangeCacheContext maxCoalescedGetBytes(final int maxCoalescedGetBytes)
    {
        this.maxCoalescedGetBytes = maxCoalescedGetBytes;
        return this;
    }

    /**
     * Returns the coalescing cap in bytes.
     *
     * @return the coalescing cap in bytes.
     */
    public int maxCoalescedGetBytes()
    {
        return maxCoalescedGetBytes;
    }

    /**
     * Sets how many bytes of blocks no range asks for a read's GET may read through: when two runs of missing
     * blocks of one read (a vectored read's ranges, e.g. a row group's column chunks) are apart by at most this
     * many bytes of blocks that are neither held nor being fetched, the gap's blocks are fetched (and cached) in
     * the same GET instead of a second GET being sent. 0 (the default) reads only the blocks asked for.
     *
     * @param coalesceGapBytes the largest gap read through, in bytes (whole blocks count).
     * @return this.
     */
    public RangeCacheContext coalesceGapBytes(final int coalesceGapBytes)
    {
        this.coalesceGapBytes = coalesceGapBytes;
        return this;
    }

    /**
     * Returns the largest gap a read's GET reads through, in bytes.
     *
     * @return the largest gap read through.
     */
    public int coalesceGapBytes()
    {
        return coalesceGapBytes;
    }

    /**
     * Sets the store's byte budget; 0 makes the engine a pass-through with no store.
     *
     * @param l1BudgetBytes the store's byte budget; 0 makes the engine a pass-through with no store.
     * @return this.
     */
    public RangeCacheContext l1BudgetBytes(final long l1BudgetBytes)
    {
        this.l1BudgetBytes = l1BudgetBytes;
        return this;
    }

    /**
     * Returns the store's byte budget.
     *
     * @return the store's byte budget.
     */
    public long l1BudgetBytes()
    {
        return l1BudgetBytes;
    }

    /**
     * Sets the most origin GETs in flight.
     *
     * @param fetchPermits origin GETs in flight at most.
     * @return this.
     */
    public RangeCacheContext fetchPermits(final int fetchPermits)
    {
        this.fetchPermits = fetchPermits;
        return this;
    }

    /**
     * Returns origin GETs in flight at most.
     *
     * @return origin GETs in flight at most.
     */
    public int fetchPermits()
    {
        return fetchPermits;
    }

    /**
     * Sets the permits only demand fetches may use.
     *
     * @param demandReservedPermits permits only demand fetches may use.
     * @return this.
     */
    public RangeCacheContext demandReservedPermits(final int demandReservedPermits)
    {
        this.demandReservedPermits = demandReservedPermits;
        return this;
    }

    /**
     * Returns permits only demand fetches may use.
     *
     * @return permits only demand fetches may use.
     */
    public int demandReservedPermits()
    {
        return demandReservedPermits;
    }

    /**
     * Sets the blocks per window of a large read.
     *
     * @param streamWindowBlocks blocks per window of a large read.
     * @return this.
     */
    public RangeCacheContext streamWindowBlocks(final int streamWindowBlocks)
    {
        this.streamWindowBlocks = streamWindowBlocks;
        return this;
    }

    /**
     * Returns blocks per window.
     *
     * @return blocks per window.
     */
    public int streamWindowBlocks()
    {
        return streamWindowBlocks;
    }

    /**
     * Sets how many windows of one read are fetched at once.
     *
     * @param streamWindowsInFlight windows of one read fetched at once.
     * @return this.
     */
    public RangeCacheContext streamWindowsInFlight(final int streamWindowsInFlight)
    {
        this.streamWindowsInFlight = streamWindowsInFlight;
        return this;
    }

    /**
     * Returns windows of one read fetched at once.
     *
     * @return windows of one read fetched at once.
     */
    public int streamWindowsInFlight()
    {
        return streamWindowsInFlight;
    }

    /**
     * Sets the key prefixes whose reads skip the store (data read once).
     *
     * @param bypassPrefixes key prefixes whose reads skip the store (data read once).
     * @return this.
     */
    public RangeCacheContext bypassPrefixes(final List<String> bypassPrefixes)
    {
        this.bypassPrefixes = Collections.unmodifiableList(new ArrayList<>(bypassPrefixes));
        return this;
    }

    /**
     * Returns key prefixes whose reads skip the store.
     *
     * @return key prefixes whose reads skip the store.
     */
    public List<String> bypassPrefixes()
    {
        return bypassPrefixes;
    }

    /**
     * Sets the deadline of one origin request; a stalled GET fails its waiters after it.
     *
     * @param originTimeout deadline of one origin request; a stalled GET fails its waiters after it.
     * @return this.
     */
    public RangeCacheContext originTimeout(final Duration originTimeout)
    {
        this.originTimeout = Objects.requireNonNull(originTimeout, "originTimeout");
        return this;
    }

    /**
     * Returns the origin request deadline.
     *
     * @return the origin request deadline.
     */
    public Duration originTimeout()
    {
        return originTimeout;
    }

    /**
     * Sets how many objects' ids and sizes are remembered.
     *
     * @param maxObjects how many objects' ids and sizes are remembered.
     * @return this.
     */
    public RangeCacheContext maxObjects(final int maxObjects)
    {
        this.maxObjects = maxObjects;
        return this;
    }

    /**
     * Returns how many objects are remembered.
     *
     * @return how many objects are remembered.
     */
    public int maxObjects()
    {
        return maxObjects;
    }

    /**
     * Sets where to map the counters for outside readers, or {@code null} for memory only.
     *
     * @param countersFile where to map the counters for outside readers, or {@code null} for memory only.
     * @return this.
     */
    public RangeCacheContext countersFile(final Path countersFile)
    {
        this.countersFile = countersFile;
        return this;
    }

    /**
     * Returns the counters file, or {@code null}.
     *
     * @return the counters file, or {@code null}.
     */
    public Path countersFile()
    {
        return countersFile;
    }
}
