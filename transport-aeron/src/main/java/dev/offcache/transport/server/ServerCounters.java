package dev.offcache.transport.server;

import dev.offcache.core.counters.CounterTypes;
import io.aeron.Aeron;
import io.aeron.Counter;
import org.agrona.CloseHelper;

/**
 * The payload server's counters, allocated in the media driver's CnC file so AeronStat-style tools in other
 * processes read them. Type ids are {@link CounterTypes#TRANSPORT_REQUESTS}..{@link CounterTypes#TRANSPORT_SESSIONS},
 * in the one table of offcache's type ids; labels start with
 * the metric name and carry {@code server=<name>}. Owned by the server; freed when it closes.
 */
public final class ServerCounters implements AutoCloseable
{
    final Counter requests;
    final Counter bytes;
    final Counter errors;
    final Counter backPressure;
    final Counter inFlight;
    final Counter sessions;

    ServerCounters(final Aeron aeron, final String serverName)
    {
        final String suffix = " server=" + serverName;
        requests = aeron.addCounter(CounterTypes.TRANSPORT_REQUESTS, "offcache_transport_requests_total" + suffix);
        bytes = aeron.addCounter(CounterTypes.TRANSPORT_SENT_BYTES, "offcache_transport_sent_bytes_total" + suffix);
        errors = aeron.addCounter(CounterTypes.TRANSPORT_ERRORS, "offcache_transport_errors_total" + suffix);
        backPressure = aeron.addCounter(CounterTypes.TRANSPORT_BACK_PRESSURE,
            "offcache_transport_backpressure_events_total" + suffix);
        inFlight = aeron.addCounter(CounterTypes.TRANSPORT_IN_FLIGHT, "offcache_transport_inflight_requests" + suffix);
        sessions = aeron.addCounter(CounterTypes.TRANSPORT_SESSIONS, "offcache_transport_client_sessions" + suffix);
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
