package dev.offcache.core.counters;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Map;
import java.util.TreeMap;

/**
 * The one table of Agrona counter type ids that offcache allocates, so a reader in another process (AeronStat, a
 * {@code CountersReader} over a counters file) can tell offcache's counters from Aeron's and from each other. Aeron
 * keeps ids below 1000 for itself; ours are 4001 and up (one hundred per component) and 8101 and up for the
 * transport's counters in the media driver's CnC file. A new component takes the next free hundred here, nowhere
 * else.
 */
public final class CounterTypes
{
    /** The range-cache engine's {@code offcache_range_*} counters (its counters file). */
    public static final int RANGE_ENGINE = 4001;
    /** The L2 client's {@code offcache_l2client_*} counters (its counters file). */
    public static final int L2_CLIENT = 4101;
    /** The registry's {@code offcache_registry_*} counters, in the manager its context names. */
    public static final int REGISTRY = 4201;
    /** The dataset coordinator's read-back {@code offcache_dataset_*} counters, in the manager its context names. */
    public static final int DATASET = 4301;
    /**
     * The L2 cache server's {@code offcache_server_*} counters, HTTP front and tiered store (its counters file,
     * {@code --server-counters-file}).
     */
    public static final int L2_SERVER = 4401;
    /** Transport server: FETCH frames received ({@code offcache_transport_requests_total}). */
    public static final int TRANSPORT_REQUESTS = 8101;
    /** Transport server: payload bytes sent ({@code offcache_transport_sent_bytes_total}). */
    public static final int TRANSPORT_SENT_BYTES = 8102;
    /** Transport server: requests that failed, and dropped frames ({@code offcache_transport_errors_total}). */
    public static final int TRANSPORT_ERRORS = 8103;
    /** Transport server: offers refused by back-pressure ({@code offcache_transport_backpressure_events_total}). */
    public static final int TRANSPORT_BACK_PRESSURE = 8104;
    /** Transport server: requests being served, a gauge ({@code offcache_transport_inflight_requests}). */
    public static final int TRANSPORT_IN_FLIGHT = 8105;
    /** Transport server: connected clients, a gauge ({@code offcache_transport_client_sessions}). */
    public static final int TRANSPORT_SESSIONS = 8106;

    private CounterTypes()
    {
    }

    /**
     * Every type id in this table by its constant's name, for tools and for the uniqueness check.
     *
     * @return id to constant name, ascending.
     * @throws IllegalStateException if two constants share an id.
     */
    public static Map<Integer, String> all()
    {
        final Map<Integer, String> ids = new TreeMap<>();
        for (final Field field : CounterTypes.class.getFields())
        {
            if (Modifier.isStatic(field.getModifiers()) && field.getType() == int.class)
            {
                try
                {
                    final String previous = ids.put(field.getInt(null), field.getName());
                    if (previous != null)
                    {
                        throw new IllegalStateException(field.getName() + " and " + previous + " share type id " +
                            field.getInt(null));
                    }
                }
                catch (final IllegalAccessException ex)
                {
                    throw new IllegalStateException(ex);
                }
            }
        }
        return ids;
    }
}
