package dev.offcache.range.l2.shard;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongConsumer;

import dev.offcache.range.l2.CircuitBreaker;
import dev.offcache.range.l2.L2ClientContext;
import dev.offcache.range.l2.L2ObjectStore;
import dev.offcache.range.l2.L2Client;
import dev.offcache.range.metrics.MetricFamilies;
import dev.offcache.range.origin.ForwardingObjectStore;
import dev.offcache.range.origin.ObjectKeys;
import dev.offcache.range.origin.ObjectStore;
import dev.offcache.range.store.FetchClass;

/**
 * L2 spread over N L2 servers: an {@link ObjectStore} that routes each object key to one server by
 * rendezvous hashing ({@link RendezvousHash}) and reads it through that server's {@link L2Client}, so adding or
 * removing a server moves only that server's share of the keys. A server that failed {@code unhealthyAfter}
 * consecutive {@code GET /health} checks, or whose circuit breaker is not closed, is skipped: its keys go to their
 * next-highest available server, or to the real origin when none is left. It rejoins after one good health check
 * (which is also the probe that closes an open breaker). Warming ({@link #notifyWritten}) goes to the key's owner.
 * Puts, deletes, lists, versions and conditional reads go straight to the real origin.
 *
 * <pre>{@code
 * ShardedL2Client tier = new ShardedL2Client(new ShardedL2Context()
 *     .servers(List.of(URI.create("http://l2-a:8080"), URI.create("http://l2-b:8080")))
 *     .apiKey(key)
 *     .origin(new S3Origin(...))
 *     .client((client) -> client.abandonTimeout(Duration.ofMillis(300)))  // every per-server client's settings
 *     .fromEnvironment(System.getenv()));     // OFFCACHE_L2_SERVERS, OFFCACHE_L2_HEALTH_*, OFFCACHE_L2_*
 * }</pre>
 *
 * <p>The server list is a copy-on-write array: a lookup reads one volatile field, hashes the key once and computes
 * one 64-bit mix per server, with no allocation. Memory and ownership: reads fill the caller's buffer through the
 * owning server's client (see {@link L2Client}); the router owns every per-server client, the health-check thread
 * and the real origin, and closes them in {@link #close()}. Each per-server client falls back to the shared real
 * origin on its own failures, through a view that does not close it.
 */
public final class ShardedL2Client extends L2ObjectStore
{
    private static final int OP_READ = 0;
    private static final int OP_HEAD = 1;
    private static final int OP_WARM = 2;
    private static final String[] OP_TAGS = {"read", "head", "warm"};
    private static final L2Shard[] NO_SHARDS = new L2Shard[0];

    private final ShardedL2Context ctx;
    private final L2ClientContext template;
    private final ObjectStore sharedOrigin;
    private final long retireDelayNs;
    private final AtomicLongArray noServer = new AtomicLongArray(OP_TAGS.length);
    private final ScheduledExecutorService scheduler;
    private final ExecutorService healthIo;
    private final HttpClient http;
    private final List<L2Shard> retired = new ArrayList<>();
    private volatile L2Shard[] shards = NO_SHARDS;
    private volatile boolean closed;

    /**
     * Creates the router and one client per server from a context (concluded here), and starts health checks.
     *
     * @param ctx the configuration; the router owns the origin in it.
     */
    public ShardedL2Client(final ShardedL2Context ctx)
    {
        super(ctx.conclude().origin());
        this.ctx = ctx;
        this.template = ctx.client();
        this.sharedOrigin = new NonClosingOrigin(delegate());
        this.retireDelayNs = template.abandonTimeout().plus(template.stallTimeout()).toNanos();
        this.scheduler = Executors.newSingleThreadScheduledExecutor((task) -> daemon(task, "offcache-l2shard-health"));
        this.healthIo = Executors.newFixedThreadPool(2, (task) -> daemon(task, "offcache-l2shard-health-io"));
        this.http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(ctx.healthTimeout())
            .executor(healthIo)
            .build();
        try
        {
            for (final URI server : ctx.servers())
            {
                addServer(server);
            }
        }
        catch (final RuntimeException ex)
        {
            close();
            throw ex;
        }
        final long intervalNs = ctx.healthInterval().toNanos();
        scheduler.scheduleWithFixedDelay(this::checkHealth, intervalNs, intervalNs, TimeUnit.NANOSECONDS);
    }

