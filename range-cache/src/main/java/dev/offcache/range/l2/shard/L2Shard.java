package dev.offcache.range.l2.shard;

import java.net.URI;
import java.util.concurrent.atomic.AtomicLongArray;

import dev.offcache.range.l2.CircuitBreaker;
import dev.offcache.range.l2.L2Client;
import dev.offcache.range.metrics.MetricFamilies;

/**
 * One L2 server behind a {@link ShardedL2Client}: its id and hash seed, its own {@link L2Client} client (with its
 * own circuit breaker, connections and warming queue), its health state and its routing counters, exported as
 * {@code offcache_l2shard_<what>_total{server="<id>"}}. Owned by the router, which closes the client when the
 * server is removed or the router closes.
 */
public final class L2Shard
{
    /** Per-server counters; one atomic add per event, no allocation. */
    public enum Counter
    {
        /** Reads routed to this server. */
        READS_ROUTED("offcache_l2shard_reads_routed_total", "Reads routed to this server."),
        /** Size requests routed to this server. */
        HEADS_ROUTED("offcache_l2shard_heads_routed_total", "Size requests routed to this server."),
        /** Warming notices routed to this server. */
        WARM_ROUTED("offcache_l2shard_warm_routed_total", "Warming notices routed to this server."),
        /** Calls this server would have won but skipped because it failed its health checks. */
        SKIPPED_UNHEALTHY("offcache_l2shard_skipped_total", SKIPPED_HELP, "reason", "unhealthy"),
        /** Calls this server would have won but skipped because its circuit breaker was not closed. */
        SKIPPED_BREAKER("offcache_l2shard_skipped_total", SKIPPED_HELP, "reason", "breaker_open"),
        /** Health checks completed. */
        HEALTH_CHECKS("offcache_l2shard_health_checks_total", "Health checks of this server completed."),
        /** Health checks that failed (no answer in time, or not 200). */
        HEALTH_FAILURES("offcache_l2shard_health_failures_total",
            "Health checks of this server that failed (no answer in time, or not 200)."),
        /** Times the server was marked unhealthy. */
        MARKED_UNHEALTHY("offcache_l2shard_marked_unhealthy_total", "Times this server was marked unhealthy."),
        /** Times the server became healthy again. */
        REJOINED("offcache_l2shard_rejoined_total", "Times this server became healthy again.");

        private final String metricName;
        private final String help;
        private final String[] labels;

        Counter(final String metricName, final String help, final String... labels)
        {
            this.metricName = metricName;
            this.help = help;
            this.labels = labels;
        }

        /**
         * The Prometheus name, without labels.
         *
         * @return the name.
         */
        public String metricName()
        {
            return metricName;
        }
    }

    private static final String SKIPPED_HELP =
        "Calls this server would have won but skipped, by reason (unhealthy, breaker not closed).";

    private static final Counter[] COUNTERS = Counter.values();

    private final String id;
    private final URI uri;
    private final long seed;
    private final L2Client client;
    private final CircuitBreaker breaker;
    private final HealthTracker health;
    private final AtomicLongArray counts = new AtomicLongArray(COUNTERS.length);

    L2Shard(final String id, final URI uri, final L2Client client, final int unhealthyAfter)
    {
        this.id = id;
        this.uri = uri;
        this.seed = RendezvousHash.hash(id);
        this.client = client;
        this.breaker = client.breaker();
        this.health = new HealthTracker(unhealthyAfter);
    }

    /**
     * The server's id in the hash ({@link ShardedL2Context#serverId(URI)}).
     *
     * @return the id.
     */
    public String id()
    {
        return id;
    }

    /**
     * The server's URL as configured.
     *
     * @return the URL.
     */
    public URI uri()
    {
        return uri;
    }

    /**
     * The server's rendezvous seed, {@code RendezvousHash.hash(id())}.
     *
     * @return the seed.
     */
    public long seed()
    {
        return seed;
    }

    /**
     * The client of this server (its breaker and {@code offcache_l2client_*} metrics).
     *
     * @return the client; owned by the router.
     */
    public L2Client client()
    {
        return client;
    }

    /**
     * Whether the last health checks let the server take reads.
     *
     * @return false after {@code unhealthyAfter} consecutive failures, until a success.
     */
    public boolean healthy()
    {
        return health.healthy();
    }

    /**
     * Whether a call may be routed here: healthy and the breaker closed.
     *
     * @return true when the server takes its keys.
     */
    public boolean available()
    {
        return health.healthy() && breaker.state() == CircuitBreaker.State.CLOSED;
    }

    /**
     * A counter's value.
     *
     * @param counter the counter.
     * @return its value.
     */
    public long get(final Counter counter)
    {
        return counts.get(counter.ordinal());
    }

    void increment(final Counter counter)
    {
        counts.incrementAndGet(counter.ordinal());
    }

    void countSkip()
    {
        increment(health.healthy() ? Counter.SKIPPED_BREAKER : Counter.SKIPPED_UNHEALTHY);
    }

    HealthTracker health()
    {
        return health;
    }

    CircuitBreaker breaker()
    {
        return breaker;
    }

    /**
     * Adds this server's routing counters and health to a scrape.
     *
     * @param out the scrape's families, as a view labelled with this server's id.
     */
    void collectInto(final MetricFamilies out)
    {
        for (final Counter counter : COUNTERS)
        {
            out.counter(counter.metricName, counter.help, get(counter), counter.labels);
        }
        out.gauge("offcache_l2shard_healthy", "1 while this server passes its health checks.", healthy() ? 1 : 0);
        out.gauge("offcache_l2shard_available", "1 while this server is healthy and its breaker lets calls through.",
            available() ? 1 : 0);
    }

    @Override
    public String toString()
    {
        return id + (available() ? "" : healthy() ? " (breaker " + breaker.state() + ")" : " (unhealthy)");
    }
}
