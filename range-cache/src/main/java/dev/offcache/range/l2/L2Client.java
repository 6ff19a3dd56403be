package dev.offcache.range.l2;

import java.net.InetSocketAddress;
import java.net.URLEncoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongConsumer;

import org.agrona.concurrent.AgentRunner;

import dev.offcache.core.agent.AgentErrors;
import dev.offcache.core.async.Futures;
import dev.offcache.range.origin.ObjectKeys;
import dev.offcache.range.origin.ObjectStore;
import dev.offcache.range.store.FetchClass;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.concurrent.DefaultThreadFactory;

/**
 * L2 as an origin: reads and sizes go to the shared L2 cache server over HTTP/1.1 ({@code GET /obj/{key}}
 * with {@code Range}, {@code HEAD /obj/{key}}, {@code Authorization: Bearer}) and fall back to the real origin on any
 * failure, so a missing or misbehaving L2 lowers the hit rate but never fails or corrupts a read. Puts, deletes,
 * lists, versions and conditional reads go straight to the real origin. See {@code docs/l2-client.md}.
 *
 * <pre>{@code
 * ObjectStore tier = new L2Client(new L2ClientContext()   // the client's one configuration
 *     .serverUri(URI.create("http://l2:8080"))
 *     .apiKey(key)
 *     .origin(new S3Origin(...))
 *     .fromEnvironment(System.getenv()));                   // OFFCACHE_L2_* override what came before
 * }</pre>
 *
 * <p>Memory: a body is copied from Netty's pooled direct buffers straight into the caller's buffer (no heap copy);
 * the client never touches the caller's buffer after the returned future completes, because the L2 part and the
 * origin completion are strictly sequential. The client owns its event loop, its connections, the warming agent
 * and the real origin, and releases them all in {@link #close()}.
 */
public final class L2Client extends L2ObjectStore
{
    /** Request header asking the server for {@code 102 Processing} interim responses while it looks up a size. */
    static final String INTERIM_HEADER = "Offcache-Interim";
    static final String INTERIM_VALUE = "102";
    /** Request header asking for a checksummed body (each block's part followed by its CRC32C), and its answer. */
    static final String CHECKSUM_HEADER = "Offcache-Checksum";
    static final String CHECKSUM_VALUE = "crc32c";
    /** Response header of a checksummed body: the block size that cuts the range into chunks. */
    static final String BLOCK_SIZE_HEADER = "Offcache-Block-Size";
    /** Response header of {@code POST /ranges} with the object's size. */
    static final String OBJECT_SIZE_HEADER = "Offcache-Object-Size";

    /**
     * The response decoder: a body part may be as large as one socket read (Netty's default cuts reads into 8 KiB
     * parts: eight hand-overs per 64 KiB read instead of one or two). Parts are views of the read buffer either way.
     */
    private static final HttpDecoderConfig DECODER = new HttpDecoderConfig().setMaxChunkSize(1 << 20);

    private final L2ClientContext ctx;
    private final InetSocketAddress address;
    private final String hostHeader;
    private final String authorization;
    private final String basePath;
    private final long abandonTimeoutNs;
    private final long stallTimeoutNs;
    private final long minReadBytesPerSecond;
    private final L2ClientCounters metrics;
    private final CircuitBreaker breaker;
    private final EventLoopGroup group;
    private final Bootstrap bootstrap;
    private final ConcurrentLinkedDeque<Channel> idle = new ConcurrentLinkedDeque<>();
    private final AtomicInteger idleCount = new AtomicInteger();
    private final WarmingSender warming;
    private final AgentRunner warmingRunner;
    private volatile boolean closed;

