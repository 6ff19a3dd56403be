package dev.offcache.range.engine;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import dev.offcache.core.slab.BlockSlab;
import dev.offcache.range.config.EnvironmentReader;
import dev.offcache.range.config.InvalidSettingException;
import dev.offcache.range.ram.RamBlockStore;
import dev.offcache.range.origin.ObjectStore;
import dev.offcache.range.store.BlockStore;

/**
 * The one way to configure and build a {@link RangeCache}, Caffeine-style:
 * <pre>{@code
 * RangeCache cache = RangeCache.newBuilder()
 *     .origin(new FileSystemOrigin(root, 4))
 *     .blockSize(1 << 20)
 *     .store(store)
 *     .fromEnvironment()
 *     .build();
 * }</pre>
 * Settings are applied in call order, so {@code fromEnvironment()} last lets the environment override code. The
 * defaults and bounds are the constants below; front ends (the L2 server's flags, engine adapters) derive their own
 * defaults and help from them and leave the checking to {@link #validate()}, whose {@link InvalidSettingException}
 * names the setting (the method's name) so the front end can name its own flag.
 *
 * <p>Memory: the builder names the store and the origin; the cache built from it owns and closes them. A builder
 * builds one cache.
 */
public final class RangeCacheBuilder
{
    /** Default block size: 1 MiB. */
    public static final int DEFAULT_BLOCK_SIZE = RamBlockStore.Context.DEFAULT_BLOCK_SIZE;
    /** Smallest block size (a slab slot). */
    public static final int MIN_BLOCK_SIZE = BlockSlab.MIN_SLOT_SIZE;
    /** Largest block size (a slab slot). */
    public static final int MAX_BLOCK_SIZE = BlockSlab.MAX_SLOT_SIZE;
    /** Default cap of one coalesced origin GET: 8 MiB. */
    public static final int DEFAULT_MAX_COALESCED_GET_BYTES = 8 << 20;
    /** Largest cap of one coalesced origin GET: 256 MiB. */
    public static final int MAX_COALESCED_GET_BYTES_LIMIT = 256 << 20;
    /** Default gap of unrequested missing bytes a read's GET reads through: 0 (a GET per run of wanted blocks). */
    public static final int DEFAULT_COALESCE_GAP_BYTES = 0;
    /** Default L1 capacity: 200 MiB. */
    public static final long DEFAULT_L1_BYTES = RamBlockStore.Context.DEFAULT_CAPACITY_BYTES;
    /** Default window of a streaming read, in blocks. */
    public static final int DEFAULT_STREAM_WINDOW_BLOCKS = 8;
    /** Default windows of one read in flight at once. */
    public static final int DEFAULT_STREAM_WINDOWS_IN_FLIGHT = 2;
    /** Default origin request deadline, in milliseconds. */
    public static final int DEFAULT_ORIGIN_TIMEOUT_MS = 30_000;
    /** Default number of objects whose id and size are remembered. */
    public static final int DEFAULT_MAX_OBJECTS = 1_000_000;
    /** Default origin GETs in flight in a query process ({@link Deployment#L1}). */
    public static final int L1_FETCH_PERMITS = 16;
    /** Default GETs of those reserved for demand reads in a query process. */
    public static final int L1_DEMAND_RESERVED_PERMITS = 4;
    /** Default origin GETs in flight in the shared cache server ({@link Deployment#L2}). */
    public static final int L2_FETCH_PERMITS = 32;
    /** Default GETs of those reserved for demand reads in the shared cache server. */
    public static final int L2_DEMAND_RESERVED_PERMITS = 8;

