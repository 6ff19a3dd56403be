package dev.offcache.server.http;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import dev.offcache.core.counters.CounterTypes;
import dev.offcache.range.metrics.CounterTable;
import dev.offcache.range.metrics.CountersRegion;
import dev.offcache.range.metrics.MetricFamilies;
import dev.offcache.range.metrics.MetricNames;
import dev.offcache.server.s3.S3ErrorCode;
import dev.offcache.server.s3.S3Operation;
import org.HdrHistogram.ConcurrentHistogram;
import org.agrona.concurrent.status.AtomicCounter;

/**
 * Counters and latencies of the HTTP layer: requests by endpoint and status, S3 error answers by code, response
 * bytes, prefetch outcomes, cuts and refusals as Agrona counters in a {@link CountersRegion} (readable from outside
 * the process when the region is a file, type id {@link CounterTypes#L2_SERVER}); time to first byte and full
 * response time as HdrHistograms (microseconds, since start), exposed as Prometheus histograms.
 *
 * <p>Requests are counted in a bounded table: the fixed {@link #ENDPOINTS} × {@link #STATUSES} and an
 * {@code other} status for any code not listed, each counter allocated on its pair's first response
 * ({@link CounterTable}); an update is one table read and one atomic add, no lock and no allocation.
 *
 * <p>Memory: the counters live in the region; {@link #HttpMetrics()} owns a private one that {@link #close()}
 * frees, {@link #HttpMetrics(CountersRegion)} uses its owner's. The hot-path updates are not guarded against the
 * region's release (that would cost two more atomics per response): the region is freed only after the event loops,
 * the only writers besides the prefetch workers (whose updates are guarded), have stopped. Thread-safe.
 */
public final class HttpMetrics implements AutoCloseable
{
    /** The HTTP statuses counted under their own code; any other is counted as {@code status="other"}. */
    public static final List<Integer> STATUSES = List.of(
        200, 202, 204, 206, 304, 400, 401, 403, 404, 405, 408, 411, 412, 413, 414, 416, 429, 431, 500, 501, 502,
        503, 504);
    /** The status label of the codes not in {@link #STATUSES}. */
    public static final String OTHER_STATUS = "other";
    /** Every endpoint label, in the request table's row order ({@link Endpoint#all()}'s). */
    public static final List<String> ENDPOINTS = Endpoint.all().stream().map(Endpoint::label).toList();
    /** Counters this needs in a region: the request table, the S3 error codes and the scalars. */
    public static final int COUNTERS;

    private static final String REQUESTS = "offcache_server_http_requests_total";
    private static final String S3_ERRORS = "offcache_server_s3_errors_total";
    private static final String PREFETCH = "offcache_server_prefetch_requests_total";
    private static final int STATUS_SLOTS = STATUSES.size() + 1;
    private static final int MAX_STATUS = 600;
    /** Status code → its column; a code not listed maps to the last column ({@code other}). */
    private static final int[] STATUS_COLUMN = new int[MAX_STATUS];
    /** Rows in the order a scrape writes them: endpoints sorted by name, as before the counters moved. */
    private static final int[] SCRAPE_ORDER;
    private static final int SCALARS = Scalar.values().length;
    /** S3 error codes sorted by code, the scrape's order. */
    private static final S3ErrorCode[] CODES_BY_NAME = S3ErrorCode.values();

    static
    {
        Arrays.fill(STATUS_COLUMN, STATUSES.size());
        for (int i = 0; i < STATUSES.size(); i++)
        {
            STATUS_COLUMN[STATUSES.get(i)] = i;
        }
        final List<String> sorted = new ArrayList<>(ENDPOINTS);
        sorted.sort(null);
        SCRAPE_ORDER = sorted.stream().mapToInt(ENDPOINTS::indexOf).toArray();
        Arrays.sort(CODES_BY_NAME, (a, b) -> a.code().compareTo(b.code()));
        COUNTERS = ENDPOINTS.size() * STATUS_SLOTS + S3ErrorCode.values().length + SCALARS;
    }

    /** Every scalar counter with its label: {@link #SCALARS} is their number, never counted by hand. */
    private enum Scalar
    {
        RESPONSE_BYTES("offcache_server_http_response_bytes_total"),
        PREFETCH_ACCEPTED(MetricNames.labelled(PREFETCH, "outcome", "accepted")),
        PREFETCH_REJECTED(MetricNames.labelled(PREFETCH, "outcome", "rejected")),
        PREFETCH_DROPPED(MetricNames.labelled(PREFETCH, "outcome", "dropped")),
        PREFETCH_COMPLETED(MetricNames.labelled(PREFETCH, "outcome", "completed")),
        PREFETCH_FAILED(MetricNames.labelled(PREFETCH, "outcome", "failed")),
        STREAMS_ABORTED("offcache_server_http_streams_aborted_total"),
        REPAIRED_CHUNKS("offcache_server_http_repaired_chunks_total"),
        DAMAGED_RAM_CHUNKS("offcache_server_http_damaged_ram_chunks_total"),
        INTERIM_RESPONSES("offcache_server_http_interim_responses_total"),
        CONNECTIONS_REFUSED("offcache_server_http_connections_refused_total");

