package dev.offcache.server.http;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

import dev.offcache.range.metrics.MetricFamilies;
import org.HdrHistogram.ConcurrentHistogram;

/**
 * Counters and latency summaries of the HTTP layer: requests by endpoint and status, response bytes, prefetch
 * outcomes, time to first byte and full response time (HdrHistogram, microseconds, since start, exposed as
 * Prometheus histograms). Updates are LongAdder / HdrHistogram operations; a scrape reads them. Thread-safe.
 */
public final class HttpMetrics
{
    private static final int STATUS_SLOTS = 600;

    /** Per endpoint, one adder per status code (index = status, 100..599), created on first use. */
    private final ConcurrentHashMap<String, AtomicReferenceArray<LongAdder>> requests = new ConcurrentHashMap<>();
    final LongAdder responseBytes = new LongAdder();
    final LongAdder prefetchAccepted = new LongAdder();
    final LongAdder prefetchRejected = new LongAdder();
    final LongAdder prefetchDropped = new LongAdder();
    final LongAdder prefetchCompleted = new LongAdder();
    final LongAdder prefetchFailed = new LongAdder();
    final LongAdder streamsAborted = new LongAdder();
    final LongAdder interimResponses = new LongAdder();
    final LongAdder connectionsRefused = new LongAdder();
    /** S3 error answers by code; codes are a few constants. */
    private final ConcurrentHashMap<String, LongAdder> s3Errors = new ConcurrentHashMap<>();
    private final ConcurrentHistogram firstByteMicros = new ConcurrentHistogram(3_600_000_000L, 2);
    private final ConcurrentHistogram responseMicros = new ConcurrentHistogram(3_600_000_000L, 2);

    void request(final String endpoint, final int status)
    {
        // no string building per response: endpoints are a handful of constants, statuses index an array
        AtomicReferenceArray<LongAdder> byStatus = requests.get(endpoint);
        if (null == byStatus)
        {
            byStatus = requests.computeIfAbsent(endpoint, (k) -> new AtomicReferenceArray<>(STATUS_SLOTS));
        }
        final int slot = status >= 100 && status < STATUS_SLOTS ? status : 0;
        LongAdder adder = byStatus.get(slot);
        if (null == adder)
        {
            byStatus.compareAndSet(slot, null, new LongAdder());
            adder = byStatus.get(slot);
        }
        adder.increment();
    }

    void s3Error(final String code)
    {
        LongAdder adder = s3Errors.get(code);
        if (null == adder)
        {
            adder = s3Errors.computeIfAbsent(code, (k) -> new LongAdder());
        }
        adder.increment();
    }

    /**
     * S3 error answers with a code.
     *
     * @param code the S3 code ({@code NoSuchKey}, ...).
     * @return the count.
     */
    public long s3Errors(final String code)
    {
        final LongAdder adder = s3Errors.get(code);
        return null == adder ? 0 : adder.sum();
    }

    /**
     * Interim responses sent.
     *
     * @return the count.
     */
    public long interimResponses()
    {
        return interimResponses.sum();
    }

    void firstByte(final long nanos)
    {
        firstByteMicros.recordValue(Math.min(3_600_000_000L, Math.max(0, nanos / 1000)));
    }

    void completed(final long nanos)
    {
        responseMicros.recordValue(Math.min(3_600_000_000L, Math.max(0, nanos / 1000)));
    }

    /**
     * Requests answered with a status on an endpoint.
     *
     * @param endpoint endpoint name ({@code obj}, {@code ranges}, ...).
     * @param status   HTTP status.
     * @return the count.
     */
    public long requests(final String endpoint, final int status)
    {
        final AtomicReferenceArray<LongAdder> byStatus = requests.get(endpoint);
        final boolean known = null != byStatus && status >= 100 && status < STATUS_SLOTS;
        final LongAdder adder = known ? byStatus.get(status) : null;
        return null == adder ? 0 : adder.sum();
    }

    /**
     * Adds every metric to one scrape.
     *
     * @param out    the scrape's families.
     * @param budget the memory budget, for its gauges.
     */
    public void collectInto(final MetricFamilies out, final MemoryBudget budget)
    {
        for (final Map.Entry<String, AtomicReferenceArray<LongAdder>> entry : new TreeMap<>(requests).entrySet())
        {
            final AtomicReferenceArray<LongAdder> byStatus = entry.getValue();
            for (int status = 0; status < STATUS_SLOTS; status++)
            {
                final LongAdder adder = byStatus.get(status);
                if (null != adder)
                {
                    out.counter("offcache_server_http_requests_total", "HTTP requests by endpoint and status.",
                        adder.sum(), "endpoint", entry.getKey(), "status", Integer.toString(status));
                }
            }
        }
        for (final Map.Entry<String, LongAdder> entry : new TreeMap<>(s3Errors).entrySet())
        {
            out.counter("offcache_server_s3_errors_total", "S3 API error answers by S3 error code.",
                entry.getValue().sum(), "code", entry.getKey());
        }
        out.counter("offcache_server_http_response_bytes_total", "Body bytes written to clients.", responseBytes.sum())
            .counter("offcache_server_http_streams_aborted_total", "Responses cut after headers were sent.",
                streamsAborted.sum())
            .counter("offcache_server_http_connections_refused_total", "Connections closed: over the limit.",
                connectionsRefused.sum())
            .counter("offcache_server_http_interim_responses_total",
                "102 Processing interim responses sent while an object's size was looked up.", interimResponses.sum())
            .counter("offcache_server_memory_budget_waits_total", "Times a stream waited for the memory budget.",
                budget.waits());
        final String prefetchHelp = "Prefetch entries by outcome.";
        out.counter("offcache_server_prefetch_requests_total", prefetchHelp, prefetchAccepted.sum(),
                "outcome", "accepted")
            .counter("offcache_server_prefetch_requests_total", prefetchHelp, prefetchRejected.sum(),
                "outcome", "rejected")
            .counter("offcache_server_prefetch_requests_total", prefetchHelp, prefetchDropped.sum(),
                "outcome", "dropped")
            .counter("offcache_server_prefetch_requests_total", prefetchHelp, prefetchCompleted.sum(),
                "outcome", "completed")
            .counter("offcache_server_prefetch_requests_total", prefetchHelp, prefetchFailed.sum(),
                "outcome", "failed")
            .gauge("offcache_server_memory_in_flight_bytes", "Response bytes in flight now.", budget.inFlightBytes())
            .gauge("offcache_server_memory_in_flight_peak_bytes", "Most response bytes ever in flight.",
                budget.peakBytes())
            .gauge("offcache_server_memory_budget_bytes", "The response memory budget.", budget.limitBytes())
            .latency("offcache_server_http_first_byte_seconds",
                "Time from request to the response headers (written as soon as the object's size is known).",
                firstByteMicros.copy(), 1e6)
            .latency("offcache_server_http_response_seconds", "Time from request to the last body byte.",
                responseMicros.copy(), 1e6);
    }
}
