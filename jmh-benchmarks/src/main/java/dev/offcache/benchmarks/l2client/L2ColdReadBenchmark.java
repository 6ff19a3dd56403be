package dev.offcache.benchmarks.l2client;

import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import dev.offcache.benchmarks.BenchmarkFiles;
import dev.offcache.range.engine.RangeCache;
import dev.offcache.range.l2.L2Client;
import dev.offcache.range.l2.L2ClientContext;
import dev.offcache.range.origin.DelayingOrigin;
import dev.offcache.range.origin.FileSystemOrigin;
import dev.offcache.server.http.ApiKeys;
import dev.offcache.server.http.L2HttpServer;
import dev.offcache.server.http.TransportKind;
import dev.offcache.server.tier.TieredBlockStore;

/**
 * A cold read of a whole object through the real L2 server, whose origin answers every GET and HEAD after a fixed
 * latency (S3's time to first byte, {@code latencyMs}): the client's {@link L2Client#read} of the object against one
 * direct GET of the same object from the same latency-injecting origin. Each operation reads an object the server has
 * never seen (a fresh hard link to the file, so the bytes come from the page cache and only the latency and the
 * coalescing differ). {@code sizeKnown} makes the server know the size beforehand (a HEAD in the per-op setup, not
 * timed): only the blocks are cold then. {@code originGets} counts the GETs per op; {@code originHeads} the HEADs.
 *
 * <p>1 MiB blocks, GETs of up to 8 MiB, as the server's defaults. Single-shot per op, since every op must be cold.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class L2ColdReadBenchmark
{
    private static final int BLOCK = 1024 * 1024;
    private static final String KEY = "bench-key-0123456789";

    /** Object size in MiB. */
    @Param("16")
    public int objectMiB;

    /** Origin latency per GET and HEAD, in ms. */
    @Param("30")
    public int latencyMs;

    /** Whether the server knows the object's size before the timed read (only the blocks are cold). */
    @Param({"false", "true"})
    public boolean sizeKnown;

    private Path dir;
    private Path file;
    private DelayingOrigin serverOrigin;
    private DelayingOrigin direct;
    private RangeCache cache;
    private L2HttpServer server;
    private L2Client client;
    private ByteBuffer destination;
    private String key;
    private int next;

    /**
     * Origin requests per op: GETs and HEADs the server's origin saw, summed over the iteration's ops.
     */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Requests
    {
        /** Origin GETs. */
        public long originGets;
        /** Origin HEADs. */
        public long originHeads;

        /**
         * Clears the counters per iteration.
         */
        @Setup(Level.Iteration)
        public void clear()
        {
            originGets = 0;
            originHeads = 0;
        }
    }

    /**
     * Starts the server (engine tier L2 over the tiered store, the origin behind a latency) and the client.
     *
     * @throws Exception if the server cannot start.
     */
    @Setup(Level.Trial)
    public void setUp() throws Exception
    {
        dir = Files.createTempDirectory("offcache-coldbench");
        final Path origin = dir.resolve("origin");
        Files.createDirectories(origin);
        file = origin.resolve("object.bin");
        final byte[] bytes = new byte[objectMiB * BLOCK];
        new Random(1).nextBytes(bytes);
        Files.write(file, bytes);
        final long latencyNs = TimeUnit.MILLISECONDS.toNanos(latencyMs);
        serverOrigin = new DelayingOrigin(new FileSystemOrigin(origin, 4), latencyNs);
        direct = new DelayingOrigin(new FileSystemOrigin(origin, 4), latencyNs);
        cache = L2Engines.open(serverOrigin, BLOCK, 4L * objectMiB * BLOCK, 4L * objectMiB * BLOCK,
            dir.resolve("ssd"));
        final TieredBlockStore store = L2Engines.store(cache);
        store.metrics().countLookupsOf(cache.metrics());
        server = L2HttpServer.launch(new L2HttpServer.Context()
            .listen("127.0.0.1", 0)
            .transport(TransportKind.AUTO)
            .ioThreads(1)
            .engine(cache)
            .apiKeys(ApiKeys.parse(KEY))
            .memoryBudgetBytes(4L * objectMiB * BLOCK)
            .tierMetrics(store.metrics()));
        client = new L2Client(new L2ClientContext()
            .serverUri(URI.create("http://127.0.0.1:" + server.address().getPort()))
            .apiKey(KEY)
            .origin(new FileSystemOrigin(origin, 1))
            .abandonTimeout(Duration.ofSeconds(5)));
        destination = ByteBuffer.allocateDirect(objectMiB * BLOCK);
    }

    /**
     * A fresh object name for the next op (a hard link to the file): cold for the server's engine and store.
     *
     * @throws IOException if the link cannot be made.
     */
    @Setup(Level.Invocation)
    public void freshObject() throws IOException
    {
        key = "cold-" + next++ + ".bin";
        Files.createLink(file.resolveSibling(key), file);
        if (sizeKnown)
        {
            client.size(key).join();
        }
        destination.clear();
    }

    /**
     * Stops everything and deletes the files.
     *
     * @throws IOException if the files cannot be deleted.
     */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException
    {
        client.close();
        server.close();
        cache.close();
        direct.close();
        BenchmarkFiles.deleteTree(dir);
    }

    /**
     * The whole object through the L2 client and server (the server's origin requests are counted).
     *
     * @param requests counts origin GETs and HEADs.
     * @return bytes read.
     */
    @Benchmark
    public int oursColdRead(final Requests requests)
    {
        final long gets = serverOrigin.gets();
        final long heads = serverOrigin.heads();
        final int read = client.read(key, 0, destination).join();
        requests.originGets += serverOrigin.gets() - gets;
        requests.originHeads += serverOrigin.heads() - heads;
        return read;
    }

    /**
     * Baseline: one GET of the whole object from the same latency-injecting origin.
     *
     * @param requests counts origin GETs.
     * @return bytes read.
     */
    @Benchmark
    public int baselineDirectColdRead(final Requests requests)
    {
        requests.originGets++;
        return direct.read(key, 0, destination).join();
    }
}
