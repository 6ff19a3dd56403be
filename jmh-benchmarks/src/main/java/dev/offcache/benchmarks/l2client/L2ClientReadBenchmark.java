package dev.offcache.benchmarks.l2client;

import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import org.agrona.concurrent.UnsafeBuffer;

import dev.offcache.benchmarks.BenchmarkFiles;
import dev.offcache.benchmarks.RangeWalk;
import dev.offcache.benchmarks.transport.NettyPayloadClient;
import dev.offcache.benchmarks.transport.NettyPayloadServer;
import dev.offcache.range.engine.RangeCache;
import dev.offcache.range.l2.L2Client;
import dev.offcache.range.l2.L2ClientContext;
import dev.offcache.range.origin.FileSystemOrigin;
import dev.offcache.range.origin.HttpOrigin;
import dev.offcache.server.http.ApiKeys;
import dev.offcache.server.http.L2HttpServer;
import dev.offcache.server.http.TransportKind;
import dev.offcache.server.tier.TieredBlockStore;

/**
 * One ranged read from the real L2 server (RAM tier, 127.0.0.1) into a direct buffer, through the L2 client
 * (Netty, pooled direct buffers copied straight into the destination) beside two baselines: the floor, a raw Netty
 * TCP request/response of the same bytes between one client and one server event loop on 127.0.0.1 (no HTTP, no
 * cache: {@code baselineNettyTcpRead}, the transport benchmark's {@link NettyPayloadServer}); and the range-cache's
 * {@link HttpOrigin} ({@code java.net.http.HttpClient}, body handed over as heap buffers) against the same server.
 * Run with {@code -prof gc} to compare allocation per read.
 *
 * <p>Each read is sampled (SampleTime): the p50 is the figure to compare (the ratio to the floor), the p99 and the
 * mean show the tail. On a 2-core machine shared with other work, a descheduled event loop adds milliseconds to a
 * few reads, which swings an iteration's mean by more than the difference measured; the median of ~10^5 samples
 * does not move with them. Iterations are pinned (5 s, JMH's default 10 s only lengthens the run) and every
 * client is warm before the first one: its connection is open and pooled, its code compiled. The embedded server
 * runs with its access log off, as the {@code offcache-server} program does by default ({@code simplelogger.properties}
 * in this jar): a line per request written to the forked JVM's stderr would be measured instead of the read.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 5)
@Fork(1)
public class L2ClientReadBenchmark
{
    private static final String KEY = "bench/object.bin";
    private static final int OBJECT_BYTES = 4 * 1024 * 1024;
    private static final int BLOCK = 1024 * 1024;

    /** Bytes per read. */
    @Param({"65536"})
    public int rangeBytes;

    /**
     * The L2 server's transport: {@code NIO} (as the floor's server) or {@code AUTO}, which the
     * {@code offcache-server} program uses by default (epoll on Linux).
     */
    @Param({"NIO"})
    public String serverTransport;

    private Path dir;
    private RangeCache cache;
    private L2HttpServer server;
    private L2Client l2Client;
    private HttpOrigin jdkClient;
    private NettyPayloadServer tcpServer;
    private NettyPayloadClient tcpClient;
    private ByteBuffer tcpBytes;
    private ByteBuffer destination;
    private long offset;

    /**
     * Starts the server, warms its RAM tier and builds both clients.
     *
     * @throws Exception if the server cannot start.
     */
    @Setup(Level.Trial)
    public void setUp() throws Exception
    {
        dir = Files.createTempDirectory("offcache-l2bench");
        final Path origin = dir.resolve("origin");
        Files.createDirectories(origin.resolve("bench"));
        final byte[] bytes = new byte[OBJECT_BYTES];
        new Random(1).nextBytes(bytes);
        Files.write(origin.resolve(KEY), bytes);
        // The server wired as the offcache-server program wires it: the engine (tier L2) over the tiered store.
        cache = L2Engines.open(new FileSystemOrigin(origin, 1), BLOCK, 16L * BLOCK, 16L * BLOCK,
            dir.resolve("ssd"));
        final TieredBlockStore store = L2Engines.store(cache);
        server = L2HttpServer.launch(new L2HttpServer.Context()
            .listen("127.0.0.1", 0)
            .transport(TransportKind.valueOf(serverTransport))
            .ioThreads(1)
            .engine(cache)
            .apiKeys(ApiKeys.parse("bench-key-0123456789"))
            .authDisabled(true)
            .tierMetrics(store.metrics()));
        final String base = "http://127.0.0.1:" + server.address().getPort();
        l2Client = new L2Client(new L2ClientContext()
            .serverUri(URI.create(base))
            .apiKey("bench-key-0123456789")
            .origin(new FileSystemOrigin(origin, 1))
            .abandonTimeout(Duration.ofSeconds(5)));
        jdkClient = new HttpOrigin(URI.create(base + "/obj/"), Duration.ofSeconds(5));
        tcpBytes = ByteBuffer.allocateDirect(rangeBytes);
        tcpBytes.put(bytes, 0, rangeBytes).clear();
        tcpServer = new NettyPayloadServer();
        tcpServer.register(KEY, new UnsafeBuffer(tcpBytes));
        tcpClient = new NettyPayloadClient(tcpServer.port());
        destination = ByteBuffer.allocateDirect(rangeBytes);
        for (long at = 0; at < OBJECT_BYTES; at += rangeBytes)
        {
            destination.clear();
            l2Client.read(KEY, at, destination).join();
        }
        if (l2Client.metrics().readFallbacksTotal() != 0)
        {
            throw new IllegalStateException("the L2 server did not answer during warm-up");
        }
    }

    /**
     * Stops everything and deletes the files.
     *
     * @throws IOException if the files cannot be deleted.
     */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException
    {
        l2Client.close();
        jdkClient.close();
        tcpClient.close();
        tcpServer.close();
        server.close();
        cache.close();
        BenchmarkFiles.deleteTree(dir);
    }

    private long nextOffset()
    {
        offset = RangeWalk.next(offset, rangeBytes, OBJECT_BYTES);
        return offset;
    }

    /**
     * A read through the L2 client (Netty).
     *
     * @return bytes read.
     */
    @Benchmark
    public int oursRead()
    {
        destination.clear();
        return l2Client.read(KEY, nextOffset(), destination).join();
    }

    /**
     * Baseline (the floor): the same number of bytes as one raw Netty TCP request/response, no HTTP and no cache.
     *
     * @return bytes read.
     */
    @Benchmark
    public long baselineNettyTcpRead()
    {
        destination.clear();
        return tcpClient.fetch(KEY, destination).join();
    }

    /**
     * Baseline: the same read through {@code java.net.http.HttpClient} ({@link HttpOrigin}).
     *
     * @return bytes read.
     */
    @Benchmark
    public int baselineJdkHttpClientRead()
    {
        destination.clear();
        return jdkClient.read(KEY, nextOffset(), destination).join();
    }
}