        private final String label;

        Scalar(final String label)
        {
            this.label = label;
        }
    }

    private final CountersRegion region;
    private final boolean ownsRegion;
    private final CounterTable requests;
    private final CounterTable s3Errors;
    final AtomicCounter responseBytes;
    final AtomicCounter prefetchAccepted;
    final AtomicCounter prefetchRejected;
    final AtomicCounter prefetchDropped;
    final AtomicCounter prefetchCompleted;
    final AtomicCounter prefetchFailed;
    final AtomicCounter streamsAborted;
    final AtomicCounter repairedChunks;
    final AtomicCounter damagedRamChunks;
    final AtomicCounter interimResponses;
    final AtomicCounter connectionsRefused;
    private final ConcurrentHistogram firstByteMicros = new ConcurrentHistogram(3_600_000_000L, 2);
    private final ConcurrentHistogram responseMicros = new ConcurrentHistogram(3_600_000_000L, 2);

    /**
     * Counters in a private direct buffer this object owns (freed by {@link #close()}).
     */
    public HttpMetrics()
    {
        this(CountersRegion.open(null, CounterTypes.L2_SERVER, COUNTERS), true);
    }

    /**
     * Counters in a region its owner frees (after the event loops have stopped); it needs room for
     * {@link #COUNTERS} more.
     *
     * @param region the region.
     */
    public HttpMetrics(final CountersRegion region)
    {
        this(region, false);
    }

    private HttpMetrics(final CountersRegion region, final boolean ownsRegion)
    {
        this.region = region;
        this.ownsRegion = ownsRegion;
        final String[] requestLabels = new String[ENDPOINTS.size() * STATUS_SLOTS];
        for (int row = 0; row < ENDPOINTS.size(); row++)
        {
            for (int column = 0; column < STATUS_SLOTS; column++)
            {
                requestLabels[row * STATUS_SLOTS + column] = MetricNames.labelled(REQUESTS,
                    "endpoint", ENDPOINTS.get(row), "status", statusLabel(column));
            }
        }
        requests = new CounterTable(region, requestLabels);
        final S3ErrorCode[] codes = S3ErrorCode.values();
        final String[] codeLabels = new String[codes.length];
        for (final S3ErrorCode code : codes)
        {
            codeLabels[code.ordinal()] = MetricNames.labelled(S3_ERRORS, "code", code.code());
        }
        s3Errors = new CounterTable(region, codeLabels);
        responseBytes = region.newCounter(Scalar.RESPONSE_BYTES.label);
        prefetchAccepted = region.newCounter(Scalar.PREFETCH_ACCEPTED.label);
        prefetchRejected = region.newCounter(Scalar.PREFETCH_REJECTED.label);
        prefetchDropped = region.newCounter(Scalar.PREFETCH_DROPPED.label);
        prefetchCompleted = region.newCounter(Scalar.PREFETCH_COMPLETED.label);
        prefetchFailed = region.newCounter(Scalar.PREFETCH_FAILED.label);
        streamsAborted = region.newCounter(Scalar.STREAMS_ABORTED.label);
        repairedChunks = region.newCounter(Scalar.REPAIRED_CHUNKS.label);
        damagedRamChunks = region.newCounter(Scalar.DAMAGED_RAM_CHUNKS.label);
        interimResponses = region.newCounter(Scalar.INTERIM_RESPONSES.label);
        connectionsRefused = region.newCounter(Scalar.CONNECTIONS_REFUSED.label);
    }

    private static String statusLabel(final int column)
    {
        return column < STATUSES.size() ? Integer.toString(STATUSES.get(column)) : OTHER_STATUS;
    }

    /**
     * The endpoint label of an S3 operation ({@code s3_GetObject}), one string per operation, made once.
     *
     * @param operation the operation.
     * @return its label.
     */
    static String s3Endpoint(final S3Operation operation)
    {
        return Endpoint.s3(operation).label();
    }

    private static int slot(final Endpoint endpoint, final int status)
    {
        return endpoint.row() * STATUS_SLOTS +
            (status >= 0 && status < MAX_STATUS ? STATUS_COLUMN[status] : STATUSES.size());
    }

    /**
     * Counts one response: one read of the pair's slot and one atomic add (the pair's counter is allocated on its
     * first response).
     *
     * @param endpoint the endpoint (its row is its own: no lookup).
     * @param status   the HTTP status.
     */
    public void request(final Endpoint endpoint, final int status)
    {
        requests.increment(slot(endpoint, status));
    }

    /**
     * Counts one response under an endpoint's label (tests and tools; the server passes its {@link Endpoint}).
     *
     * @param endpoint one of {@link #ENDPOINTS}.
     * @param status   the HTTP status.
     * @throws IllegalArgumentException for a label that is no endpoint's.
     */
    public void request(final String endpoint, final int status)
    {
        request(Endpoint.named(endpoint), status);
    }

    void s3Error(final S3ErrorCode code)
    {
        s3Errors.increment(code.ordinal());
    }

