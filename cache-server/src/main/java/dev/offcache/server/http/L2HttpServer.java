package dev.offcache.server.http;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.offcache.core.config.ConcludeOnce;
import dev.offcache.range.config.InvalidSettingException;
import dev.offcache.range.engine.RangeCache;
import dev.offcache.server.metrics.BuildInfo;
import dev.offcache.range.metrics.MetricFamilies;
import dev.offcache.server.s3.S3Api;
import dev.offcache.server.tier.TierCounters;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The L2 cache server's HTTP/1.1 front (see {@code docs/cache-server.md} for the endpoints): Netty on native epoll
 * or io_uring when available, NIO otherwise. It owns its event loops, the prefetch queue and the response memory
 * budget; it does not own the engine it reads from ({@link RangeCache}, nor its store and origin), which its owner
 * closes after it.
 */
public final class L2HttpServer implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(L2HttpServer.class);

    private final Context ctx;
    private final TransportKind transport;
    private final EventLoopGroup bossGroup;
    private final EventLoopGroup workerGroup;
    private final PooledByteBufAllocator allocator;
    private final ChannelGroup channels = new DefaultChannelGroup("offcache-http", GlobalEventExecutor.INSTANCE);
    private final ConnectionsPerAddress perAddress;
    private final ServerResources resources;
    private final Channel serverChannel;
    private final Channel s3Channel;
    private boolean closed;

    /** Configuration of an {@link L2HttpServer}; {@link #conclude()} checks it. */
    public static final class Context
    {
        /** Default response bytes in flight across all connections: 1 GiB. */
        public static final long DEFAULT_MEMORY_BUDGET_BYTES = 1L << 30;
        /** Default longest object key, in UTF-8 bytes. */
        public static final int DEFAULT_MAX_KEY_LENGTH = 1024;
        /** Longest object key allowed at all: the SSD tier's block file header (one page) holds the names. */
        public static final int MAX_KEY_LENGTH_LIMIT = 2048;
        /** Default most ranges in one {@code POST /ranges}. */
        public static final int DEFAULT_MAX_RANGES = 4096;
        /** Default largest request body: 1 MiB. */
        public static final int DEFAULT_MAX_BODY_BYTES = 1 << 20;
        /** Smallest request-body limit: 1 KiB (a {@code POST /ranges} line list or an S3 XML body fits). */
        public static final int MIN_MAX_BODY_BYTES = 1 << 10;
        /** Largest request-body limit: 1 GiB (a body is held in memory whole before it is handled). */
        public static final int MAX_BODY_BYTES_LIMIT = 1 << 30;
        /** Default most open client connections. */
        public static final int DEFAULT_MAX_CONNECTIONS = 10_000;
        /** Default most open connections from one client address. */
        public static final int DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 1_000;
        /** Default time a client may take to send a whole request. */
        public static final int DEFAULT_REQUEST_READ_TIMEOUT_MS = 10_000;
        /** Default prefetch requests that may wait. */
        public static final int DEFAULT_PREFETCH_QUEUE_CAPACITY = 1024;
        /** Default prefetch worker threads. */
        public static final int DEFAULT_PREFETCH_THREADS = 2;
        /** Default event loop threads: 0, Netty's default (2 x cores). */
        public static final int DEFAULT_IO_THREADS = 0;
        /** Default time shutdown lets responses finish. */
        public static final int DEFAULT_SHUTDOWN_GRACE_SECONDS = 10;
        /** Default time {@code /ready} answers 503 at shutdown before the listeners close: none. */
        public static final int DEFAULT_UNREADY_DELAY_SECONDS = 0;

        private final ConcludeOnce concluded = new ConcludeOnce();
        private String host = "127.0.0.1";
        private int port = 8080;
        private TransportKind transport = TransportKind.AUTO;
        private int ioThreads = DEFAULT_IO_THREADS;
        private RangeCache engine;
        private long memoryBudgetBytes = DEFAULT_MEMORY_BUDGET_BYTES;
        private ApiKeys apiKeys;
        private boolean authDisabled;
        private int maxKeyLength = DEFAULT_MAX_KEY_LENGTH;
        private List<String> allowedPrefixes = List.of();
        private int maxRanges = DEFAULT_MAX_RANGES;
        private int maxBodyBytes = DEFAULT_MAX_BODY_BYTES;
        private int maxConnections = DEFAULT_MAX_CONNECTIONS;
        private int maxConnectionsPerAddress = DEFAULT_MAX_CONNECTIONS_PER_ADDRESS;
        private Duration requestReadTimeout = Duration.ofMillis(DEFAULT_REQUEST_READ_TIMEOUT_MS);
        private int prefetchQueueCapacity = DEFAULT_PREFETCH_QUEUE_CAPACITY;
        private int prefetchThreads = DEFAULT_PREFETCH_THREADS;
        private long prefetchJoinTimeoutMs = PrefetchQueue.JOIN_TIMEOUT_MS;
        private Duration shutdownGrace = Duration.ofSeconds(DEFAULT_SHUTDOWN_GRACE_SECONDS);
        private Duration unreadyDelay = Duration.ofSeconds(DEFAULT_UNREADY_DELAY_SECONDS);
        private Duration idleTimeout = Duration.ofSeconds(120);
        private TierCounters tierMetrics;
        private HttpMetrics httpMetrics;
        private Consumer<MetricFamilies> moreMetrics;
        private S3Api s3;

        /**
         * Where to listen.
         *
         * @param host address to bind.
         * @param port port to bind, 0 for any free one.
         * @return this.
         */
        public Context listen(final String host, final int port)
        {
            this.host = host;
            this.port = port;
            return this;
        }

        /**
         * The transport.
         *
         * @param transport the choice; {@link TransportKind#AUTO} picks the best available.
         * @return this.
         */
        public Context transport(final TransportKind transport)
        {
            this.transport = transport;
            return this;
        }

        /**
         * Event loop threads; 0 for Netty's default (2 x cores).
         *
         * @param threads threads.
         * @return this.
         */
        public Context ioThreads(final int threads)
        {
            this.ioThreads = threads;
            return this;
        }

        /**
         * Where bytes come from: the engine every endpoint reads through (sizes, one {@code BlockStream} per response
         * body, prefetches), so every request shape shares its single flight, coalescing and fetch permits; the
         * endpoints never reach a tier or the origin themselves. Not owned: closed by the caller after the server.
         *
         * @param cache the engine (with the tiered store as its store, on the server).
         * @return this.
         */
        public Context engine(final RangeCache cache)
        {
            this.engine = cache;
            return this;
        }

        /**
         * The global response memory budget.
         *
         * @param bytes bytes in flight at most; at least one block.
         * @return this.
         */
        public Context memoryBudgetBytes(final long bytes)
        {
            this.memoryBudgetBytes = bytes;
            return this;
        }

        /**
         * The accepted API keys.
         *
         * @param keys the keys.
         * @return this.
         */
        public Context apiKeys(final ApiKeys keys)
        {
            this.apiKeys = keys;
            return this;
        }

        /**
         * Serves without authentication (only when explicitly asked).
         *
         * @param disabled whether auth is off.
         * @return this.
         */
        public Context authDisabled(final boolean disabled)
        {
            this.authDisabled = disabled;
            return this;
        }

        /**
         * The longest object key.
         *
         * @param chars UTF-8 bytes, from 1 to {@link #MAX_KEY_LENGTH_LIMIT}.
         * @return this.
         */
        public Context maxKeyLength(final int chars)
        {
            this.maxKeyLength = chars;
            return this;
        }

        /**
         * Key prefixes clients may read under; empty allows all.
         *
         * @param prefixes the prefixes.
         * @return this.
         */
        public Context allowedPrefixes(final List<String> prefixes)
        {
            this.allowedPrefixes = List.copyOf(prefixes);
            return this;
        }

        /**
         * Most ranges in one {@code POST /ranges} (and one prefetch line).
         *
         * @param ranges the limit.
         * @return this.
         */
        public Context maxRanges(final int ranges)
        {
            this.maxRanges = ranges;
            return this;
        }

        /**
         * Largest request body; larger ones get 413.
         *
         * @param bytes the limit.
         * @return this.
         */
        public Context maxBodyBytes(final int bytes)
        {
            this.maxBodyBytes = bytes;
            return this;
        }

        /**
         * Most open client connections; further ones are closed at once.
         *
         * @param connections the limit.
         * @return this.
         */
        public Context maxConnections(final int connections)
        {
            this.maxConnections = connections;
            return this;
        }

        /**
         * Most open connections from one client address, so that one client cannot take every slot; further ones
         * are closed at once.
         *
         * @param connections the limit.
         * @return this.
         */
        public Context maxConnectionsPerAddress(final int connections)
        {
            this.maxConnectionsPerAddress = connections;
            return this;
        }

        /**
         * How long a client may take to send a whole request (head and body) from its first byte; a connection that
         * has not sent one by then, and has no earlier request being answered, is closed. Bounds what a client that
         * sends a byte at a time (resetting the idle timer each time) can hold.
         *
         * @param timeout the deadline.
         * @return this.
         */
        public Context requestReadTimeout(final Duration timeout)
        {
            this.requestReadTimeout = timeout;
            return this;
        }

        /**
         * Prefetch requests that may wait before new ones are dropped.
         *
         * @param capacity the queue's capacity.
         * @return this.
         */
        public Context prefetchQueueCapacity(final int capacity)
        {
            this.prefetchQueueCapacity = capacity;
            return this;
        }

        /**
         * Prefetch worker threads.
         *
         * @param threads threads.
         * @return this.
         */
        public Context prefetchThreads(final int threads)
        {
            this.prefetchThreads = threads;
            return this;
        }

        /** How long close waits for each prefetch worker (default 5 s; tests of one that outlives it). */
        Context prefetchJoinTimeoutMs(final long timeoutMs)
        {
            this.prefetchJoinTimeoutMs = timeoutMs;
            return this;
        }

        /**
         * How long shutdown waits for in-flight responses.
         *
         * @param grace the grace period.
         * @return this.
         */
        public Context shutdownGrace(final Duration grace)
        {
            this.shutdownGrace = grace;
            return this;
        }

        /**
         * At shutdown, how long {@code /ready} answers 503 while the listeners still accept and every request is
         * still served, so load balancers take the server out before it stops accepting. Zero skips it.
         *
         * @param delay the delay.
         * @return this.
         */
        public Context unreadyDelay(final Duration delay)
        {
            this.unreadyDelay = delay;
            return this;
        }

        /**
         * Connections idle (no read and no write) this long are closed.
         *
         * @param timeout the timeout.
         * @return this.
         */
        public Context idleTimeout(final Duration timeout)
        {
            this.idleTimeout = timeout;
            return this;
        }

        /**
         * Tier metrics to include on {@code /metrics}.
         *
         * @param metrics the store's metrics.
         * @return this.
         */
        public Context tierMetrics(final TierCounters metrics)
        {
            this.tierMetrics = metrics;
            return this;
        }

        /**
         * Where the HTTP front counts: counters in a region its owner frees after this server has closed (the
         * server's counters file). Without it the server keeps them in a private region it frees at close, after
         * its event loops have stopped.
         *
         * @param metrics the HTTP counters.
         * @return this.
         */
        public Context httpMetrics(final HttpMetrics metrics)
        {
            this.httpMetrics = metrics;
            return this;
        }

        /**
         * More metrics for {@code /metrics}, such as the range-cache engine's counters.
         *
         * @param metrics adds its families to each scrape (reading counters, never blocking their writers).
         * @return this.
         */
        public Context moreMetrics(final Consumer<MetricFamilies> metrics)
        {
            this.moreMetrics = metrics;
            return this;
        }

        /**
         * Serves the S3 API too, on its own listener over the same event loops, engine and budget.
         *
         * @param api the S3 API, or {@code null} for none.
         * @return this.
         */
        public Context s3(final S3Api api)
        {
            this.s3 = api;
            return this;
        }

        /**
         * Checks the limits without the engine, for an engine of the given block size, so a front end can refuse a
         * bad value before it makes anything. {@link #conclude()} checks them again.
         *
         * @param blockSize the block size of the engine that will be set.
         * @return this.
         * @throws InvalidSettingException naming the first setting that is wrong (its method's name).
         */
        public Context validate(final int blockSize)
        {
            if (memoryBudgetBytes < blockSize)
            {
                throw invalid("memoryBudgetBytes", "must hold at least one block (" + blockSize + " bytes), was " +
                    memoryBudgetBytes);
            }
            atLeast("maxKeyLength", maxKeyLength, 1);
            if (maxKeyLength > MAX_KEY_LENGTH_LIMIT)
            {
                throw invalid("maxKeyLength", "must be at most " + MAX_KEY_LENGTH_LIMIT + " (block file headers " +
                    "hold the name), was " + maxKeyLength);
            }
            atLeast("maxRanges", maxRanges, 1);
            if (maxBodyBytes < MIN_MAX_BODY_BYTES || maxBodyBytes > MAX_BODY_BYTES_LIMIT)
            {
                throw invalid("maxBodyBytes", "must be from " + MIN_MAX_BODY_BYTES + " to " + MAX_BODY_BYTES_LIMIT +
                    " bytes, was " + maxBodyBytes);
            }
            atLeast("maxConnections", maxConnections, 1);
            atLeast("maxConnectionsPerAddress", maxConnectionsPerAddress, 1);
            if (requestReadTimeout.isNegative() || requestReadTimeout.isZero())
            {
                throw invalid("requestReadTimeout", "must be positive, was " + requestReadTimeout);
            }
            atLeast("prefetchQueueCapacity", prefetchQueueCapacity, 1);
            atLeast("prefetchThreads", prefetchThreads, 1);
            atLeast("ioThreads", ioThreads, 0);
            if (shutdownGrace.isNegative())
            {
                throw invalid("shutdownGrace", "must be >= 0, was " + shutdownGrace);
            }
            if (unreadyDelay.isNegative())
            {
                throw invalid("unreadyDelay", "must be >= 0, was " + unreadyDelay);
            }
            return this;
        }

        /**
         * Checks the configuration.
         *
         * @return this.
         * @throws InvalidSettingException naming the first limit that is wrong.
         */
        public Context conclude()
        {
            concluded.conclude(this);
            Objects.requireNonNull(engine, "engine");
            Objects.requireNonNull(host, "host");
            if (port < 0 || port > 65535)
            {
                throw new IllegalArgumentException("port out of range: " + port);
            }
            if (null == apiKeys && !authDisabled)
            {
                throw new IllegalArgumentException("no API keys: set OFFCACHE_API_KEYS or pass --disable-auth");
            }
            return validate(engine.blockSize());
        }

        private static void atLeast(final String setting, final long value, final long min)
        {
            if (value < min)
            {
                throw invalid(setting, "must be >= " + min + ", was " + value);
            }
        }

        private static InvalidSettingException invalid(final String setting, final String problem)
        {
            return InvalidSettingException.of(setting, problem);
        }
    }

    private L2HttpServer(final Context ctx) throws InterruptedException
    {
        this.ctx = ctx;
        this.transport = ctx.transport.resolve();
        this.perAddress = new ConnectionsPerAddress(ctx.maxConnectionsPerAddress);
        final HttpMetrics metrics = null != ctx.httpMetrics ? ctx.httpMetrics : new HttpMetrics();
        // each step that owns memory or threads is undone, in reverse order, when a later one throws
        PrefetchQueue prefetch = null;
        EventLoopGroup boss = null;
        EventLoopGroup workers = null;
        Channel main = null;
        try
        {
            final MemoryBudget budget = new MemoryBudget(ctx.memoryBudgetBytes, ctx.engine.blockSize());
            prefetch = new PrefetchQueue(ctx.prefetchQueueCapacity, ctx.prefetchThreads, ctx.engine, metrics,
                ctx.prefetchJoinTimeoutMs);
            boss = new MultiThreadIoEventLoopGroup(1, transport.ioHandlerFactory());
            final MultiThreadIoEventLoopGroup workerLoops = new MultiThreadIoEventLoopGroup(ctx.ioThreads,
                transport.ioHandlerFactory());
            workers = workerLoops;
            this.bossGroup = boss;
            this.workerGroup = workers;
            this.allocator = ServerAllocator.create(workerLoops.executorCount());
            this.resources = new ServerResources(
                ctx.engine,
                budget,
                ctx.authDisabled ? null : ctx.apiKeys,
                new ObjectKeyPolicy(ctx.maxKeyLength, ctx.allowedPrefixes),
                ctx.maxRanges,
                prefetch,
                metrics,
                registry(metrics, budget, prefetch),
                new ObjectMapper(),
                new ServerState());
            main = bind(ctx.host, ctx.port, metrics, null);
            this.s3Channel = null == ctx.s3 ? null : bind(ctx.s3.host(), ctx.s3.port(), metrics, ctx.s3);
            this.serverChannel = main;
        }
        catch (final InterruptedException | RuntimeException | Error ex)
        {
            if (null != main)
            {
                main.close().awaitUninterruptibly();
            }
            channels.close().awaitUninterruptibly();
            shutdownGroups(boss, workers);
            if (null != prefetch)
            {
                prefetch.close();
            }
            if (null == prefetch || prefetch.workersStopped())
            {
                metrics.close();
            }
            throw ex;
        }
        resources.state().ready(true);
        LOG.info("offcache L2 server listening on {} (transport {}, memory budget {} MiB, auth {}){}",
            serverChannel.localAddress(), transport, ctx.memoryBudgetBytes >> 20,
            ctx.authDisabled ? "DISABLED" : "on", null == s3Channel ? "" : ", S3 API on " + s3Channel.localAddress());
    }

    /** The {@code /metrics} registry: the server's, the tiers' and the engine's families, and the JVM's. */
    private PrometheusRegistry registry(
        final HttpMetrics metrics, final MemoryBudget budget, final PrefetchQueue prefetch)
    {
        final PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(() ->
        {
            final MetricFamilies out = new MetricFamilies();
            BuildInfo.collectInto(out);
            metrics.collectInto(out, budget);
            out.gauge("offcache_server_prefetch_queued", "Prefetch requests waiting.", prefetch.queued());
            out.gauge("offcache_server_netty_pool_bytes",
                "Direct memory held by the server's Netty buffer pool (in use or kept for reuse).",
                allocator.metric().usedDirectMemory());
            if (null != ctx.tierMetrics)
            {
                ctx.tierMetrics.collectInto(out);
            }
            if (null != ctx.moreMetrics)
            {
                ctx.moreMetrics.accept(out);
            }
            return out.snapshots();
        });
        JvmMetrics.builder().register(registry);
        return registry;
    }

    /**
     * Binds one listener: the {@code /obj} API, or with {@code s3} the S3 API, whose connections put an
     * {@link S3Endpoint} before the same request handling (and an aggregator that refuses an oversized body in S3's
     * words).
     */
    private Channel bind(final String host, final int port, final HttpMetrics metrics, final S3Api s3)
        throws InterruptedException
    {
        final ServerBootstrap bootstrap = new ServerBootstrap()
            .group(bossGroup, workerGroup)
            .channel(transport.serverChannelClass())
            .option(ChannelOption.SO_BACKLOG, 1024)
            .option(ChannelOption.ALLOCATOR, allocator)
            .childOption(ChannelOption.ALLOCATOR, allocator)
            .childOption(ChannelOption.TCP_NODELAY, true)
            // two chunks of a stream fit under the high-water mark, so a stream of large blocks writes one while
            // the next is handed over instead of pausing after each
            .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(
                Math.max(256 * 1024, ctx.engine.blockSize()),
                Math.max(1024 * 1024, 2 * ctx.engine.blockSize() + 65536)))
            .childHandler(new ChannelInitializer<SocketChannel>()
            {
                @Override
                protected void initChannel(final SocketChannel channel)
                {
                    if (channels.size() >= ctx.maxConnections || !perAddress.tryOpen(channel))
                    {
                        metrics.connectionsRefused.increment();
                        channel.close();
                        return;
                    }
                    channels.add(channel);
                    final RequestReadDeadline deadline = new RequestReadDeadline(ctx.requestReadTimeout.toNanos(),
                        metrics);
                    channel.pipeline()
                        .addLast("idle", new IdleStateHandler(0, 0, ctx.idleTimeout.toMillis(),
                            TimeUnit.MILLISECONDS))
                        .addLast("idle-close", IDLE_CLOSER)
                        .addLast("read-deadline", deadline.beforeCodec())
                        // the codec's own pipelining bound (128) fails the connection in the middle of a response;
                        // RequestHandler bounds it instead, ending after the last complete one
                        .addLast("codec", new HttpServerCodec(new HttpDecoderConfig().setMaxInitialLineLength(8192)
                            .setMaxHeaderSize(16384).setMaxChunkSize(65536), Integer.MAX_VALUE))
                        .addLast("read-deadline-end", deadline.afterCodec());
                    if (null != s3)
                    {
                        // pass-through writes to an S3 origin stream their bodies past the aggregator's bound
                        // (an empty PutObject too: it sees requests before the bodiless shortcut)
                        channel.pipeline().addLast("s3-body", new S3BodyStreamer(s3, ctx.maxBodyBytes));
                    }
                    channel.pipeline()
                        .addLast("bodiless", new BodilessRequests())
                        .addLast("aggregator", null == s3 ? new HttpObjectAggregator(ctx.maxBodyBytes) :
                            new S3Aggregator(ctx.maxBodyBytes))
                        .addLast("handler", null == s3 ? new RequestHandler(resources) :
                            new RequestHandler(resources, new S3Endpoint(s3, resources)));
                }
            });
        final ChannelFuture bound = bootstrap.bind(new InetSocketAddress(host, port)).await();
        if (!bound.isSuccess())
        {
            throw new ListenFailedException(host, port, null != s3, bound.cause());
        }
        return bound.channel();
    }

    private static final ChannelHandler IDLE_CLOSER = new IdleCloser();

    /** Closes connections the idle handler reports as idle. */
    @ChannelHandler.Sharable
    private static final class IdleCloser extends ChannelDuplexHandler
    {
        @Override
        public void userEventTriggered(final ChannelHandlerContext ctx, final Object evt) throws Exception
        {
            if (evt instanceof IdleStateEvent)
            {
                ctx.close();
            }
            else
            {
                super.userEventTriggered(ctx, evt);
            }
        }
    }

    /**
     * Starts a server.
     *
     * @param ctx the configuration.
     * @return the running server.
     * @throws InterruptedException if interrupted while binding.
     */
    public static L2HttpServer launch(final Context ctx) throws InterruptedException
    {
        return new L2HttpServer(ctx.conclude());
    }

    /**
     * The bound address.
     *
     * @return the local address.
     */
    public InetSocketAddress address()
    {
        return (InetSocketAddress) serverChannel.localAddress();
    }

    /**
     * The bound address of the S3 API.
     *
     * @return the local address, or {@code null} when the S3 API is off.
     */
    public InetSocketAddress s3Address()
    {
        return null == s3Channel ? null : (InetSocketAddress) s3Channel.localAddress();
    }

    /**
     * The transport in use.
     *
     * @return the resolved transport.
     */
    public TransportKind transport()
    {
        return transport;
    }

    /**
     * The response memory budget (for its peak).
     *
     * @return the budget.
     */
    public MemoryBudget memoryBudget()
    {
        return resources.budget();
    }

    /**
     * Client connections open now (both listeners).
     *
     * @return the count.
     */
    public int openConnections()
    {
        return channels.size();
    }

    /**
     * The HTTP metrics.
     *
     * @return the metrics.
     */
    public HttpMetrics metrics()
    {
        return resources.metrics();
    }

    /**
     * Graceful shutdown: report not-ready on {@code /ready} for the unready delay while still serving everything,
     * then stop accepting (requests on open connections get 503), let in-flight responses finish within the grace
     * period, stop prefetching, then close every connection and the event loops.
     */
    @Override
    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        resources.state().ready(false);
        if (!ctx.unreadyDelay.isZero())
        {
            LOG.info("shutting down: /ready answers 503 for {} ms while serving, then draining",
                ctx.unreadyDelay.toMillis());
            try
            {
                Thread.sleep(ctx.unreadyDelay.toMillis());
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
        resources.state().closing(true);
        serverChannel.close().awaitUninterruptibly();
        if (null != s3Channel)
        {
            s3Channel.close().awaitUninterruptibly();
        }
        final long deadline = System.nanoTime() + ctx.shutdownGrace.toNanos();
        while (resources.state().activeResponses() > 0 && System.nanoTime() < deadline)
        {
            try
            {
                Thread.sleep(10);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (resources.state().activeResponses() > 0)
        {
            LOG.warn("shutdown grace period over: cutting {} responses", resources.state().activeResponses());
        }
        resources.prefetch().close();
        channels.close().awaitUninterruptibly();
        shutdownGroups(bossGroup, workerGroup);
        if (threadsStopped())
        {
            // the event loops and prefetch workers (the counters' writers) have ended: only now may a region this
            // server owns go
            resources.metrics().close();
        }
        else
        {
            LOG.warn("a prefetch worker or event loop outlived its shutdown: the HTTP counters stay mapped");
        }
        LOG.info("offcache L2 server stopped");
    }

    /**
     * Whether the server's own threads (event loops, prefetch workers) have ended: after {@link #close()}, false
     * only when one outlived its join, and then the counters it writes (the HTTP front's, and the tiers' through
     * the engine) must stay mapped ({@code ServerProgram} keeps the server's counters region then).
     *
     * @return true when none of them can write a counter any more.
     */
    public boolean threadsStopped()
    {
        return bossGroup.isTerminated() && workerGroup.isTerminated() && resources.prefetch().workersStopped();
    }

    private static void shutdownGroups(final EventLoopGroup boss, final EventLoopGroup workers)
    {
        if (null != boss)
        {
            boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
        }
        if (null != workers)
        {
            workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
        }
    }
}
