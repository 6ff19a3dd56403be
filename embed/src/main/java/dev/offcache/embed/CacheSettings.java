package dev.offcache.embed;

import java.io.Serializable;
import java.util.Locale;
import java.util.function.Function;

import dev.offcache.core.slab.BlockSlab;

/**
 * The settings of a shared engine cache, read from an engine's own configuration (Hadoop {@code Configuration},
 * Iceberg catalog properties, Spark's {@code spark.hadoop.*}) under {@code offcache.*} keys. Two adapters with equal
 * settings share one cache in the JVM ({@link JvmCaches}); the settings are a value (equals, hashCode), and
 * serializable, so an adapter shipped to another JVM finds that JVM's cache for the same settings.
 *
 * <table>
 * <caption>keys</caption>
 * <tr><th>key</th><th>default</th><th>meaning</th></tr>
 * <tr><td>{@code offcache.l1.mb}</td><td>200</td><td>RAM capacity of the JVM's L1 (0: no store, reads pass
 * through)</td></tr>
 * <tr><td>{@code offcache.block.size}</td><td>256 KiB</td><td>bytes per block, a power of two in [4 KiB, 16 MiB];
 * {@code K}/{@code M} suffixes (the engine's own default is 1 MiB: see {@link #DEFAULT_BLOCK_SIZE} for why a scan
 * engine's is smaller)</td></tr>
 * <tr><td>{@code offcache.metadata.cache.mb}</td><td>50</td><td>parsed Parquet footers held</td></tr>
 * <tr><td>{@code offcache.fetch.permits}</td><td>16</td><td>origin reads in flight, a quarter reserved for demand
 * (the engine's fetch permits, and its L1 default); the older key {@code offcache.io.threads} is read when this one
 * is not set</td></tr>
 * <tr><td>{@code offcache.coalesce.gap}</td><td>1 MiB</td><td>the largest gap between two missing runs of one
 * read that a GET reads through instead of a second GET ({@code K}/{@code M} suffixes, 0 for none; the engine's own
 * default is none: see {@link #DEFAULT_COALESCE_GAP_BYTES} for why a scan engine reads through)</td></tr>
 * <tr><td>{@code offcache.l2.*}</td><td>no L2</td><td>the L2 servers misses go through ({@link L2Settings})</td></tr>
 * </table>
 *
 * @param l1Bytes            the L1 capacity; 0 for pass-through.
 * @param blockSize          bytes per block.
 * @param metadataCacheBytes the footer cache's capacity.
 * @param fetchPermits       origin reads in flight.
 * @param coalesceGapBytes   the largest gap of missing blocks one read's GET reads through.
 * @param l2                 the L2 servers and the locations they serve ({@link L2Settings#NONE} for none).
 */
