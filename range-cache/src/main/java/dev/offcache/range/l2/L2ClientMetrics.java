package dev.offcache.range.l2;

import java.nio.file.Path;
import java.util.Map;

import dev.offcache.range.metrics.CountersFile;
import dev.offcache.range.metrics.CountersRegion;
import org.agrona.concurrent.status.AtomicCounter;

/**
 * The L2 client's counters, named {@code offcache_l2client_<what>_total}. One atomic add per event, no allocation;
 * {@link #appendPrometheus(StringBuilder)} renders them as Prometheus text. With a counters file
 * ({@code OFFCACHE_L2_COUNTERS_FILE}) they live in a memory-mapped {@link CountersFile} that another process reads
 * while the client runs (AeronStat-style); otherwise in a private direct buffer.
 *
 * <p>Memory: owns its {@link CountersRegion}, freed by {@link #close()} (the client closes it last); updates that
 * race with the close are dropped, never written to freed memory, and reads after it return the final values.
 */
public final class L2ClientMetrics implements CircuitBreaker.Listener, AutoCloseable
{
    /** The counters that are not per fallback reason. */
    public enum Counter
    {
        /** Reads asked of the client (length above zero). */
        READS("offcache_l2client_reads_total"),
        /** Reads served entirely by L2. */
        L2_HITS("offcache_l2client_l2_hits_total"),
        /** Body bytes taken from L2. */
        L2_BYTES("offcache_l2client_l2_bytes_total"),
        /** Bytes read from the real origin (whole fallbacks and completions). */
        ORIGIN_BYTES("offcache_l2client_origin_bytes_total"),
        /** Reads whose L2 body broke after some bytes and were completed from the origin at that offset. */
        RESUMED("offcache_l2client_resumed_reads_total"),
        /** Size requests asked of the client. */
        HEADS("offcache_l2client_heads_total"),
        /** Size requests answered by L2. */
        HEAD_HITS("offcache_l2client_head_hits_total"),
        /** Times the breaker opened. */
        BREAKER_OPENS("offcache_l2client_breaker_opens_total"),
        /** Times the breaker closed after a successful probe. */
        BREAKER_CLOSES("offcache_l2client_breaker_closes_total"),
        /** Probes let through by a half-open breaker. */
        BREAKER_PROBES("offcache_l2client_breaker_probes_total"),
        /** Keys handed to {@code notifyWritten}. */
        WARM_NOTIFIED("offcache_l2client_warm_notified_total"),
        /** Keys the server accepted in a POST /prefetch (from its answer). */
        WARM_SENT("offcache_l2client_warm_sent_total"),
        /** Keys dropped because the warming queue was full. */
        WARM_DROPPED_QUEUE_FULL("offcache_l2client_warm_dropped_total{reason=\"queue_full\"}"),
        /** Keys dropped because the breaker was not closed (a prefetch never probes). */
        WARM_DROPPED_BREAKER("offcache_l2client_warm_dropped_total{reason=\"breaker_open\"}"),
        /** Keys dropped because their POST /prefetch failed (no retry: warming is best effort). */
        WARM_DROPPED_FAILED("offcache_l2client_warm_dropped_total{reason=\"send_failed\"}"),
        /** Keys the server rejected or dropped (from its answer). */
        WARM_REFUSED("offcache_l2client_warm_refused_total");

        private final String metricName;

        Counter(final String metricName)
        {
            this.metricName = metricName;
        }

        /**
         * The Prometheus name with its tags.
         *
         * @return the name.
         */
        public String metricName()
        {
            return metricName;
        }
    }

    private static final Counter[] COUNTERS = Counter.values();
    private static final FallbackReason[] REASONS = FallbackReason.values();

    private final CountersRegion region;
    private final AtomicCounter[] counts = new AtomicCounter[COUNTERS.length];
    private final AtomicCounter[] readFallbacks = new AtomicCounter[REASONS.length];
    private final AtomicCounter[] headFallbacks = new AtomicCounter[REASONS.length];

    /**
     * Counters in a private direct buffer.
     */
    public L2ClientMetrics()
    {
        this(null);
    }

    /**
     * Counters in a new counters file, or in memory.
     *
     * @param countersFile where to map them (replaced if present), or {@code null}.
     */
    public L2ClientMetrics(final Path countersFile)
    {
        region = CountersRegion.open(countersFile);
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
        return "offcache_l2client_fallbacks_total{op=\"" + op + "\",reason=\"" + reason.tag() + "\"}";
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
        return value(counts[counter.ordinal()], counter.metricName);
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

    private long value(final AtomicCounter counter, final String label)
    {
        if (region.enter())
        {
            try
            {
                return counter.get();
            }
            finally
            {
                region.exit();
            }
        }
        final Map<String, Long> last = region.snapshot();
        return last.getOrDefault(label, 0L);
    }

    /**
     * Reads that fell back for a reason.
     *
     * @param reason the reason.
     * @return the count.
     */
    public long readFallbacks(final FallbackReason reason)
    {
        return value(readFallbacks[reason.ordinal()], fallbackName("read", reason));
    }

    /**
     * Size requests that fell back for a reason.
     *
     * @param reason the reason.
     * @return the count.
     */
    public long headFallbacks(final FallbackReason reason)
    {
        return value(headFallbacks[reason.ordinal()], fallbackName("head", reason));
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
     * Appends every counter in Prometheus text format.
     *
     * @param out where to append.
     */
    public void appendPrometheus(final StringBuilder out)
    {
        for (final Counter counter : COUNTERS)
        {
            out.append(counter.metricName).append(' ').append(get(counter)).append('\n');
        }
        for (final FallbackReason reason : REASONS)
        {
            out.append("offcache_l2client_fallbacks_total{op=\"read\",reason=\"").append(reason.tag()).append("\"} ")
                .append(readFallbacks(reason)).append('\n');
            out.append("offcache_l2client_fallbacks_total{op=\"head\",reason=\"").append(reason.tag()).append("\"} ")
                .append(headFallbacks(reason)).append('\n');
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