    /**
     * Reads through the key's owner (its highest-weight available server), passing on the size its answer reports,
     * or from the real origin when no server is available.
     *
     * @param key         the object key.
     * @param offset      the first byte.
     * @param destination where the bytes go, from its position to its limit; the caller owns it.
     * @param fetchClass  demand or prefetch (passed on to the server's client and its breaker).
     * @param objectSize  told the size, or null.
     * @return the number of bytes read.
     */
    @Override
    protected CompletableFuture<Integer> readThroughL2(
        final String key, final long offset, final ByteBuffer destination, final FetchClass fetchClass,
        final LongConsumer objectSize)
    {
        final L2Shard shard = route(key, OP_READ);
        if (shard == null)
        {
            return delegate().read(key, offset, destination);
        }
        return shard.client().read(key, offset, destination, fetchClass, objectSize);
    }

    /**
     * Several ranges of one object through the key's owner ({@code POST /ranges}), or from the real origin when no
     * server is available.
     *
     * @param key          the object key.
     * @param offsets      the first byte of each range.
     * @param destinations where each range goes; the caller owns them.
     * @param fetchClass   demand or prefetch.
     * @param objectSize   told the size, or null.
     * @return the bytes read into each destination.
     */
    @Override
    public CompletableFuture<int[]> readVectored(
        final String key, final long[] offsets, final ByteBuffer[] destinations, final FetchClass fetchClass,
        final LongConsumer objectSize)
    {
        ObjectKeys.validate(key);
        final L2Shard shard = route(key, OP_READ);
        if (shard == null)
        {
            return delegate().readVectored(key, offsets, destinations, fetchClass, objectSize);
        }
        return shard.client().readVectored(key, offsets, destinations, fetchClass, objectSize);
    }

    @Override
    public CompletableFuture<Long> size(final String key)
    {
        ObjectKeys.validate(key);
        final L2Shard shard = route(key, OP_HEAD);
        if (shard == null)
        {
            return delegate().size(key);
        }
        return shard.client().size(key);
    }

    /**
     * Write-time warming: asks the key's owner to prefetch a newly written object. Fire-and-forget, as
     * {@link L2Client#notifyWritten(String, long)}.
     *
     * @param key  the object key.
     * @param size the object's size in bytes.
     * @return true when the owner's client queued the notice; false when it was dropped, invalid, or no server
     *     is available.
     */
    public boolean notifyWritten(final String key, final long size)
    {
        if (closed || key == null || size < 0)
        {
            return false;
        }
        try
        {
            ObjectKeys.validate(key);
        }
        catch (final IllegalArgumentException ex)
        {
            return false;
        }
        final L2Shard shard = route(key, OP_WARM);
        return shard != null && shard.client().notifyWritten(key, size);
    }

    /**
     * The server a call for this key would go to now (highest weight among the available servers), without
     * counting anything.
     *
     * @param key the object key.
     * @return the server, or null when none is available.
     */
    public L2Shard ownerOf(final String key)
    {
        final L2Shard[] current = shards;
        final long keyHash = RendezvousHash.hash(key);
        L2Shard best = null;
        long bestWeight = 0;
        for (final L2Shard shard : current)
        {
            final long weight = RendezvousHash.weight(shard.seed(), keyHash);
            if (shard.available() && (best == null || RendezvousHash.beats(weight, shard.seed(), bestWeight,
                best.seed())))
            {
                best = shard;
                bestWeight = weight;
            }
        }
        return best;
    }

    /**
     * Adds a server at runtime: it takes the keys it now wins (about {@code 1/(N+1)}), starting healthy.
     *
     * @param server {@code http://host:port[/base]}.
     * @return the new server.
     * @throws IllegalArgumentException when the URL is invalid or the server is already listed.
     */
    public synchronized L2Shard addServer(final URI server)
    {
        if (closed)
        {
            throw new IllegalStateException("the sharded L2 client is closed");
        }
        final URI uri = ShardedL2Context.parseServer("server", server.toString(), server.toString());
        final String id = ShardedL2Context.serverId(uri);
        for (final L2Shard shard : shards)
        {
            if (shard.id().equals(id))
            {
                throw new IllegalArgumentException("L2 server " + id + " is already listed");
            }
        }
        final L2ClientContext context = new L2ClientContext()
            .serverUri(uri)
            .apiKey(template.apiKey())
            .origin(sharedOrigin)
            .abandonTimeout(template.abandonTimeout())
            .stallTimeout(template.stallTimeout())
            .breakerThreshold(template.breakerThreshold())
            .breakerOpenTime(template.breakerOpenTime())
            .warmQueueCapacity(template.warmQueueCapacity())
            .warmBatchKeys(template.warmBatchKeys())
            .ioThreads(template.ioThreads())
            .maxIdleConnections(template.maxIdleConnections())
            .nanoClock(template.nanoClock());
        final L2Shard shard = new L2Shard(id, uri, new L2Client(context), ctx.unhealthyAfter());
        final L2Shard[] current = shards;
        final L2Shard[] next = Arrays.copyOf(current, current.length + 1);
        next[current.length] = shard;
        shards = next;
        return shard;
    }