    /** Environment variable of {@link #l1CapacityBytes(long)}, in MiB. */
    public static final String ENV_L1_MB = "OFFCACHE_L1_MB";
    /** Environment variable of {@link #blockSize(int)}. */
    public static final String ENV_BLOCK_SIZE = "OFFCACHE_BLOCK_SIZE";
    /** Environment variable of {@link #maxCoalescedGetBytes(int)}. */
    public static final String ENV_MAX_COALESCED_GET_BYTES = "OFFCACHE_MAX_COALESCED_GET_BYTES";
    /** Environment variable of {@link #coalesceGapBytes(int)}. */
    public static final String ENV_COALESCE_GAP_BYTES = "OFFCACHE_COALESCE_GAP_BYTES";
    /** Environment variable of the total of {@link #fetchPermits(int, int)}. */
    public static final String ENV_FETCH_PERMITS = "OFFCACHE_FETCH_PERMITS";
    /** Environment variable of the demand reserve of {@link #fetchPermits(int, int)}. */
    public static final String ENV_DEMAND_RESERVED_PERMITS = "OFFCACHE_DEMAND_RESERVED_PERMITS";
    /** Environment variable of the window of {@link #streamWindows(int, int)}. */
    public static final String ENV_STREAM_WINDOW_BLOCKS = "OFFCACHE_STREAM_WINDOW_BLOCKS";
    /** Environment variable of the windows in flight of {@link #streamWindows(int, int)}. */
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
    private Deployment deployment = Deployment.L1;
    private int blockSize = DEFAULT_BLOCK_SIZE;
    private int maxCoalescedGetBytes = DEFAULT_MAX_COALESCED_GET_BYTES;
    private int coalesceGapBytes = DEFAULT_COALESCE_GAP_BYTES;
    private long l1CapacityBytes = DEFAULT_L1_BYTES;
    private int fetchPermits = -1;
    private int demandReservedPermits = -1;
    private int streamWindowBlocks = DEFAULT_STREAM_WINDOW_BLOCKS;
    private int streamWindowsInFlight = DEFAULT_STREAM_WINDOWS_IN_FLIGHT;
    private List<String> bypassPrefixes = List.of();
    private Duration originTimeout = Duration.ofMillis(DEFAULT_ORIGIN_TIMEOUT_MS);
    private int maxObjects = DEFAULT_MAX_OBJECTS;
    private Path countersFile;
    private boolean built;

    /**
     * Which deployment the engine serves; it sets the default fetch permits.
     */
    public enum Deployment
    {
        /** In a query process: 16 GETs in flight, 4 reserved for demand. */
        L1(L1_FETCH_PERMITS, L1_DEMAND_RESERVED_PERMITS),
        /** In the shared cache server: 32 GETs in flight, 8 reserved for demand. */
        L2(L2_FETCH_PERMITS, L2_DEMAND_RESERVED_PERMITS);

        private final int permits;
        private final int demandReserved;

        Deployment(final int permits, final int demandReserved)
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
     * Makes a store for a capacity and block size, so {@code OFFCACHE_L1_MB} can size it.
     */
    @FunctionalInterface
    public interface StoreFactory
    {
        /**
         * Makes a store.
         *
         * @param capacityBytes the capacity, at least one block.
         * @param blockSize   the block size.
         * @return a new store the engine will own.
         */
        BlockStore create(long capacityBytes, int blockSize);
    }

    RangeCacheBuilder()
    {
    }

    /**
     * Sets the origin or the next cache level; the cache owns and closes it.
     *
     * @param origin the origin or the next cache level; the cache owns and closes it.
     * @return this.
     */
    public RangeCacheBuilder origin(final ObjectStore origin)
    {
        this.origin = origin;
        return this;
    }

    /**
     * Sets a ready block store (a RAM store, or the server.s tiers), used unless the capacity is 0; the cache owns and
     * closes it.
     *
     * @param store the block store; the cache owns and closes it.
     * @return this.
     */
    public RangeCacheBuilder store(final BlockStore store)
    {
        this.store = store;
        return this;
    }

    /**
     * Sets the factory that makes the store from the capacity ({@code OFFCACHE_L1_MB}) when no store is given;
     * without one a {@link Deployment#L1} cache makes the off-heap W-TinyLFU {@link RamBlockStore}.
     *
     * @param factory makes the store from the capacity when no store is given.
     * @return this.
     */
    public RangeCacheBuilder storeFactory(final StoreFactory factory)
    {
        this.storeFactory = factory;
        return this;
    }