    /**
     * Creates a client from a context (concluded here).
     *
     * @param ctx the configuration; the client owns the origin in it.
     */
    public L2Client(final L2ClientContext ctx)
    {
        super(ctx.conclude().origin());
        this.ctx = ctx;
        final String host = ctx.serverUri().getHost();
        final int port = ctx.serverUri().getPort() < 0 ? 80 : ctx.serverUri().getPort();
        this.address = new InetSocketAddress(host, port);
        this.hostHeader = host + ":" + port;
        this.authorization = "Bearer " + ctx.apiKey();
        final String path = ctx.serverUri().getRawPath();
        this.basePath = path == null ? "" : (path.endsWith("/") ? path.substring(0, path.length() - 1) : path);
        this.abandonTimeoutNs = ctx.abandonTimeout().toNanos();
        this.stallTimeoutNs = ctx.stallTimeout().toNanos();
        this.minReadBytesPerSecond = ctx.minReadBytesPerSecond();
        this.metrics = new L2ClientCounters(ctx.countersFile());
        this.breaker = new CircuitBreaker(
            ctx.breakerThreshold(), ctx.breakerOpenTime().toNanos(), ctx.nanoClock(), metrics);
        this.group = new MultiThreadIoEventLoopGroup(
            ctx.ioThreads(), new DefaultThreadFactory("offcache-l2client", true), NioIoHandler.newFactory());
        this.bootstrap = new Bootstrap()
            .group(group)
            .channel(NioSocketChannel.class)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) ctx.abandonTimeout().toMillis())
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
            .handler(new ChannelInitializer<SocketChannel>()
            {
                @Override
                protected void initChannel(final SocketChannel channel)
                {
                    channel.pipeline().addLast(new HttpClientCodec(DECODER, false, false), new ClientHandler());
                }
            });
        this.warming = new WarmingSender(this, metrics, ctx.warmQueueCapacity(), ctx.warmBatchKeys());
        this.warmingRunner = AgentErrors.runner(
            warming.idleStrategy(),
            metrics.counter(L2ClientCounters.Counter.WARMING_ERRORS), warming);
        AgentRunner.startOnThread(warmingRunner, new DefaultThreadFactory("offcache-l2client-warming", true));
    }

    @Override
    public CompletableFuture<Long> size(final String key)
    {
        ObjectKeys.validate(key);
        metrics.increment(L2ClientCounters.Counter.HEADS);
        final CircuitBreaker.Admission admission = breaker.admit(true);
        final CompletableFuture<Long> result = new CompletableFuture<>();
        if (admission == CircuitBreaker.Admission.SKIP || closed)
        {
            metrics.headFallback(FallbackReason.BREAKER_OPEN);
            sizeFromOrigin(key, result);
            return result;
        }
        new HeadExchange(this, admission, key, result).start();
        return result;
    }

    /**
     * A read through L2 that reports the object's size from L2's answer (nothing when the read fell back to the
     * origin). It says why it is made: a prefetch read uses L2 only while the breaker is closed and is never the
     * breaker's probe.
     *
     * @param key         the object key.
     * @param offset      the first byte.
     * @param destination where the bytes go, from its position to its limit; the caller owns it.
     * @param fetchClass  demand or prefetch.
     * @param objectSize  told the size, or null.
     * @return the number of bytes read (fewer only where the object ends; 0 from its end on).
     */
    @Override
    protected CompletableFuture<Integer> readThroughL2(
        final String key, final long offset, final ByteBuffer destination, final FetchClass fetchClass,
        final LongConsumer objectSize)
    {
        metrics.increment(L2ClientCounters.Counter.READS);
        final CircuitBreaker.Admission admission = breaker.admit(fetchClass == FetchClass.DEMAND);
        final CompletableFuture<Integer> result = new CompletableFuture<>();
        if (admission == CircuitBreaker.Admission.SKIP || closed)
        {
            metrics.readFallback(FallbackReason.BREAKER_OPEN);
            readFromOrigin(key, offset, destination, 0, result);
            return result;
        }
        new RangeExchange(this, admission, key, offset, destination, objectSize, result).start();
        return result;
    }

    /**
     * Several ranges of one object in one {@code POST /ranges}; on any failure the origin supplies what L2 did not
     * (from the offset reached in the range being read).
     *
     * @param key          the object key.
     * @param offsets      the first byte of each range.
     * @param destinations where each range goes; the caller owns them.
     * @param fetchClass   demand or prefetch.
     * @param objectSize   told the size from L2's answer, or null.
     * @return the bytes read into each destination.
     */
    @Override
    public CompletableFuture<int[]> readVectored(
        final String key, final long[] offsets, final ByteBuffer[] destinations, final FetchClass fetchClass,
        final LongConsumer objectSize)
    {
        ObjectKeys.validate(key);
        if (offsets.length != destinations.length)
        {
            throw new IllegalArgumentException("offsets and destinations differ in length: " + offsets.length +
                " != " + destinations.length);
        }
        for (int i = 0; i < offsets.length; i++)
        {
            if (offsets[i] < 0 || !destinations[i].hasRemaining())
            {
                throw new IllegalArgumentException("range " + i + " of '" + key + "' is negative or empty");
            }
        }
        metrics.increment(L2ClientCounters.Counter.READS);
        final CircuitBreaker.Admission admission = breaker.admit(fetchClass == FetchClass.DEMAND);
        final CompletableFuture<int[]> result = new CompletableFuture<>();
        if (admission == CircuitBreaker.Admission.SKIP || closed)
        {
            metrics.readFallback(FallbackReason.BREAKER_OPEN);
            readVectoredFromOrigin(key, offsets, destinations, new int[offsets.length], 0, objectSize, result);
            return result;
        }
        new VectoredExchange(this, admission, key, offsets, destinations, objectSize, result).start();
        return result;
    }

    /**
     * Write-time warming: asks the L2 server to prefetch a newly written object. Fire-and-forget: returns at once,
     * never throws, never waits; a full queue, an open breaker or a failed send drops the notice and counts it.
     *
     * @param key  the object key.
     * @param size the object's size in bytes.
     * @return true when the notice was queued; false when it was dropped or invalid.
     */
    public boolean notifyWritten(final String key, final long size)
    {
        if (closed || size < 0 || key == null)
        {
            metrics.increment(L2ClientCounters.Counter.WARM_REFUSED);
            return false;
        }
        try
        {
            ObjectKeys.validate(key);
        }
        catch (final IllegalArgumentException ex)
        {
            metrics.increment(L2ClientCounters.Counter.WARM_REFUSED);
            return false;
        }
        return warming.offer(key, size);
    }

    /**
     * The client's counters.
     *
     * @return the metrics.
     */
    public L2ClientCounters metrics()
    {
        return metrics;
    }

    /**
     * Body bytes taken from the L2 server ({@code offcache_l2client_l2_bytes_total}).
     *
     * @return the bytes.
     */
    @Override
    public long l2Bytes()
    {
        return metrics.get(L2ClientCounters.Counter.L2_BYTES);
    }

    /**
     * The circuit breaker in front of L2.
     *
     * @return the breaker.
     */
    public CircuitBreaker breaker()
    {
        return breaker;
    }

    /**
     * The real origin behind L2.
     *
     * @return the origin.
     */
    public ObjectStore origin()
    {
        return delegate();
    }

    /** Duty cycles the warming agent has run (tests: an idle client runs next to none). */
    long warmingDutyCycles()
    {
        return warming.dutyCycles();
    }

    /**
     * Stops warming, closes connections and the event loop, then closes the real origin.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        warming.idleStrategy().wakeForClose();
        warmingRunner.close();
        Channel channel;
        while ((channel = idle.poll()) != null)
        {
            channel.close();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        delegate().close();
        metrics.close();
    }

    @Override
    public String toString()
    {
        return "l2:" + ctx.serverUri() + " -> " + namespace();
    }

    void readFromOrigin(
        final String key, final long offset, final ByteBuffer destination, final int delivered,
        final CompletableFuture<Integer> result)
    {
        if (delivered > 0)
        {
            metrics.increment(L2ClientCounters.Counter.RESUMED);
        }
        final ByteBuffer rest = destination.duplicate();
        rest.position(destination.position() + delivered);
        final CompletableFuture<Integer> io = Futures.call(() -> delegate().read(key, offset + delivered, rest));
        io.whenComplete((bytes, error) ->
        {
            if (error != null)
            {
                result.completeExceptionally(error);
            }
            else
            {
                metrics.add(L2ClientCounters.Counter.ORIGIN_BYTES, bytes);
                result.complete(delivered + bytes);
            }
        });
    }

    /**
     * Completes a vectored read from the origin: ranges before {@code complete} were delivered whole by L2, range
     * {@code complete} is read from the offset L2 reached, the others whole.
     */
    void readVectoredFromOrigin(
        final String key, final long[] offsets, final ByteBuffer[] destinations, final int[] delivered,
        final int complete, final LongConsumer objectSize, final CompletableFuture<int[]> result)
    {
        readVectoredFromOrigin(key, offsets, destinations, delivered, complete, DamagedChunks.NONE, objectSize,
            result);
    }

    /**
     * Completes a vectored read from the origin: as above, and the chunks L2 delivered whose CRC32C did not match
     * are read again in place (only they: the good chunks around them stay).
     */
    void readVectoredFromOrigin(
        final String key, final long[] offsets, final ByteBuffer[] destinations, final int[] delivered,
        final int complete, final DamagedChunks damaged, final LongConsumer objectSize,
        final CompletableFuture<int[]> result)
    {
        final int rest = offsets.length - complete;
        final int repairs = damaged.count();
        if (rest == 0 && repairs == 0)
        {
            result.complete(delivered.clone());
            return;
        }
        if (rest > 0 && delivered[complete] > 0)
        {
            metrics.increment(L2ClientCounters.Counter.RESUMED);
        }
        final long[] pieceOffsets = new long[repairs + rest];
        final ByteBuffer[] pieceTargets = new ByteBuffer[repairs + rest];
        for (int i = 0; i < repairs; i++)
        {
            final ByteBuffer destination = destinations[damaged.range(i)];
            final int at = destination.position() + damaged.start(i);
            pieceOffsets[i] = offsets[damaged.range(i)] + damaged.start(i);
            pieceTargets[i] = destination.duplicate().limit(at + damaged.length(i)).position(at);
        }
        for (int i = 0; i < rest; i++)
        {
            final int index = complete + i;
            pieceOffsets[repairs + i] = offsets[index] + delivered[index];
            pieceTargets[repairs + i] = destinations[index].duplicate();
            pieceTargets[repairs + i].position(destinations[index].position() + delivered[index]);
        }
        final CompletableFuture<int[]> io = Futures.call(
            () -> delegate().readVectored(key, pieceOffsets, pieceTargets, FetchClass.DEMAND, objectSize));
        io.whenComplete((counts, error) ->
        {
            if (error != null)
            {
                result.completeExceptionally(error);
                return;
            }
            final int[] total = delivered.clone();
            long fromOrigin = 0;
            for (int i = 0; i < repairs; i++)
            {
                fromOrigin += counts[i];
                if (counts[i] < damaged.length(i))
                {
                    // the origin ended inside a repaired chunk: only the bytes before its end are right
                    total[damaged.range(i)] = Math.min(total[damaged.range(i)], damaged.start(i) + counts[i]);
                }
            }
            for (int i = 0; i < rest; i++)
            {
                total[complete + i] += counts[repairs + i];
                fromOrigin += counts[repairs + i];
            }
            metrics.add(L2ClientCounters.Counter.ORIGIN_BYTES, fromOrigin);
            result.complete(total);
        });
    }

    void sizeFromOrigin(final String key, final CompletableFuture<Long> result)
    {
        final CompletableFuture<Long> io = Futures.call(() -> delegate().size(key));
        io.whenComplete((size, error) ->
        {
            if (error != null)
            {
                result.completeExceptionally(error);
            }
            else
            {
                result.complete(size);
            }
        });
    }

    CompletableFuture<String> sendPrefetch(final byte[] body)
    {
        final CompletableFuture<String> result = new CompletableFuture<>();
        if (closed)
        {
            result.completeExceptionally(new IllegalStateException("L2 client closed"));
            return result;
        }
        new PrefetchExchange(this, body, result).start();
        return result;
    }

    HttpRequest newRequest(final HttpMethod method, final String path)
    {
        // no body: the shared empty buffer, not a fresh heap buffer per request
        final FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, method, path,
            Unpooled.EMPTY_BUFFER);
        addCommonHeaders(request);
        return request;
    }

    void addCommonHeaders(final HttpRequest request)
    {
        request.headers()
            .set(HttpHeaderNames.HOST, hostHeader)
            .set(HttpHeaderNames.AUTHORIZATION, authorization)
            .set(INTERIM_HEADER, INTERIM_VALUE);
    }

    String objectPath(final String key)
    {
        if (plainPath(key))
        {
            // what the encoding below gives a key of only such characters, without its per-segment garbage
            return basePath + "/obj/" + key;
        }
        final StringBuilder path = new StringBuilder(basePath.length() + key.length() + 16).append(basePath)
            .append("/obj/");
        int segmentStart = 0;
        for (int i = 0; i <= key.length(); i++)
        {
            if (i == key.length() || key.charAt(i) == '/')
            {
                if (segmentStart > 0)
                {
                    path.append('/');
                }
                path.append(URLEncoder.encode(key.substring(segmentStart, i), StandardCharsets.UTF_8)
                    .replace("+", "%20"));
                segmentStart = i + 1;
            }
        }
        return path.toString();
    }

    /** Whether every character of the key is one {@link URLEncoder} leaves as it is, or a segment's slash. */
    private static boolean plainPath(final String key)
    {
        for (int i = 0; i < key.length(); i++)
        {
            final char c = key.charAt(i);
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '/' ||
                c == '.' || c == '-' || c == '_' || c == '*'))
            {
                return false;
            }
        }
        return true;
    }

    String rangesPath(final String key)
    {
        final String object = objectPath(key);
        return basePath + "/ranges/" + object.substring(basePath.length() + "/obj/".length());
    }

    String prefetchPath()
    {
        return basePath + "/prefetch";
    }

    long abandonTimeoutNs()
    {
        return abandonTimeoutNs;
    }

    long stallTimeoutNs()
    {
        return stallTimeoutNs;
    }

    /** How long {@code bytes} take at the minimum read rate, in nanoseconds (no overflow for any length). */
    long transferNs(final long bytes)
    {
        return (long) Math.min(Long.MAX_VALUE / 4.0, bytes * 1e9 / minReadBytesPerSecond);
    }

    EventLoop nextLoop()
    {
        return group.next();
    }

    ChannelFuture connect(final EventLoop loop)
    {
        return bootstrap.clone(loop).connect(address);
    }

    Channel pollIdle()
    {
        Channel channel;
        while ((channel = idle.pollFirst()) != null)
        {
            idleCount.decrementAndGet();
            if (channel.isActive())
            {
                return channel;
            }
        }
        return null;
    }

    void release(final Channel channel, final boolean reusable)
    {
        if (reusable && !closed && channel.isActive())
        {
            if (idleCount.incrementAndGet() <= ctx.maxIdleConnections())
            {
                idle.offerFirst(channel);
                if (closed && idle.remove(channel))
                {
                    idleCount.decrementAndGet();
                    channel.close();
                }
                return;
            }
            idleCount.decrementAndGet();
        }
        channel.close();
    }
}