    /** Counts a prefetch outcome from a worker thread, which may outlive the event loops by its join timeout. */
    void prefetchOutcome(final boolean completed)
    {
        if (region.enter())
        {
            try
            {
                (completed ? prefetchCompleted : prefetchFailed).increment();
            }
            finally
            {
                region.exit();
            }
        }
    }

    /**
     * S3 error answers with a code.
     *
     * @param code the S3 code ({@code NoSuchKey}, ...).
     * @return the count; 0 for a code the server does not answer with.
     */
    public long s3Errors(final String code)
    {
        for (final S3ErrorCode known : S3ErrorCode.values())
        {
            if (known.code().equals(code))
            {
                return s3Errors.value(known.ordinal());
            }
        }
        return 0;
    }

    /**
     * Interim responses sent.
     *
     * @return the count.
     */
    public long interimResponses()
    {
        return region.value(interimResponses);
    }

    /**
     * Responses cut after their headers were sent.
     *
     * @return the count.
     */
    public long streamsAborted()
    {
        return region.value(streamsAborted);
    }

    /**
     * Parts of SSD blocks that failed their chunk check as they were read to be sent, and were read again from the
     * origin in their place.
     *
     * @return the count.
     */
    public long repairedChunks()
    {
        return region.value(repairedChunks);
    }

    /**
     * Parts of RAM blocks whose chunks no longer matched the CRC32Cs of their fill when sent checksummed: sent with a
     * CRC that does not match, so the client took them from the origin.
     *
     * @return the count.
     */
    public long damagedRamChunks()
    {
        return region.value(damagedRamChunks);
    }

    /**
     * Connections closed by a limit.
     *
     * @return the count.
     */
    public long connectionsRefused()
    {
        return region.value(connectionsRefused);
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
     * @param endpoint endpoint name ({@code obj}, {@code ranges}, ...), one of {@link #ENDPOINTS}.
     * @param status   HTTP status; one not in {@link #STATUSES} reads the {@code other} count.
     * @return the count.
     * @throws IllegalArgumentException for a name that is no endpoint's.
     */
    public long requests(final String endpoint, final int status)
    {
        return requests.value(slot(Endpoint.named(endpoint), status));
    }

    /**
     * Adds every metric to one scrape: the request and error series that happened (a counter exists once its
     * series has), the scalars, and the latency histograms.
     *
     * @param out    the scrape's families.
     * @param budget the memory budget, for its gauges.
     */
    public void collectInto(final MetricFamilies out, final MemoryBudget budget)
    {
        for (final int row : SCRAPE_ORDER)
        {
            for (int column = 0; column < STATUS_SLOTS; column++)
            {
                final int slot = row * STATUS_SLOTS + column;
                if (requests.used(slot))
                {
                    out.counter(REQUESTS, "HTTP requests by endpoint and status.", requests.value(slot),
                        "endpoint", ENDPOINTS.get(row), "status", statusLabel(column));
                }
            }
        }
        for (final S3ErrorCode code : CODES_BY_NAME)
        {
            if (s3Errors.used(code.ordinal()))
            {
                out.counter(S3_ERRORS, "S3 API error answers by S3 error code.", s3Errors.value(code.ordinal()),
                    "code", code.code());
            }
        }
        out.counter("offcache_server_http_response_bytes_total", "Body bytes written to clients.",
                region.value(responseBytes))
            .counter("offcache_server_http_streams_aborted_total", "Responses cut after headers were sent.",
                region.value(streamsAborted))
            .counter("offcache_server_http_repaired_chunks_total",
                "Parts of SSD blocks that failed their chunk check when read to be sent, read from the origin instead.",
                region.value(repairedChunks))
            .counter("offcache_server_http_damaged_ram_chunks_total",
                "Parts of RAM blocks that failed their chunk check when sent checksummed (sent with a failing CRC).",
                region.value(damagedRamChunks))
            .counter("offcache_server_http_connections_refused_total", "Connections closed: over the limit.",
                region.value(connectionsRefused))
            .counter("offcache_server_http_interim_responses_total",
                "102 Processing interim responses sent while an object's size was looked up.",
                region.value(interimResponses))
            .counter("offcache_server_memory_budget_waits_total", "Times a stream waited for the memory budget.",
                budget.waits());
        final String prefetchHelp = "Prefetch entries by outcome.";
        out.counter(PREFETCH, prefetchHelp, region.value(prefetchAccepted), "outcome", "accepted")
            .counter(PREFETCH, prefetchHelp, region.value(prefetchRejected), "outcome", "rejected")
            .counter(PREFETCH, prefetchHelp, region.value(prefetchDropped), "outcome", "dropped")
            .counter(PREFETCH, prefetchHelp, region.value(prefetchCompleted), "outcome", "completed")
            .counter(PREFETCH, prefetchHelp, region.value(prefetchFailed), "outcome", "failed")
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

    /**
     * Frees the region if this object owns it (after it, reads return the final values). Call it after the event
     * loops have stopped.
     */
    @Override
    public void close()
    {
        if (ownsRegion)
        {
            region.close();
        }
    }
}
