package dev.offcache.range.l2;

import java.nio.file.Path;

import dev.offcache.core.counters.CounterTypes;
import dev.offcache.range.metrics.CountersFile;
import dev.offcache.range.metrics.CountersRegion;
import dev.offcache.range.metrics.MetricFamilies;
import dev.offcache.range.metrics.MetricNames;
import org.agrona.concurrent.status.AtomicCounter;

/**
 * The L2 client's counters, named {@code offcache_l2client_<what>_total}. One atomic add per event, no allocation;
 * {@link #collectInto(MetricFamilies)} adds them to a scrape. With a counters file
 * ({@code OFFCACHE_L2_COUNTERS_FILE}) they live in a memory-mapped {@link CountersFile} that another process reads
 * while the client runs (AeronStat-style); otherwise in a private direct buffer.
 *
 * <p>Memory: owns its {@link CountersRegion}, freed by {@link #close()} (the client closes it last); updates that
 * race with the close are dropped, never written to freed memory, and reads after it return the final values.
 */
public final class L2ClientCounters implements CircuitBreaker.Listener, AutoCloseable
{
    /** The counters that are not per fallback reason. */
    public enum Counter
    {
        /** Reads asked of the client (length above zero). */
        READS("offcache_l2client_reads_total", "Reads asked of the L2 client."),
        /** Reads served entirely by L2. */
        L2_HITS("offcache_l2client_l2_hits_total", "Reads served entirely by L2."),
        /** Body bytes taken from L2. */
        L2_BYTES("offcache_l2client_l2_bytes_total", "Body bytes taken from L2."),
        /** Bytes read from the real origin (whole fallbacks and completions). */
        ORIGIN_BYTES("offcache_l2client_origin_bytes_total",
            "Bytes read from the real origin (whole fallbacks and completions)."),
        /** Reads whose L2 body broke after some bytes and were completed from the origin at that offset. */
        RESUMED("offcache_l2client_resumed_reads_total",
            "Reads whose L2 body broke and were completed from the origin at that offset."),
        /** Size requests asked of the client. */
        HEADS("offcache_l2client_heads_total", "Size requests asked of the L2 client."),
        /** Size requests answered by L2. */
        HEAD_HITS("offcache_l2client_head_hits_total", "Size requests answered by L2."),
        /** Times the breaker opened. */
        BREAKER_OPENS("offcache_l2client_breaker_opens_total", "Times the circuit breaker opened."),
        /** Times the breaker closed after a successful probe. */
        BREAKER_CLOSES("offcache_l2client_breaker_closes_total",
            "Times the circuit breaker closed after a successful probe."),
        /** Probes let through by a half-open breaker. */
        BREAKER_PROBES("offcache_l2client_breaker_probes_total", "Probes let through by a half-open breaker."),
        /** Keys handed to {@code notifyWritten}. */
        WARM_NOTIFIED("offcache_l2client_warm_notified_total", "Keys handed to the warming queue."),
        /** Keys the server accepted in a POST /prefetch (from its answer). */
        WARM_SENT("offcache_l2client_warm_sent_total", "Keys the server accepted for warming."),
        /** Keys dropped because the warming queue was full. */
        WARM_DROPPED_QUEUE_FULL("offcache_l2client_warm_dropped_total", WARM_DROPPED_HELP, "reason", "queue_full"),
        /** Keys dropped because the breaker was not closed (a prefetch never probes). */
        WARM_DROPPED_BREAKER("offcache_l2client_warm_dropped_total", WARM_DROPPED_HELP, "reason", "breaker_open"),
        /** Keys dropped because their POST /prefetch failed (no retry: warming is best effort). */
        WARM_DROPPED_FAILED("offcache_l2client_warm_dropped_total", WARM_DROPPED_HELP, "reason", "send_failed"),
        /** Keys the server rejected or dropped (from its answer). */
        WARM_REFUSED("offcache_l2client_warm_refused_total", "Keys the server rejected or dropped for warming."),
        /** Failed passes of the warming agent's duty cycle (each also logged, rate-limited). */
        WARMING_ERRORS("offcache_l2client_warming_errors_total",
            "Failed passes of the warming agent's duty cycle (each also logged).");

        private final String family;
        private final String help;
        private final String[] labels;
        private final String metricName;

        Counter(final String family, final String help, final String... labels)
        {
            this.family = family;
            this.help = help;
            this.labels = labels;
            this.metricName = MetricNames.labelled(family, labels);
        }

        /**
         * The Prometheus name with its tags, as the counters file labels it.
         *
         * @return the name.
         */
        public String metricName()
        {
            return metricName;
        }
    }

    private static final String WARM_DROPPED_HELP = "Warming keys dropped before they reached a server, by reason.";
    private static final String FALLBACKS = "offcache_l2client_fallbacks_total";
    private static final String FALLBACKS_HELP = "Reads and size requests that fell back to the origin, by reason.";