    /**
     * Removes a server at runtime: exactly its keys move, each to its next-highest server. Its client is closed
     * after the abandon + stall timeouts, so reads already on it finish (or fall back to the origin).
     *
     * @param server the server's URL (any spelling with the same {@link ShardedL2Context#serverId(URI) id}).
     * @return true when it was listed.
     */
    public synchronized boolean removeServer(final URI server)
    {
        final String id = ShardedL2Context.serverId(server);
        final L2Shard[] current = shards;
        for (int i = 0; i < current.length; i++)
        {
            if (current[i].id().equals(id))
            {
                final L2Shard[] next = new L2Shard[current.length - 1];
                System.arraycopy(current, 0, next, 0, i);
                System.arraycopy(current, i + 1, next, i, current.length - i - 1);
                shards = next;
                final L2Shard gone = current[i];
                retired.add(gone);
                if (!closed)
                {
                    scheduler.schedule(() -> retire(gone), retireDelayNs, TimeUnit.NANOSECONDS);
                }
                return true;
            }
        }
        return false;
    }

    /**
     * The servers now listed.
     *
     * @return an immutable snapshot.
     */
    public List<L2Shard> servers()
    {
        return List.of(shards);
    }

    /**
     * Calls that found no available server and went to the origin.
     *
     * @param op {@code "read"}, {@code "head"} or {@code "warm"}.
     * @return the count.
     */
    public long noServer(final String op)
    {
        final int index = Arrays.asList(OP_TAGS).indexOf(op);
        if (index < 0)
        {
            throw new IllegalArgumentException("unknown op '" + op + "': read, head or warm");
        }
        return noServer.get(index);
    }

    /**
     * Adds the router's metrics ({@code offcache_l2shard_*}) and every server's client metrics
     * ({@code offcache_l2client_*}), each server's under a {@code server} label, to a scrape.
     *
     * @param out the scrape's families.
     */
    public void collectInto(final MetricFamilies out)
    {
        final L2Shard[] current = shards;
        out.gauge("offcache_l2shard_servers", "L2 servers the router spreads keys over.", current.length);
        for (int op = 0; op < OP_TAGS.length; op++)
        {
            out.counter("offcache_l2shard_no_server_total",
                "Calls that found no available server and went to the origin, by operation.", noServer.get(op),
                "op", OP_TAGS[op]);
        }
        for (final L2Shard shard : current)
        {
            final MetricFamilies server = out.labelled("server", shard.id());
            shard.collectInto(server);
            shard.client().metrics().collectInto(server);
        }
    }

    /**
     * Body bytes taken from the L2 servers, summed over the servers routed to now.
     *
     * @return the bytes.
     */
    @Override
    public long l2Bytes()
    {
        long sum = 0;
        for (final L2Shard shard : shards)
        {
            sum += shard.client().l2Bytes();
        }
        return sum;
    }

    /**
     * The router's metrics in the Prometheus text format, as the Prometheus client writes them.
     *
     * @return the exposition text.
     */
    public String toPrometheusText()
    {
        return MetricFamilies.textOf(this::collectInto);
    }

    /**
     * Stops health checks, closes every server's client, then closes the real origin.
     */
    @Override
    public void close()
    {
        final List<L2Shard> toClose;
        synchronized (this)
        {
            if (closed)
            {
                return;
            }
            closed = true;
            toClose = new ArrayList<>(Arrays.asList(shards));
            toClose.addAll(retired);
            retired.clear();
            shards = NO_SHARDS;
        }
        scheduler.shutdownNow();
        healthIo.shutdownNow();
        for (final L2Shard shard : toClose)
        {
            shard.client().close();
        }
        delegate().close();
    }

    @Override
    public String toString()
    {
        return "l2-sharded:" + Arrays.toString(shards) + " -> " + namespace();
    }

