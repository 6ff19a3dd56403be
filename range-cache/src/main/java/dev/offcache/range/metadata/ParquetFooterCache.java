package dev.offcache.range.metadata;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.stats.CacheStats;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.io.DirectBufferInputStream;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.Util;

import dev.offcache.range.config.EnvironmentReader;
import dev.offcache.range.metrics.MetricFamilies;

/**
 * Object key to parsed Parquet footer, weighed by footer bytes: a hot footer is neither refetched nor reparsed.
 *
 * <p>On a miss the cache reads the 8-byte trailer through the {@link TailReader} (footer length, little-endian, then
 * {@code PAR1}), then the footer and trailer together, and parses them with parquet-format's
 * {@link Util#readFileMetaData}. Concurrent misses on one key share one load (Caffeine's per-key compute), and a
 * failed load caches nothing, so the next call tries again. The parsed footers live on the heap, owned by the
 * cache (Caffeine, W-TinyLFU, bounded by total footer bytes).
 *
 * @param <K> the object key type; the engine's object key (with its version, where the store has one).
 */
public final class ParquetFooterCache<K>
{
    /** Environment variable of the capacity in MiB. */
    public static final String CAPACITY_ENV = "OFFCACHE_METADATA_CACHE_MB";
    /** Default capacity in MiB. */
    public static final long DEFAULT_CAPACITY_MB = 50;
    /** Largest footer accepted by default: 64 MiB. */
    public static final int DEFAULT_MAX_FOOTER_BYTES = 64 * 1024 * 1024;

    private static final int TRAILER = 8;
    private static final byte[] MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ENCRYPTED_MAGIC = "PARE".getBytes(StandardCharsets.US_ASCII);

    private final TailReader<K> tailReader;
    private final int maxFooterBytes;
    private final Cache<K, ParquetFooter> cache;
    private final LongAdder tailReads = new LongAdder();
    private final LongAdder parses = new LongAdder();

    /**
     * Creates a cache.
     *
     * @param capacityBytes    the most footer bytes to hold; 0 keeps nothing (every call reads and parses).
     * @param maxFooterBytes the largest footer to accept; larger ones are refused as implausible.
     * @param tailReader     where footer bytes come from.
     */
    public ParquetFooterCache(final long capacityBytes, final int maxFooterBytes, final TailReader<K> tailReader)
    {
        if (capacityBytes < 0)
        {
            throw new IllegalArgumentException(
                "metadata cache capacity (" + CAPACITY_ENV + ") must be >= 0: " + capacityBytes);
        }
        if (maxFooterBytes < 1)
        {
            throw new IllegalArgumentException("maxFooterBytes must be >= 1: " + maxFooterBytes);
        }
        this.tailReader = Objects.requireNonNull(tailReader, "tailReader");
        this.maxFooterBytes = maxFooterBytes;
        cache = Caffeine.newBuilder()
            .maximumWeight(capacityBytes)
            .weigher((final K key, final ParquetFooter footer) -> footer.footerBytes())
            .recordStats()
            .build();
    }

    /**
     * Creates a cache with the capacity from {@value #CAPACITY_ENV} (default {@value #DEFAULT_CAPACITY_MB} MiB).
     *
     * @param environment the process environment, e.g. {@code System.getenv()}.
     * @param tailReader  where footer bytes come from.
     * @param <K>         the object key type.
     * @return the cache.
     * @throws IllegalArgumentException naming the variable if its value is not a non-negative whole number.
     */
    public static <K> ParquetFooterCache<K> fromEnvironment(
        final Map<String, String> environment, final TailReader<K> tailReader)
    {
        final long capacityBytes = new EnvironmentReader(environment)
            .bytes(CAPACITY_ENV, 1L << 20, Long.MAX_VALUE >> 20)
            .orElse(DEFAULT_CAPACITY_MB << 20);
        return new ParquetFooterCache<>(capacityBytes, DEFAULT_MAX_FOOTER_BYTES, tailReader);
    }

    /**
     * The parsed footer of a Parquet object, from the cache or read and parsed once.
     *
     * @param key the object.
     * @return the footer.
     * @throws IOException if the tail cannot be read or is not a valid, unencrypted Parquet footer.
     */
    public ParquetFooter footer(final K key) throws IOException
    {
        Objects.requireNonNull(key, "key");
        try
        {
            return cache.get(key, this::load);
        }
        catch (final UncheckedIOException ex)
        {
            throw ex.getCause();
        }
    }

