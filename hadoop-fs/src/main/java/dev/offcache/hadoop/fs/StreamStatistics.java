package dev.offcache.hadoop.fs;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.hadoop.fs.statistics.IOStatistics;
import org.apache.hadoop.fs.statistics.MeanStatistic;

import dev.offcache.embed.L2Bridge;
import dev.offcache.embed.SharedCache;

/**
 * What one {@link CachedInputStream} did, published through Hadoop's {@link IOStatistics} (so Spark, Iceberg and
 * {@code IOStatisticsLogging} see it), beside the counters of the JVM's shared cache it reads through. The stream's
 * own counters use Hadoop's standard names; the cache's carry an {@code offcache_} prefix and count every stream of
 * the JVM (the cache is shared).
 */
final class StreamStatistics implements IOStatistics
{
    /** Bytes the stream returned. */
    static final String BYTES = "stream_read_bytes";
    /** Read calls. */
    static final String READS = "stream_read_operations";
    /** Seeks. */
    static final String SEEKS = "stream_read_seek_operations";
    /** Vectored read calls. */
    static final String VECTORED = "stream_read_vectored_operations";
    /** Ranges asked for by vectored reads. */
    static final String VECTORED_RANGES = "stream_read_vectored_incoming_ranges";
    /** Reads the cache failed and the wrapped file system served. */
    static final String FALLBACKS = "offcache_stream_fallbacks";
    /** Block hits of the shared cache (every stream of the JVM). */
    static final String CACHE_HITS = "offcache_cache_block_hits";
    /** Block misses of the shared cache (every stream of the JVM). */
    static final String CACHE_MISSES = "offcache_cache_block_misses";
    /** Bytes the shared cache read from the wrapped file systems (every stream of the JVM). */
    static final String CACHE_ORIGIN_BYTES = "offcache_cache_origin_bytes";
    /** L1 misses the L2 servers served (every stream of the JVM; only with L2 servers). */
    static final String L2_HITS = "offcache_l2_hits";
    /** Bytes the L2 servers served. */
    static final String L2_BYTES = "offcache_l2_bytes";
    /** Reads sent to L2 that the wrapped file system served instead. */
    static final String L2_FALLBACKS = "offcache_l2_fallbacks";
    /** Files whose size on L2 differed from the length the engine gave (read from the file system). */
    static final String L2_SIZE_MISMATCHES = "offcache_l2_size_mismatches";
    /** Reads of files under an L2 root that went to the file system: L2 could not confirm the file's size. */
    static final String L2_UNVERIFIED = "offcache_l2_unverified";

    private final SharedCache shared;
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong reads = new AtomicLong();
    private final AtomicLong seeks = new AtomicLong();
    private final AtomicLong vectored = new AtomicLong();
    private final AtomicLong vectoredRanges = new AtomicLong();
    private final AtomicLong fallbacks = new AtomicLong();

    StreamStatistics(final SharedCache shared)
    {
        this.shared = shared;
    }

    void read(final long n)
    {
        reads.incrementAndGet();
        bytes.addAndGet(n);
    }

    void bytes(final long n)
    {
        bytes.addAndGet(n);
    }

    void seek()
    {
        seeks.incrementAndGet();
    }

    void vectored(final int ranges)
    {
        vectored.incrementAndGet();
        vectoredRanges.addAndGet(ranges);
    }

    void fallback()
    {
        fallbacks.incrementAndGet();
    }

    long fallbacks()
    {
        return fallbacks.get();
    }

    @Override
    public Map<String, Long> counters()
    {
        final Map<String, Long> counters = new TreeMap<>();
        counters.put(BYTES, bytes.get());
        counters.put(READS, reads.get());
        counters.put(SEEKS, seeks.get());
        counters.put(VECTORED, vectored.get());
        counters.put(VECTORED_RANGES, vectoredRanges.get());
        counters.put(FALLBACKS, fallbacks.get());
        counters.put(CACHE_HITS, shared.blockHits());
        counters.put(CACHE_MISSES, shared.blockMisses());
        counters.put(CACHE_ORIGIN_BYTES, shared.originBytes());
        final L2Bridge l2 = shared.l2();
        if (l2 != null)
        {
            counters.put(L2_HITS, l2.hits());
            counters.put(L2_BYTES, l2.bytes());
            counters.put(L2_FALLBACKS, l2.fallbacks());
            counters.put(L2_SIZE_MISMATCHES, l2.sizeMismatches());
            counters.put(L2_UNVERIFIED, l2.unverified());
        }
        return counters;
    }

    @Override
    public Map<String, Long> gauges()
    {
        return Map.of();
    }

    @Override
    public Map<String, Long> minimums()
    {
        return Map.of();
    }

    @Override
    public Map<String, Long> maximums()
    {
        return Map.of();
    }

    @Override
    public Map<String, MeanStatistic> meanStatistics()
    {
        return Map.of();
    }

    @Override
    public String toString()
    {
        return counters().toString();
    }
}
