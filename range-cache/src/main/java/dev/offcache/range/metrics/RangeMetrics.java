package dev.offcache.range.metrics;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersReader;

import dev.offcache.range.store.FetchClass;

/**
 * The counters of one range-cache engine, named {@code offcache_range_*} (see {@link MetricNames}).
 *
 * <p>Counters are Agrona {@link AtomicCounter}s, one cache-line pair each, so the hot path pays one atomic add
 * and nothing else. When given a file they live in a memory-mapped counters file ({@link CountersFile} layout)
 * that another process can read while this one runs; otherwise in a direct buffer this object owns. Origin GET
 * latency goes to an HdrHistogram in this process. Memory: a {@link CountersRegion}, released by {@link #close()};
 * reads after it return the final values. The hot-path updates are not guarded against a concurrent close (that
 * would cost two more atomics per hit), so callers stop reading before they close the engine that owns these.
 */
public final class RangeMetrics implements AutoCloseable
{
    private static final long MAX_LATENCY_NS = TimeUnit.MINUTES.toNanos(10);

    private final CountersRegion region;
    private final Histogram originGetLatencyNs = new ConcurrentHistogram(MAX_LATENCY_NS, 3);
    private volatile LongSupplier evictionSource = () -> 0;
    private volatile boolean closed;

    private final AtomicCounter blockRequests;
    private final AtomicCounter blockHits;
    private final AtomicCounter blockMisses;
    private final AtomicCounter demandGets;
    private final AtomicCounter prefetchGets;
    private final AtomicCounter demandBytes;
    private final AtomicCounter prefetchBytes;
    private final AtomicCounter originHeads;
    private final AtomicCounter originErrors;
    private final AtomicCounter coalescedBlocks;
    private final AtomicCounter singleFlightJoins;
    private final AtomicCounter promotions;
    private final AtomicCounter evictions;
    private final AtomicCounter fallbacks;
    private final AtomicCounter permitWaits;
    private final AtomicCounter bypassReads;
    private final AtomicCounter storePuts;
    private final AtomicCounter storeDeclines;
    private final AtomicCounter fetchesInFlight;
    private final AtomicCounter fileHits;
    private final AtomicCounter loadedHits;

    /**
     * Counters in a private direct buffer, readable only through this object.
     */
    public RangeMetrics()
    {
        this(null);
    }

    /**
     * Counters in a new counters file (replaced if present) when {@code counterFile} is not null.
     *
     * @param counterFile where to map the counters, or {@code null} to keep them in memory.
     */
    public RangeMetrics(final Path counterFile)
    {
        region = CountersRegion.open(counterFile);
        final CountersRegion counters = region;
        blockRequests = counters.newCounter(MetricNames.BLOCK_REQUESTS);
        blockHits = counters.newCounter(MetricNames.BLOCK_HITS);
        blockMisses = counters.newCounter(MetricNames.BLOCK_MISSES);
        demandGets = counters.newCounter(MetricNames.ORIGIN_GETS + MetricNames.DEMAND);
        prefetchGets = counters.newCounter(MetricNames.ORIGIN_GETS + MetricNames.PREFETCH);
        demandBytes = counters.newCounter(MetricNames.ORIGIN_BYTES + MetricNames.DEMAND);
        prefetchBytes = counters.newCounter(MetricNames.ORIGIN_BYTES + MetricNames.PREFETCH);
        originHeads = counters.newCounter(MetricNames.ORIGIN_HEADS);
        originErrors = counters.newCounter(MetricNames.ORIGIN_ERRORS);
        coalescedBlocks = counters.newCounter(MetricNames.COALESCED_BLOCKS);
        singleFlightJoins = counters.newCounter(MetricNames.SINGLE_FLIGHT_JOINS);
        promotions = counters.newCounter(MetricNames.PROMOTIONS);
        evictions = counters.newCounter(MetricNames.EVICTIONS);
        fallbacks = counters.newCounter(MetricNames.FALLBACKS);
        permitWaits = counters.newCounter(MetricNames.PERMIT_WAITS);
        bypassReads = counters.newCounter(MetricNames.BYPASS_READS);
        storePuts = counters.newCounter(MetricNames.STORE_PUTS);
        storeDeclines = counters.newCounter(MetricNames.STORE_DECLINES);
        fetchesInFlight = counters.newCounter(MetricNames.FETCHES_IN_FLIGHT);
        fileHits = counters.newCounter(MetricNames.BLOCK_FILE_HITS);
        loadedHits = counters.newCounter(MetricNames.BLOCK_LOADED_HITS);
    }

    /**
     * Where the evictions counter comes from (the store's own count).
     *
     * @param source read after each origin GET and on every snapshot.
     */
    public void evictionSource(final LongSupplier source)
    {
        evictionSource = source;
    }

    /** Blocks looked up in the store. */
    public void blockRequest()
    {
        blockRequests.increment();
    }

    /** A block found in the store. */
    public void blockHit()
    {
        blockHits.increment();
    }

    /** Of the hits: one handed out as a file region. */
    public void fileHit()
    {
        fileHits.increment();
    }

