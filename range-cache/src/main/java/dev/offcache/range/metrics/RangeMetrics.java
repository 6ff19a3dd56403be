package dev.offcache.range.metrics;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersReader;

import dev.offcache.core.counters.CounterTypes;
import dev.offcache.range.store.FetchClass;

/**
 * The counters of one range-cache engine, named {@code offcache_range_*} (see {@link MetricNames}).
 *
 * <p>Counters are Agrona {@link AtomicCounter}s, one cache-line pair each, so the hot path pays one atomic add
 * and nothing else. When given a file they live in a memory-mapped counters file ({@link CountersFile} layout)
 * that another process can read while this one runs; otherwise in a direct buffer this object owns. Origin GET
 * latency goes to an HdrHistogram in this process. {@link #collectInto} hands them, with the store's own families
 * ({@link #storeMetrics}), to a scrape as Prometheus client snapshots, read at scrape time only.
 * Memory: a {@link CountersRegion}, released by {@link #close()};
 * reads after it return the final values. The hot-path updates are not guarded against a concurrent close (that
 * would cost two more atomics per hit), so callers stop reading before they close the engine that owns these.
 */
public final class RangeMetrics implements AutoCloseable
{
    private static final long MAX_LATENCY_NS = TimeUnit.MINUTES.toNanos(10);

    private final CountersRegion region;
    private final Histogram originGetLatencyNs = new ConcurrentHistogram(MAX_LATENCY_NS, 3);
    private volatile LongSupplier evictionSource = () -> 0;
    private volatile LongSupplier l2BytesSource = () -> 0;
    private volatile Consumer<MetricFamilies> storeMetrics = (out) ->
    {
    };
    /** Every counter with its family and labels, in registration order: the exposition needs no name parsing. */
    private final List<Series> series = new ArrayList<>();
    private volatile boolean closed;

    private final AtomicCounter blockRequests;
    private final AtomicCounter blockHits;
    private final AtomicCounter storeBytes;
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
    private final AtomicCounter[] fallbacks = new AtomicCounter[StoreFallback.values().length];
    private final AtomicCounter permitWaits;
    private final AtomicCounter bypassReads;
    private final AtomicCounter storePuts;
    private final AtomicCounter storeDeclines;
    private final AtomicCounter fetchesInFlight;
    private final AtomicCounter fileHits;
    private final AtomicCounter loadedHits;