    /**
     * Sets the store's capacity (default {@link #DEFAULT_L1_BYTES}); 0 makes the cache a pass-through with no
     * store.
     *
     * @param bytes the store's capacity; 0 makes the cache a pass-through with no store.
     * @return this.
     */
    public RangeCacheBuilder l1CapacityBytes(final long bytes)
    {
        this.l1CapacityBytes = bytes;
        return this;
    }

    /**
     * Sets the deployment: L1 (in-process, 16/4 GETs) or L2 (server, 32/8 GETs) defaults.
     *
     * @param deployment L1 (in-process, 16/4 GETs) or L2 (server, 32/8 GETs) defaults.
     * @return this.
     */
    public RangeCacheBuilder deployment(final Deployment deployment)
    {
        this.deployment = Objects.requireNonNull(deployment, "deployment");
        return this;
    }

    /**
     * Sets the bytes per block, a power of two in [{@link #MIN_BLOCK_SIZE}, {@link #MAX_BLOCK_SIZE}] (default
     * {@link #DEFAULT_BLOCK_SIZE}).
     *
     * @param bytes bytes per block.
     * @return this.
     */
    public RangeCacheBuilder blockSize(final int bytes)
    {
        this.blockSize = bytes;
        return this;
    }

    /**
     * Sets the largest origin GET that contiguous missing blocks are merged into, from one block to
     * {@link #MAX_COALESCED_GET_BYTES_LIMIT} (default {@link #DEFAULT_MAX_COALESCED_GET_BYTES}).
     *
     * @param bytes the largest origin GET that contiguous missing blocks are merged into.
     * @return this.
     */
    public RangeCacheBuilder maxCoalescedGetBytes(final int bytes)
    {
        this.maxCoalescedGetBytes = bytes;
        return this;
    }

    /**
     * Sets how many bytes of blocks no range asks for a read's GET may read through: when two runs of missing
     * blocks of one read (a vectored read's ranges, e.g. a row group's column chunks) are apart by at most this
     * many bytes of blocks that are neither held nor being fetched, the gap's blocks are fetched (and cached) in
     * the same GET instead of a second GET being sent. 0 (the default) reads only the blocks asked for.
     *
     * @param bytes the largest gap read through, in bytes (whole blocks count).
     * @return this.
     */
    public RangeCacheBuilder coalesceGapBytes(final int bytes)
    {
        this.coalesceGapBytes = bytes;
        return this;
    }

    /**
     * Sets the fetch permits (default: per deployment, {@link #L1_FETCH_PERMITS}/{@link #L1_DEMAND_RESERVED_PERMITS} or
     * {@link #L2_FETCH_PERMITS}/{@link #L2_DEMAND_RESERVED_PERMITS}).
     *
     * @param total          origin GETs in flight at most, at least 1.
     * @param demandReserved of which only demand may use this many, fewer than {@code total}.
     * @return this.
     */
    public RangeCacheBuilder fetchPermits(final int total, final int demandReserved)
    {
        this.fetchPermits = total;
        this.demandReservedPermits = demandReserved;
        return this;
    }

    /**
     * Sets the streaming windows (default {@link #DEFAULT_STREAM_WINDOW_BLOCKS} blocks,
     * {@link #DEFAULT_STREAM_WINDOWS_IN_FLIGHT} in flight).
     *
     * @param blocks   blocks per window of a large read.
     * @param inFlight windows fetched at once.
     * @return this.
     */
    public RangeCacheBuilder streamWindows(final int blocks, final int inFlight)
    {
        this.streamWindowBlocks = blocks;
        this.streamWindowsInFlight = inFlight;
        return this;
    }

    /**
     * Sets the key prefixes whose reads skip the store (data read once).
     *
     * @param prefixes key prefixes whose reads skip the store.
     * @return this.
     */
    public RangeCacheBuilder bypassPrefixes(final List<String> prefixes)
    {
        this.bypassPrefixes = Collections.unmodifiableList(new ArrayList<>(prefixes));
        return this;
    }

    /**
     * Sets the deadline of one origin request (default {@link #DEFAULT_ORIGIN_TIMEOUT_MS} ms); a stalled GET fails
     * its waiters after it.
     *
     * @param timeout deadline of one origin request.
     * @return this.
     */
    public RangeCacheBuilder originTimeout(final Duration timeout)
    {
        this.originTimeout = Objects.requireNonNull(timeout, "originTimeout");
        return this;
    }

