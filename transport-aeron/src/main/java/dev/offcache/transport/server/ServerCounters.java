package dev.offcache.transport.server;

import io.aeron.Aeron;
import io.aeron.Counter;
import org.agrona.CloseHelper;

/**
 * The block server's counters, allocated in the media driver's CnC file so AeronStat-style tools in other
 * processes read them. Type ids are in {@link #REQUESTS_TYPE_ID}..{@link #SESSIONS_TYPE_ID}; labels start with
 * the metric name and carry {@code server=<name>}. Owned by the server; freed when it closes.
 */
public final class ServerCounters implements AutoCloseable
{
    /** Type id of {@code offcache_transport_requests_total}: FETCH frames received. */
    public static final int REQUESTS_TYPE_ID = 8101;
    /** Type id of {@code offcache_transport_sent_bytes_total}: payload bytes sent in CHUNK frames. */
    public static final int BYTES_TYPE_ID = 8102;
    /** Type id of {@code offcache_transport_errors_total}: requests answered with, or ended by, an error. */
    public static final int ERRORS_TYPE_ID = 8103;
    /** Type id of {@code offcache_transport_backpressure_events_total}: offers refused by back-pressure. */
    public static final int BACK_PRESSURE_TYPE_ID = 8104;
    /** Type id of {@code offcache_transport_inflight_requests}: requests being served now (a gauge). */
    public static final int IN_FLIGHT_TYPE_ID = 8105;
    /** Type id of {@code offcache_transport_client_sessions}: connected client sessions (a gauge). */
    public static final int SESSIONS_TYPE_ID = 8106;

    final Counter requests;
    final Counter bytes;
    final Counter errors;
    final Counter backPressure;
    final Counter inFlight;
    final Counter sessions;

    ServerCounters(final Aeron aeron, final String serverName)
    {
        final String suffix = " server=" + serverName;
        requests = aeron.addCounter(REQUESTS_TYPE_ID, "offcache_transport_requests_total" + suffix);
        bytes = aeron.addCounter(BYTES_TYPE_ID, "offcache_transport_sent_bytes_total" + suffix);
        errors = aeron.addCounter(ERRORS_TYPE_ID, "offcache_transport_errors_total" + suffix);
        backPressure = aeron.addCounter(BACK_PRESSURE_TYPE_ID,
            "offcache_transport_backpressure_events_total" + suffix);
        inFlight = aeron.addCounter(IN_FLIGHT_TYPE_ID, "offcache_transport_inflight_requests" + suffix);
        sessions = aeron.addCounter(SESSIONS_TYPE_ID, "offcache_transport_client_sessions" + suffix);
    }

    /**
     * Returns FETCH frames received so far.
     *
     * @return FETCH frames received so far.
     */
    public long requests()
    {
        return requests.get();
    }

    /**
     * Returns payload bytes sent so far.
     *
     * @return payload bytes sent so far.
     */
    public long bytes()
    {
        return bytes.get();
    }

    /**
     * Returns errors so far.
     *
     * @return errors so far.
     */
    public long errors()
    {
        return errors.get();
    }

    /**
     * Returns back-pressure events so far.
     *
     * @return back-pressure events so far.
     */
    public long backPressureEvents()
    {
        return backPressure.get();
    }

    /**
     * Free the counters in the driver.
     */
    public void close()
    {
        CloseHelper.closeAll(requests, bytes, errors, backPressure, inFlight, sessions);
    }
}