public record CacheSettings(
    long l1Bytes, int blockSize, long metadataCacheBytes, int fetchPermits, int coalesceGapBytes, L2Settings l2)
    implements Serializable
{
    /** Key of the L1 capacity in MiB. */
    public static final String L1_MB = "offcache.l1.mb";
    /** Key of the block size. */
    public static final String BLOCK_SIZE = "offcache.block.size";
    /** Key of the footer cache capacity in MiB. */
    public static final String METADATA_CACHE_MB = "offcache.metadata.cache.mb";
    /** Key of the origin reads in flight (the engine's fetch permits). */
    public static final String FETCH_PERMITS = "offcache.fetch.permits";
    /** The older key of {@link #FETCH_PERMITS}, still read when that one is not set: it never counted threads. */
    public static final String IO_THREADS = "offcache.io.threads";
    /**
     * The default block size, 256 KiB: a column chunk's first and last block are read whole, so smaller blocks
     * read fewer bytes no column asked for (without gap read-through, a 3-of-6-column scan of 8 MiB row groups
     * reads 1.19x its needed bytes at 256 KiB, 1.65x at 1 MiB), while the gap read-through keeps a row group's
     * chunks in one GET (docs/engines.md has the figures).
     */
    public static final int DEFAULT_BLOCK_SIZE = 256 << 10;
    /** Key of the largest gap a GET reads through. */
    public static final String COALESCE_GAP = "offcache.coalesce.gap";
    /**
     * The default gap read through, 1 MiB: about what an object store delivers in the first-byte latency of a
     * second GET (~20 ms at ~50 MB/s), so reading the gap costs no more time than asking again.
     */
    public static final int DEFAULT_COALESCE_GAP_BYTES = 1 << 20;

    /**
     * Settings without L2, with the default gap.
     *
     * @param l1Bytes            the L1 capacity; 0 for pass-through.
     * @param blockSize          bytes per block.
     * @param metadataCacheBytes the footer cache's capacity.
     * @param fetchPermits       origin reads in flight.
     */
    public CacheSettings(final long l1Bytes, final int blockSize, final long metadataCacheBytes, final int fetchPermits)
    {
        this(l1Bytes, blockSize, metadataCacheBytes, fetchPermits, DEFAULT_COALESCE_GAP_BYTES, L2Settings.NONE);
    }

    /**
     * Validates the settings.
     */
    public CacheSettings
    {
        if (l2 == null)
        {
            throw new IllegalArgumentException("L2 settings are null: use L2Settings.NONE for no L2");
        }
        if (l1Bytes < 0)
        {
            throw new IllegalArgumentException("invalid " + L1_MB + ": must be >= 0, got " + (l1Bytes >> 20));
        }
        if (!BlockSlab.isSlotSize(blockSize))
        {
            throw new IllegalArgumentException("invalid " + BLOCK_SIZE + ": must be a power of two in [" +
                (BlockSlab.MIN_SLOT_SIZE >> 10) + "K, " + (BlockSlab.MAX_SLOT_SIZE >> 20) + "M], got " + blockSize);
        }
        if (l1Bytes > 0 && l1Bytes < blockSize)
        {
            throw new IllegalArgumentException("invalid " + L1_MB + ": smaller than one block of " + blockSize +
                " bytes");
        }
        if (metadataCacheBytes < 0)
        {
            throw new IllegalArgumentException("invalid " + METADATA_CACHE_MB + ": must be >= 0");
        }
        if (fetchPermits < 2 || fetchPermits > 1024)
        {
            throw new IllegalArgumentException("invalid " + FETCH_PERMITS + ": must be in [2, 1024], got " +
                fetchPermits);
        }
        if (coalesceGapBytes < 0 || coalesceGapBytes > (8 << 20))
        {
            throw new IllegalArgumentException("invalid " + COALESCE_GAP + ": must be in [0, 8M], got " +
                coalesceGapBytes);
        }
    }

    /**
     * The defaults: 200 MiB of L1, 256 KiB blocks, 50 MiB of footers, 16 origin reads in flight, 1 MiB gaps read
     * through.
     *
     * @return the defaults.
     */
    public static CacheSettings defaults()
    {
        return new CacheSettings(200L << 20, DEFAULT_BLOCK_SIZE, 50L << 20, 16);
    }

    /**
     * Reads the settings from an engine's configuration; absent keys keep their defaults, a bad value is refused
     * with a message naming the key. The L2 API key may come from the environment ({@link L2Settings#API_KEY_ENV}).
     *
     * @param lookup returns a key's value, or null when unset.
     * @return the settings.
     */
    public static CacheSettings from(final Function<String, String> lookup)
    {
        return from(lookup, System::getenv);
    }

    /**
     * Reads the settings from an engine's configuration and an environment.
     *
     * @param lookup returns a key's value, or null when unset.
     * @param env    returns an environment variable, or null.
     * @return the settings.
     */
    public static CacheSettings from(final Function<String, String> lookup, final Function<String, String> env)
    {
        final CacheSettings d = defaults();
        return new CacheSettings(
            mebibytes(lookup, L1_MB, d.l1Bytes),
            (int) bytes(lookup, BLOCK_SIZE, d.blockSize),
            mebibytes(lookup, METADATA_CACHE_MB, d.metadataCacheBytes),
            (int) number(lookup, FETCH_PERMITS, number(lookup, IO_THREADS, d.fetchPermits)),
            (int) Math.min(Integer.MAX_VALUE, bytes(lookup, COALESCE_GAP, d.coalesceGapBytes)),
            L2Settings.from(lookup, env));
    }

    private static long mebibytes(final Function<String, String> lookup, final String key, final long fallback)
    {
        final String value = lookup.apply(key);
        return value == null || value.isBlank() ? fallback : parse(key, value.trim()) << 20;
    }

    private static long number(final Function<String, String> lookup, final String key, final long fallback)
    {
        final String value = lookup.apply(key);
        return value == null || value.isBlank() ? fallback : parse(key, value.trim());
    }

    private static long bytes(final Function<String, String> lookup, final String key, final long fallback)
    {
        final String raw = lookup.apply(key);
        if (raw == null || raw.isBlank())
        {
            return fallback;
        }
        final String value = raw.trim().toUpperCase(Locale.ROOT);
        int shift = 0;
        String digits = value;
        for (final String[] unit : new String[][]{{"KIB", "10"}, {"MIB", "20"}, {"K", "10"}, {"M", "20"}})
        {
            if (value.endsWith(unit[0]))
            {
                shift = Integer.parseInt(unit[1]);
                digits = value.substring(0, value.length() - unit[0].length()).trim();
                break;
            }
        }
        return parse(key, digits) << shift;
    }

    private static long parse(final String key, final String value)
    {
        try
        {
            final long n = Long.parseLong(value);
            if (n < 0 || n > (1L << 40))
            {
                throw new IllegalArgumentException("invalid " + key + "='" + value + "': out of range");
            }
            return n;
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("invalid " + key + "='" + value + "': is not a number", ex);
        }
    }
}