    /**
     * Sets how many objects' ids and sizes are remembered (default {@link #DEFAULT_MAX_OBJECTS}).
     *
     * @param maxObjects objects whose ids and sizes are remembered.
     * @return this.
     */
    public RangeCacheBuilder maxObjects(final int maxObjects)
    {
        this.maxObjects = maxObjects;
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
        this.countersFile = file;
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
     * Applies the {@code OFFCACHE_*} variables found in a map (others are ignored).
     *
     * @param env the variables, usually {@link System#getenv()}.
     * @return this.
     * @throws IllegalArgumentException naming the variable when a value does not parse.
     */
    public RangeCacheBuilder fromEnvironment(final Map<String, String> env)
    {
        final EnvironmentReader reader = new EnvironmentReader(env);
        reader.bytes(ENV_L1_MB, 1L << 20, Long.MAX_VALUE >> 20).ifPresent((v) -> l1CapacityBytes = v);
        reader.size(ENV_BLOCK_SIZE).ifPresent((v) -> blockSize = v);
        reader.size(ENV_MAX_COALESCED_GET_BYTES).ifPresent((v) -> maxCoalescedGetBytes = v);
        reader.nonNegativeInt(ENV_COALESCE_GAP_BYTES).ifPresent((v) -> coalesceGapBytes = v);
        reader.positiveInt(ENV_FETCH_PERMITS).ifPresent((v) -> fetchPermits = v);
        reader.nonNegativeInt(ENV_DEMAND_RESERVED_PERMITS).ifPresent((v) -> demandReservedPermits = v);
        reader.positiveInt(ENV_STREAM_WINDOW_BLOCKS).ifPresent((v) -> streamWindowBlocks = v);
        reader.positiveInt(ENV_STREAM_WINDOWS_IN_FLIGHT).ifPresent((v) -> streamWindowsInFlight = v);
        reader.list(ENV_L1_BYPASS_PREFIXES).ifPresent(this::bypassPrefixes);
        reader.positiveInt(ENV_ORIGIN_TIMEOUT_MS).ifPresent((v) -> originTimeout = Duration.ofMillis(v));
        reader.positiveInt(ENV_MAX_OBJECTS).ifPresent((v) -> maxObjects = v);
        reader.string(ENV_RANGE_COUNTERS_FILE).ifPresent((v) -> countersFile = Path.of(v));
        return this;
    }

    /**
     * Checks the settings without making anything, so a front end can refuse a bad value before it allocates.
     * {@link #build()} checks them again.
     *
     * @return this.
     * @throws InvalidSettingException naming the first setting that is wrong (its method's name).
     */
    public RangeCacheBuilder validate()
    {
        if (!BlockSlab.isSlotSize(blockSize))
        {
            throw invalid("blockSize", "must be a power of two from " + MIN_BLOCK_SIZE + " to " + MAX_BLOCK_SIZE +
                " bytes, was " + blockSize);
        }
        if (maxCoalescedGetBytes < blockSize || maxCoalescedGetBytes > MAX_COALESCED_GET_BYTES_LIMIT)
        {
            throw invalid("maxCoalescedGetBytes", "must be from one block (" + blockSize + ") to " +
                MAX_COALESCED_GET_BYTES_LIMIT + " bytes, was " + maxCoalescedGetBytes);
        }
        if (coalesceGapBytes < 0 || coalesceGapBytes > maxCoalescedGetBytes)
        {
            throw invalid("coalesceGapBytes", "must be from 0 to maxCoalescedGetBytes (" + maxCoalescedGetBytes +
                "), was " + coalesceGapBytes);
        }
        final int permits = fetchPermitsOrDefault();
        if (permits < 1)
        {
            throw invalid("fetchPermits", "must be >= 1, was " + permits);
        }
        final int reserved = demandReservedPermitsOrDefault(permits);
        if (reserved < 0 || reserved >= permits)
        {
            throw invalid("demandReservedPermits", "must be >= 0 and < fetchPermits (" + permits +
                ") so prefetch keeps at least one, was " + reserved);
        }
        if (streamWindowBlocks < 1 || streamWindowsInFlight < 1)
        {
            throw invalid("streamWindows", "blocks and windows in flight must be >= 1, were " +
                streamWindowBlocks + ", " + streamWindowsInFlight);
        }
        if (l1CapacityBytes < 0)
        {
            throw invalid("l1CapacityBytes", "must be >= 0, was " + l1CapacityBytes);
        }
        if (l1CapacityBytes > 0 && l1CapacityBytes < blockSize && store == null &&
            (storeFactory != null || deployment == Deployment.L1))
        {
            throw invalid("l1CapacityBytes", "must hold at least one block (" + blockSize + ") or be 0 to turn the " +
                "store off, was " + l1CapacityBytes);
        }
        if (originTimeout.isNegative() || originTimeout.isZero())
        {
            throw invalid("originTimeout", "must be positive, was " + originTimeout);
        }
        if (maxObjects < 1)
        {
            throw invalid("maxObjects", "must be >= 1, was " + maxObjects);
        }
        for (final String prefix : bypassPrefixes)
        {
            if (prefix == null || prefix.isEmpty())
            {
                throw invalid("bypassPrefixes", "must not be empty, were " + bypassPrefixes);
            }
        }
        return this;
    }

    /**
     * Validates the settings and builds the cache.
     *
     * @return a new cache that owns the origin and the store.
     * @throws InvalidSettingException naming the first setting that is wrong.
     * @throws IllegalStateException   when this builder already built a cache.
     */
    public RangeCache build()
    {
        Objects.requireNonNull(origin, "origin must be set");
        if (built)
        {
            throw new IllegalStateException("a RangeCacheBuilder builds one cache (it hands its store over)");
        }
        validate();
        fetchPermits = fetchPermitsOrDefault();
        demandReservedPermits = demandReservedPermitsOrDefault(fetchPermits);
        if (l1CapacityBytes == 0)
        {
            if (store != null)
            {
                store.close();
            }
            store = null;
        }
        else if (store == null && (storeFactory != null || deployment == Deployment.L1))
        {
            // In an engine process the default store is the off-heap W-TinyLFU L1, sized by OFFCACHE_L1_MB.
            store = (storeFactory != null ? storeFactory : (StoreFactory) RamBlockStore::create)
                .create(l1CapacityBytes, blockSize);
        }
        built = true;
        return new RangeCache(this);
    }

    private int fetchPermitsOrDefault()
    {
        return fetchPermits < 0 ? deployment.permits() : fetchPermits;
    }

    private int demandReservedPermitsOrDefault(final int permits)
    {
        return demandReservedPermits < 0 ? Math.min(deployment.demandReserved(), permits - 1) : demandReservedPermits;
    }

    private static InvalidSettingException invalid(final String setting, final String problem)
    {
        return InvalidSettingException.of(setting, problem);
    }

    // What the cache reads once built (settings resolved by build()).

    ObjectStore origin()
    {
        return origin;
    }

    BlockStore store()
    {
        return store;
    }

    Deployment deployment()
    {
        return deployment;
    }

    int blockSize()
    {
        return blockSize;
    }

    int maxCoalescedGetBytes()
    {
        return maxCoalescedGetBytes;
    }

    int coalesceGapBytes()
    {
        return coalesceGapBytes;
    }

    long l1CapacityBytes()
    {
        return l1CapacityBytes;
    }

    int fetchPermits()
    {
        return fetchPermits;
    }

    int demandReservedPermits()
    {
        return demandReservedPermits;
    }

    int streamWindowBlocks()
    {
        return streamWindowBlocks;
    }

    int streamWindowsInFlight()
    {
        return streamWindowsInFlight;
    }

    List<String> bypassPrefixes()
    {
        return bypassPrefixes;
    }

    Duration originTimeout()
    {
        return originTimeout;
    }

    int maxObjects()
    {
        return maxObjects;
    }

    Path countersFile()
    {
        return countersFile;
    }
}