    /**
     * The parsed footer if it is cached, without reading anything.
     *
     * @param key the object.
     * @return the footer, or null.
     */
    public ParquetFooter getIfPresent(final K key)
    {
        return cache.getIfPresent(key);
    }

    /**
     * How many tail reads the cache has made (two per load).
     *
     * @return tail reads.
     */
    public long tailReads()
    {
        return tailReads.sum();
    }

    /**
     * How many footers were parsed.
     *
     * @return parses.
     */
    public long parses()
    {
        return parses.sum();
    }

    /**
     * Hit, miss, load and eviction counts.
     *
     * @return Caffeine's statistics snapshot.
     */
    public CacheStats stats()
    {
        return cache.stats();
    }

    /**
     * The number of cached footers (approximate while evictions are pending).
     *
     * @return entries.
     */
    public long entryCount()
    {
        return cache.estimatedSize();
    }

    /**
     * The footer bytes held.
     *
     * @return total weight.
     */
    public long weightBytes()
    {
        return cache.policy().eviction().map((eviction) -> eviction.weightedSize().orElse(0)).orElse(0L);
    }

    /**
     * Adds the cache's counters to a scrape ({@code offcache_metadata_cache_*}), read now.
     *
     * @param out the scrape's families.
     */
    public void collectInto(final MetricFamilies out)
    {
        final CacheStats stats = cache.stats();
        out.counter("offcache_metadata_cache_hits_total", "Footer lookups answered from the cache.",
            stats.hitCount());
        out.counter("offcache_metadata_cache_misses_total", "Footer lookups that loaded (or failed to load).",
            stats.missCount());
        out.counter("offcache_metadata_cache_evictions_total", "Footers evicted to keep the capacity.",
            stats.evictionCount());
        out.counter("offcache_metadata_cache_tail_reads_total", "Tail reads made to load footers.", tailReads());
        out.counter("offcache_metadata_cache_parses_total", "Footers parsed.", parses());
        out.gauge("offcache_metadata_cache_entries", "Footers held (approximate while evictions are pending).",
            entryCount());
        out.gauge("offcache_metadata_cache_weight_bytes", "Footer bytes held.", weightBytes());
    }

    /**
     * Runs pending maintenance (evictions) now.
     */
    public void cleanUp()
    {
        cache.cleanUp();
    }

    private ParquetFooter load(final K key)
    {
        try
        {
            final DirectBuffer trailer = readTail(key, TRAILER);
            if (!hasMagic(trailer, 4, MAGIC))
            {
                if (hasMagic(trailer, 4, ENCRYPTED_MAGIC))
                {
                    throw new IOException("Parquet object " + key + " has an encrypted footer (PARE): not supported");
                }
                throw new IOException("object " + key + " is not a Parquet file: its last 4 bytes are not PAR1");
            }
            final int footerLength = trailer.getInt(0, ByteOrder.LITTLE_ENDIAN);
            if (footerLength <= 0 || footerLength > maxFooterBytes)
            {
                throw new IOException("Parquet object " + key + " declares an implausible footer length " +
                    footerLength +
                    " (accepted: 1.." + maxFooterBytes + ")");
            }
            final DirectBuffer tail = readTail(key, footerLength + TRAILER);
            final FileMetaData metaData;
            try
            {
                metaData = Util.readFileMetaData(new DirectBufferInputStream(tail, 0, footerLength));
            }
            catch (final IOException | RuntimeException ex)
            {
                throw new IOException("Parquet footer of " + key + " (" + footerLength + " bytes) does not parse: " +
                    ex.getMessage(), ex);
            }
            parses.increment();
            return new ParquetFooter(metaData, footerLength);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private DirectBuffer readTail(final K key, final int length) throws IOException
    {
        tailReads.increment();
        // A miss only: the footer is parsed from this heap copy once, then the parsed form is what is cached.
        final UnsafeBuffer tail = new UnsafeBuffer(new byte[length]);
        final int read = tailReader.readTail(key, tail, 0, length);
        if (read != length)
        {
            throw new IOException("object " + key + " is too short for a Parquet footer: wanted its last " + length +
                " bytes, got " + read);
        }
        return tail;
    }

    private static boolean hasMagic(final DirectBuffer buffer, final int offset, final byte[] magic)
    {
        for (int i = 0; i < magic.length; i++)
        {
            if (buffer.getByte(offset + i) != magic[i])
            {
                return false;
            }
        }
        return true;
    }
}