    private L2Shard route(final String key, final int op)
    {
        final L2Shard[] current = shards;
        final long keyHash = RendezvousHash.hash(key);
        L2Shard top = null;
        long topWeight = 0;
        L2Shard best = null;
        long bestWeight = 0;
        for (final L2Shard shard : current)
        {
            final long weight = RendezvousHash.weight(shard.seed(), keyHash);
            if (top == null || RendezvousHash.beats(weight, shard.seed(), topWeight, top.seed()))
            {
                top = shard;
                topWeight = weight;
            }
            if (shard.available() && (best == null || RendezvousHash.beats(weight, shard.seed(), bestWeight,
                best.seed())))
            {
                best = shard;
                bestWeight = weight;
            }
        }
        if (top != best)
        {
            // Every server ranked above the chosen one was skipped: count it on the server that lost the call.
            for (final L2Shard shard : current)
            {
                final long weight = RendezvousHash.weight(shard.seed(), keyHash);
                if (shard != best && (best == null || RendezvousHash.beats(weight, shard.seed(), bestWeight,
                    best.seed())))
                {
                    shard.countSkip();
                }
            }
        }
        if (best == null)
        {
            noServer.incrementAndGet(op);
            return null;
        }
        best.increment(op == OP_READ ? L2Shard.Counter.READS_ROUTED :
            op == OP_HEAD ? L2Shard.Counter.HEADS_ROUTED : L2Shard.Counter.WARM_ROUTED);
        return best;
    }

    private void checkHealth()
    {
        final L2Shard[] current = shards;
        for (final L2Shard shard : current)
        {
            if (closed)
            {
                return;
            }
            if (shard.health().tryBegin())
            {
                try
                {
                    startCheck(shard);
                }
                catch (final RuntimeException ex)
                {
                    // Never let one server's check stop the schedule (a thrown task is never run again).
                    onHealthResult(shard, null, false);
                }
            }
        }
    }

    private void startCheck(final L2Shard shard)
    {
        // An open breaker keeps reads away, so no read could probe it: the health check is its probe.
        final CircuitBreaker.Admission admission =
            shard.breaker().state() == CircuitBreaker.State.OPEN ? shard.breaker().admit(true) : null;
        final CircuitBreaker.Admission probe = admission == CircuitBreaker.Admission.PROBE ? admission : null;
        CompletableFuture<HttpResponse<Void>> response;
        try
        {
            response = http.sendAsync(
                HttpRequest.newBuilder(healthUri(shard.uri()))
                    .timeout(ctx.healthTimeout())
                    .header("Authorization", "Bearer " + template.apiKey())
                    .GET()
                    .build(),
                HttpResponse.BodyHandlers.discarding());
        }
        catch (final RuntimeException ex)
        {
            response = CompletableFuture.failedFuture(ex);
        }
        response.whenComplete((answer, error) ->
            onHealthResult(shard, probe, error == null && answer.statusCode() == 200));
    }

    private void onHealthResult(final L2Shard shard, final CircuitBreaker.Admission probe, final boolean ok)
    {
        try
        {
            if (probe != null)
            {
                if (ok)
                {
                    shard.breaker().onAnswered(probe);
                }
                else
                {
                    shard.breaker().onUnresponsive(probe);
                }
            }
            shard.increment(L2Shard.Counter.HEALTH_CHECKS);
            if (!ok)
            {
                shard.increment(L2Shard.Counter.HEALTH_FAILURES);
            }
            final HealthTracker.Transition transition = shard.health().onResult(ok);
            if (transition == HealthTracker.Transition.MARKED_UNHEALTHY)
            {
                shard.increment(L2Shard.Counter.MARKED_UNHEALTHY);
            }
            else if (transition == HealthTracker.Transition.REJOINED)
            {
                shard.increment(L2Shard.Counter.REJOINED);
            }
        }
        finally
        {
            shard.health().end();
        }
    }

    private void retire(final L2Shard shard)
    {
        synchronized (this)
        {
            if (closed || !retired.remove(shard))
            {
                return;
            }
        }
        shard.client().close();
    }

    private static URI healthUri(final URI server)
    {
        String path = server.getRawPath() == null ? "" : server.getRawPath();
        while (path.endsWith("/"))
        {
            path = path.substring(0, path.length() - 1);
        }
        final int port = server.getPort() < 0 ? 80 : server.getPort();
        return URI.create("http://" + server.getHost() + ":" + port + path + "/health");
    }

    private static Thread daemon(final Runnable task, final String name)
    {
        final Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        return thread;
    }

    /** The shared real origin as each per-server client sees it: every call passes through, close does not. */
    private static final class NonClosingOrigin extends ForwardingObjectStore
    {
        NonClosingOrigin(final ObjectStore origin)
        {
            super(origin);
        }

        @Override
        public void close()
        {
        }
    }
}
