package dev.offcache.hadoop.fs;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.hadoop.fs.statistics.IOStatistics;
import org.apache.hadoop.fs.statistics.MeanStatistic;
import org.apache.hadoop.fs.statistics.StreamStatisticNames;

import dev.offcache.range.metrics.ReadStatistics;

/**
 * What one {@link CachedInputStream} did, published through Hadoop's {@link IOStatistics} (so Spark, Iceberg and
 * {@code IOStatisticsLogging} see it). Every counter is this stream's own, exact whatever other streams of the JVM
 * read through the same shared cache: the stream's calls under Hadoop's standard names
 * ({@code StreamStatisticNames}), and what the cache did for them under {@code offcache_} names, counted by the
 * engine in the stream's {@link ReadStatistics} as it serves each read. So the values add up when engines aggregate
 * stream statistics (per task, per query). The JVM-wide counters of the shared cache are not repeated here (summed
 * over streams they would mean nothing): they are on {@code SharedCache.cache().stats()} and
 * {@code SharedCache.l2()}.
 */
final class StreamStatistics implements IOStatistics
{
    /** Bytes the stream returned. */
    static final String BYTES = StreamStatisticNames.STREAM_READ_BYTES;
    /** Read calls. */
    static final String READS = StreamStatisticNames.STREAM_READ_OPERATIONS;
    /** Seeks. */
    static final String SEEKS = StreamStatisticNames.STREAM_READ_SEEK_OPERATIONS;
    /** Vectored read calls. */
    static final String VECTORED = StreamStatisticNames.STREAM_READ_VECTORED_OPERATIONS;
    /** Ranges asked for by vectored reads. */
    static final String VECTORED_RANGES = StreamStatisticNames.STREAM_READ_VECTORED_INCOMING_RANGES;
    /** Reads the cache failed and the wrapped file system served. */
    static final String FALLBACKS = "offcache_stream_fallbacks";
    /** Bytes the wrapped file system's own stream returned for those reads. */
    static final String FALLBACK_BYTES = "offcache_stream_fallback_bytes";
    /** Blocks this stream's reads found in L1 (the JVM's RAM cache). */
    static final String L1_HITS = "offcache_l1_block_hits";
    /** Blocks this stream's reads did not find in L1. */
    static final String L1_MISSES = "offcache_l1_block_misses";
    /** Of the misses: blocks another stream was already fetching, which this stream waited for (no request). */
    static final String JOINED = "offcache_l1_joined_fetches";
    /** Bytes returned from blocks found in L1. */
    static final String BYTES_FROM_L1 = "offcache_bytes_from_l1";
    /** Bytes returned from blocks that missed L1. */
    static final String BYTES_FROM_FETCHES = "offcache_bytes_from_fetches";
    /** Requests this stream's misses sent below L1 (to the L2 servers or the wrapped file system). */
    static final String FETCH_REQUESTS = "offcache_fetch_requests";
    /** Bytes those requests brought: whole blocks, gaps read through included. */
    static final String FETCH_BYTES = "offcache_fetch_bytes";
    /** Of the fetch requests: those the L2 servers served (with L2 servers only). */
    static final String L2_HITS = "offcache_l2_hits";
    /** Bytes the L2 servers served (with L2 servers only). */
    static final String L2_BYTES = "offcache_l2_bytes";
    /** Of the fetch requests sent to L2: those L2 failed, served by the wrapped file system (with L2 only). */
    static final String L2_FALLBACKS = "offcache_l2_fallbacks";
    /** Of the fetch requests sent to L2: answers for another file length, served by the file system (L2 only). */
    static final String L2_SIZE_MISMATCHES = "offcache_l2_size_mismatches";
    /** Of the fetch requests under an L2 root: served by the file system, L2's size unchecked (L2 only). */
    static final String L2_UNVERIFIED = "offcache_l2_unverified";
    /** Of the fetch requests: those the wrapped file system served (the origin). */
    static final String ORIGIN_REQUESTS = "offcache_origin_requests";
    /** Bytes the wrapped file system served for them. */
    static final String ORIGIN_BYTES = "offcache_origin_bytes";

    private final boolean l2;
    private final ReadStatistics cache = new ReadStatistics();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong reads = new AtomicLong();
    private final AtomicLong seeks = new AtomicLong();
    private final AtomicLong vectored = new AtomicLong();
    private final AtomicLong vectoredRanges = new AtomicLong();

    /**
     * Counters for one stream.
     *
     * @param l2 whether the shared cache has L2 servers (their counters are published then).
     */
    StreamStatistics(final boolean l2)
    {
        this.l2 = l2;
    }

    /** The counters the engine fills for this stream's reads. */
    ReadStatistics cache()
    {
        return cache;
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

    /** A read the cache failed: the wrapped file system's own stream serves it. */
    void fallback()
    {
        cache.fallback();
    }

    /** Bytes the wrapped file system's own stream returned for a read the cache failed. */
    void fallbackBytes(final long n)
    {
        cache.fallbackBytes(n);
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
        counters.put(FALLBACKS, cache.fallbacks());
        counters.put(FALLBACK_BYTES, cache.fallbackBytes());
        counters.put(L1_HITS, cache.blockHits());
        counters.put(L1_MISSES, cache.blockMisses());
        counters.put(JOINED, cache.joinedBlocks());
        counters.put(BYTES_FROM_L1, cache.hitBytes());
        counters.put(BYTES_FROM_FETCHES, cache.missBytes());
        // A request is counted when it is sent, its L2 hit when L2 answers and its bytes when its blocks land: while
        // one is in flight the differences may lag (never below zero); between reads they are exact.
        final long l2Hits = cache.l2Hits();
        final long l2Bytes = cache.l2Bytes();
        final long requests = cache.originRequests();
        final long fetched = cache.originBytes();
        counters.put(FETCH_REQUESTS, requests);
        counters.put(FETCH_BYTES, fetched);
        counters.put(ORIGIN_REQUESTS, requests - l2Hits);
        counters.put(ORIGIN_BYTES, Math.max(0, fetched - l2Bytes));
        if (l2)
        {
            counters.put(L2_HITS, l2Hits);
            counters.put(L2_BYTES, l2Bytes);
            counters.put(L2_FALLBACKS, cache.l2Fallbacks());
            counters.put(L2_SIZE_MISMATCHES, cache.l2SizeMismatches());
            counters.put(L2_UNVERIFIED, cache.l2Unverified());
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