    private static final Counter[] COUNTERS = Counter.values();
    private static final FallbackReason[] REASONS = FallbackReason.values();

    private final CountersRegion region;
    private final AtomicCounter[] counts = new AtomicCounter[COUNTERS.length];
    private final AtomicCounter[] readFallbacks = new AtomicCounter[REASONS.length];
    private final AtomicCounter[] headFallbacks = new AtomicCounter[REASONS.length];

    /**
     * Counters in a private direct buffer.
     */
    public L2ClientCounters()
    {
        this(null);
    }

    /**
     * Counters in a new counters file, or in memory.
     *
     * @param countersFile where to map them (replaced if present), or {@code null}.
     */
    public L2ClientCounters(final Path countersFile)
    {
        region = CountersRegion.open(countersFile, CounterTypes.L2_CLIENT);
        for (final Counter counter : COUNTERS)
        {
            counts[counter.ordinal()] = region.newCounter(counter.metricName);
        }
        for (final FallbackReason reason : REASONS)
        {
            readFallbacks[reason.ordinal()] = region.newCounter(fallbackName("read", reason));
            headFallbacks[reason.ordinal()] = region.newCounter(fallbackName("head", reason));
        }
    }

    private static String fallbackName(final String op, final FallbackReason reason)
    {
        return MetricNames.labelled(FALLBACKS, "op", op, "reason", reason.tag());
    }

    /**
     * Adds to a counter.
     *
     * @param counter the counter.
     * @param delta   how much.
     */
    public void add(final Counter counter, final long delta)
    {
        if (region.enter())
        {
            try
            {
                counts[counter.ordinal()].getAndAdd(delta);
            }
            finally
            {
                region.exit();
            }
        }
    }

    /**
     * Adds one to a counter.
     *
     * @param counter the counter.
     */
    public void increment(final Counter counter)
    {
        add(counter, 1);
    }

    /**
     * A counter's value.
     *
     * @param counter the counter.
     * @return its value.
     */
    public long get(final Counter counter)
    {
        return region.value(counts[counter.ordinal()]);
    }

    /**
     * The counter itself, for an agent runner that increments it (the runner must be closed before this is, as
     * {@code L2Client.close} does, so no increment races the region's release).
     *
     * @param counter the counter.
     * @return the Agrona counter.
     */
    AtomicCounter counter(final Counter counter)
    {
        return counts[counter.ordinal()];
    }

    /**
     * Counts a read that fell back to the origin.
     *
     * @param reason why.
     */
    public void readFallback(final FallbackReason reason)
    {
        bump(readFallbacks[reason.ordinal()]);
    }

    /**
     * Counts a size request that fell back to the origin.
     *
     * @param reason why.
     */
    public void headFallback(final FallbackReason reason)
    {
        bump(headFallbacks[reason.ordinal()]);
    }

    private void bump(final AtomicCounter counter)
    {
        if (region.enter())
        {
            try
            {
                counter.increment();
            }
            finally
            {
                region.exit();
            }
        }
    }

    /**
     * Reads that fell back for a reason.
     *
     * @param reason the reason.
     * @return the count.
     */
    public long readFallbacks(final FallbackReason reason)
    {
        return region.value(readFallbacks[reason.ordinal()]);
    }

    /**
     * Size requests that fell back for a reason.
     *
     * @param reason the reason.
     * @return the count.
     */
    public long headFallbacks(final FallbackReason reason)
    {
        return region.value(headFallbacks[reason.ordinal()]);
    }

    /**
     * Reads that fell back for any reason.
     *
     * @return the sum over reasons.
     */
    public long readFallbacksTotal()
    {
        long sum = 0;
        for (final FallbackReason reason : REASONS)
        {
            sum += readFallbacks(reason);
        }
        return sum;
    }

    @Override
    public void onOpen()
    {
        increment(Counter.BREAKER_OPENS);
    }

    @Override
    public void onProbe()
    {
        increment(Counter.BREAKER_PROBES);
    }

    @Override
    public void onClose()
    {
        increment(Counter.BREAKER_CLOSES);
    }

    /**
     * Adds every counter to a scrape, read now.
     *
     * @param out the scrape's families (a {@link MetricFamilies#labelled} view adds the router's labels).
     */
    public void collectInto(final MetricFamilies out)
    {
        for (final Counter counter : COUNTERS)
        {
            out.counter(counter.family, counter.help, get(counter), counter.labels);
        }
        for (final FallbackReason reason : REASONS)
        {
            out.counter(FALLBACKS, FALLBACKS_HELP, readFallbacks(reason), "op", "read", "reason", reason.tag());
            out.counter(FALLBACKS, FALLBACKS_HELP, headFallbacks(reason), "op", "head", "reason", reason.tag());
        }
    }

    /**
     * Frees the counters' memory (a counters file stays on disk for a last read); later reads return the final
     * values and later updates are dropped.
     */
    @Override
    public void close()
    {
        region.close();
    }
}