    /** Of the hits: one loaded from a slower tier first. */
    public void loadedHit()
    {
        loadedHits.increment();
    }

    /** A block not in the store. */
    public void blockMiss()
    {
        blockMisses.increment();
    }

    /** A reader joined a fetch already in flight. */
    public void singleFlightJoin()
    {
        singleFlightJoins.increment();
    }

    /** A queued or running prefetch became demand. */
    public void promotion()
    {
        promotions.increment();
    }

    /** A store failure that the engine routed around. */
    public void fallback()
    {
        fallbacks.increment();
    }

    /** A fetch that had to queue for a permit. */
    public void permitWait()
    {
        permitWaits.increment();
    }

    /** A read that skipped the store. */
    public void bypassRead()
    {
        bypassReads.increment();
    }

    /**
     * The store's answer to a put.
     *
     * @param kept whether it kept the block.
     */
    public void storePut(final boolean kept)
    {
        (kept ? storePuts : storeDeclines).increment();
    }

    /** An object-size request sent to the origin. */
    public void originHead()
    {
        originHeads.increment();
    }

    /** An origin request that failed (error, short data, timeout). */
    public void originError()
    {
        originErrors.increment();
    }

    /**
     * An origin GET started.
     *
     * @param fetchClass its class when it started.
     * @param blocks     the blocks it carries.
     */
    public void originGetStarted(final FetchClass fetchClass, final int blocks)
    {
        (fetchClass == FetchClass.DEMAND ? demandGets : prefetchGets).increment();
        if (blocks > 1)
        {
            coalescedBlocks.getAndAdd(blocks);
        }
        fetchesInFlight.increment();
    }

    /**
     * An origin GET ended.
     *
     * @param fetchClass its class when it ended.
     * @param bytes      bytes received.
     * @param latencyNs  time from start to end.
     */
    public void originGetEnded(final FetchClass fetchClass, final long bytes, final long latencyNs)
    {
        fetchesInFlight.decrement();
        (fetchClass == FetchClass.DEMAND ? demandBytes : prefetchBytes).getAndAdd(bytes);
        originGetLatencyNs.recordValue(Math.min(Math.max(latencyNs, 0), MAX_LATENCY_NS));
        refreshEvictions();
    }

    /**
     * The value of one counter by its full name (for example
     * {@code offcache_range_origin_gets_total{class="demand"}}).
     *
     * @param name the counter's name.
     * @return its value; {@code -1} when there is no such counter.
     */
    public long value(final String name)
    {
        return snapshot().getOrDefault(name, -1L);
    }

    /**
     * Every counter by name, in registration order.
     *
     * @return a new map.
     */
    public Map<String, Long> snapshot()
    {
        refreshEvictions();
        return region.snapshot();
    }

    /**
     * A copy of the origin GET latency histogram, in nanoseconds.
     *
     * @return a new histogram.
     */
    public Histogram originGetLatency()
    {
        return originGetLatencyNs.copy();
    }

    /**
     * The counters and the latency summary in the Prometheus text format.
     *
     * @return the exposition text.
     */
    public String toPrometheusText()
    {
        final StringBuilder text = new StringBuilder(2048);
        String lastFamily = "";
        for (final Map.Entry<String, Long> entry : snapshot().entrySet())
        {
            final String name = entry.getKey();
            final int brace = name.indexOf('{');
            final String family = brace < 0 ? name : name.substring(0, brace);
            if (!family.equals(lastFamily))
            {
                text.append("# TYPE ").append(family)
                    .append(family.endsWith("_total") ? " counter\n" : " gauge\n");
                lastFamily = family;
            }
            text.append(name).append(' ').append(entry.getValue()).append('\n');
        }
        final Histogram latency = originGetLatency();
        final String summary = MetricNames.ORIGIN_GET_SECONDS;
        text.append("# TYPE ").append(summary).append(" summary\n");
        for (final double quantile : new double[]{0.5, 0.9, 0.99, 0.999})
        {
            text.append(summary).append("{quantile=\"").append(quantile).append("\"} ")
                .append(seconds(latency.getValueAtPercentile(quantile * 100.0))).append('\n');
        }
        text.append(summary).append("_count ").append(latency.getTotalCount()).append('\n');
        text.append(summary).append("_sum ")
            .append(seconds((long) (latency.getMean() * latency.getTotalCount()))).append('\n');
        return text.toString();
    }

    /**
     * Frees the counters' memory (unmaps the file, which stays on disk for a last read).
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        region.close();
    }

    /**
     * A reader over any counters buffer in the {@link CountersFile} layout.
     *
     * @param whole the whole file's bytes.
     * @return the reader.
     */
    public static CountersReader reader(final UnsafeBuffer whole)
    {
        return new CountersReader(CountersFile.metadata(whole), CountersFile.values(whole));
    }

    private void refreshEvictions()
    {
        if (region.enter())
        {
            try
            {
                evictions.setRelease(evictionSource.getAsLong());
            }
            finally
            {
                region.exit();
            }
        }
    }

    private static String seconds(final long nanos)
    {
        return String.format(Locale.ROOT, "%.6f", nanos / 1e9);
    }
}