    /** One counter of a family, with its labels (names and values, alternating). */
    private record Series(String family, String[] labels, AtomicCounter counter)
    {
    }

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
        region = CountersRegion.open(counterFile, CounterTypes.RANGE_ENGINE);
        blockRequests = counter(MetricNames.BLOCK_REQUESTS);
        blockHits = counter(MetricNames.BLOCK_HITS);
        storeBytes = counter(MetricNames.STORE_BYTES);
        blockMisses = counter(MetricNames.BLOCK_MISSES);
        demandGets = counter(MetricNames.ORIGIN_GETS, MetricNames.CLASS, MetricNames.DEMAND_CLASS);
        prefetchGets = counter(MetricNames.ORIGIN_GETS, MetricNames.CLASS, MetricNames.PREFETCH_CLASS);
        demandBytes = counter(MetricNames.ORIGIN_BYTES, MetricNames.CLASS, MetricNames.DEMAND_CLASS);
        prefetchBytes = counter(MetricNames.ORIGIN_BYTES, MetricNames.CLASS, MetricNames.PREFETCH_CLASS);
        originHeads = counter(MetricNames.ORIGIN_HEADS);
        originErrors = counter(MetricNames.ORIGIN_ERRORS);
        coalescedBlocks = counter(MetricNames.COALESCED_BLOCKS);
        singleFlightJoins = counter(MetricNames.SINGLE_FLIGHT_JOINS);
        promotions = counter(MetricNames.PROMOTIONS);
        evictions = counter(MetricNames.EVICTIONS);
        for (final StoreFallback reason : StoreFallback.values())
        {
            fallbacks[reason.ordinal()] = counter(MetricNames.FALLBACKS, "reason", reason.label());
        }
        permitWaits = counter(MetricNames.PERMIT_WAITS);
        bypassReads = counter(MetricNames.BYPASS_READS);
        storePuts = counter(MetricNames.STORE_PUTS);
        storeDeclines = counter(MetricNames.STORE_DECLINES);
        fetchesInFlight = counter(MetricNames.FETCHES_IN_FLIGHT);
        fileHits = counter(MetricNames.BLOCK_FILE_HITS);
        loadedHits = counter(MetricNames.BLOCK_LOADED_HITS);
    }

    /** A counter under its full name ({@code family{a="x"}}) in the counters file, and in {@link #series}. */
    private AtomicCounter counter(final String family, final String... labels)
    {
        final AtomicCounter counter = region.newCounter(MetricNames.labelled(family, labels));
        series.add(new Series(family, labels, counter));
        return counter;
    }

    /**
     * Where the bytes taken from L2 servers come from (the engine's origin, {@code ObjectStore::l2Bytes}).
     *
     * @param source read on every {@link #stats()}.
     */
    public void l2BytesSource(final LongSupplier source)
    {
        l2BytesSource = source;
    }

    /**
     * Where the store's own families come from ({@link dev.offcache.range.store.BlockStore#collectInto}).
     *
     * @param source called on every {@link #collectInto}, on the scraping thread.
     */
    public void storeMetrics(final Consumer<MetricFamilies> source)
    {
        storeMetrics = source;
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

    /**
     * A block found in the store.
     *
     * @param bytes the bytes it gave the reader (0 for a prefetch, which copies nothing).
     */
    public void blockHit(final long bytes)
    {
        blockHits.increment();
        if (bytes > 0)
        {
            storeBytes.getAndAdd(bytes);
        }
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

    /**
     * A store failure that the engine routed around.
     *
     * @param reason why.
     */
    public void fallback(final StoreFallback reason)
    {
        fallbacks[reason.ordinal()].increment();
    }

    /**
     * An immutable snapshot of the statistics an embedder reads.
     *
     * @return a new snapshot.
     */
    public CacheStats stats()
    {
        // through the snapshot, which after close() holds the final values (the counters' memory is gone then)
        final Map<String, Long> values = snapshot();
        final EnumMap<StoreFallback, Long> byReason = new EnumMap<>(StoreFallback.class);
        for (final StoreFallback reason : StoreFallback.values())
        {
            byReason.put(reason, values.get(MetricNames.labelled(MetricNames.FALLBACKS, "reason", reason.label())));
        }
        return new CacheStats(values.get(MetricNames.BLOCK_HITS), values.get(MetricNames.BLOCK_MISSES),
            values.get(MetricNames.STORE_BYTES), l2BytesSource.getAsLong(),
            values.get(MetricNames.ORIGIN_GETS + MetricNames.DEMAND) +
                values.get(MetricNames.ORIGIN_GETS + MetricNames.PREFETCH),
            values.get(MetricNames.ORIGIN_BYTES + MetricNames.DEMAND) +
                values.get(MetricNames.ORIGIN_BYTES + MetricNames.PREFETCH),
            values.get(MetricNames.ORIGIN_ERRORS), values.get(MetricNames.EVICTIONS), byReason);
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
     * Adds the engine's families to a scrape: every counter (read once, after the close its final value), the
     * origin GET latency as a histogram, and the store's own families.
     *
     * @param out the scrape's families.
     */
    public void collectInto(final MetricFamilies out)
    {
        final Map<String, Long> values = snapshot();
        for (final Series one : series)
        {
            final String help = MetricNames.help(one.family);
            final long value = values.getOrDefault(MetricNames.labelled(one.family, one.labels), 0L);
            if (one.family.endsWith("_total"))
            {
                out.counter(one.family, help, value, one.labels);
            }
            else
            {
                out.gauge(one.family, help, value, one.labels);
            }
        }
        out.latency(MetricNames.ORIGIN_GET_SECONDS, MetricNames.help(MetricNames.ORIGIN_GET_SECONDS),
            originGetLatency(), 1e9);
        if (!closed)
        {
            storeMetrics.accept(out);
        }
    }

    /**
     * The engine's families in the Prometheus text format, as the Prometheus client writes them (for an embedder
     * without a registry of its own; a server adds {@link #collectInto} to its scrape instead).
     *
     * @return the exposition text.
     */
    public String toPrometheusText()
    {
        return MetricFamilies.textOf(this::collectInto);
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
}
