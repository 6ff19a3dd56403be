package dev.offcache.benchmarks.l2client;

import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import dev.offcache.benchmarks.BenchmarkFiles;
import dev.offcache.range.engine.RangeCache;
import dev.offcache.range.l2.shard.L2Shard;
import dev.offcache.range.l2.shard.ShardedL2Client;
import dev.offcache.range.l2.shard.ShardedL2Context;
import dev.offcache.range.origin.FileSystemOrigin;
import dev.offcache.server.http.ApiKeys;
import dev.offcache.server.http.L2HttpServer;
import dev.offcache.server.http.TransportKind;
import dev.offcache.server.tier.TieredBlockStore;

/**
 * The same client load (batches of {@value #IN_FLIGHT} concurrent 64 KiB reads of random objects, all in the
 * servers' RAM tiers) through {@link ShardedL2Client} spread over three real L2 servers (ours) and over one server
 * (the baseline: every key on one server). Each server runs one event-loop thread; the client gets the same number
 * of event-loop threads in both (one per server with three, three for the single server), so only the server side
 * differs. All servers live in the benchmark's JVM on 127.0.0.1, so on a small machine they compete with the
 * client for the same cores.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ShardedL2ReadBenchmark
{
    private static final int IN_FLIGHT = 12;
    private static final int OBJECTS = 12;
    private static final int OBJECT_BYTES = 1024 * 1024;
    private static final int BLOCK = 256 * 1024;
    private static final int PLAN = 4096;
    private static final String API_KEY = "bench-key-0123456789";

    /** {@code offcache-3-servers}: keys spread over three servers; {@code one-server}: all on one. */
    @Param({"offcache-3-servers", "one-server"})
    public String impl;

    /** Bytes per read. */
    @Param({"65536"})
    public int rangeBytes;

    private Path dir;
    private final List<Server> servers = new ArrayList<>();
    private ShardedL2Client router;
    private final ByteBuffer[] destinations = new ByteBuffer[IN_FLIGHT];
    private final CompletableFuture<?>[] reads = new CompletableFuture<?>[IN_FLIGHT];
    private final String[] planKeys = new String[PLAN];
    private final long[] planOffsets = new long[PLAN];
    private int next;

    /**
     * Starts the servers, builds the router and warms every object into the servers' RAM tiers.
     *
     * @throws Exception if a server cannot start.
     */
    @Setup(Level.Trial)
    public void setUp() throws Exception
    {
        final int serverCount = impl.equals("one-server") ? 1 : 3;
        dir = Files.createTempDirectory("offcache-shardbench");
        final Path origin = dir.resolve("origin");
        Files.createDirectories(origin.resolve("bench"));
        final Random random = new Random(1);
        final byte[] bytes = new byte[OBJECT_BYTES];
        for (int i = 0; i < OBJECTS; i++)
        {
            random.nextBytes(bytes);
            Files.write(origin.resolve(key(i)), bytes);
        }
        final List<URI> uris = new ArrayList<>();
        for (int s = 0; s < serverCount; s++)
        {
            final Server server = new Server(origin, dir.resolve("ssd-" + s));
            servers.add(server);
            uris.add(URI.create("http://127.0.0.1:" + server.http.address().getPort()));
        }
        router = new ShardedL2Client(new ShardedL2Context()
            .servers(uris)
            .apiKey(API_KEY)
            .origin(new FileSystemOrigin(origin, 1))
            .client((client) -> client.abandonTimeout(Duration.ofSeconds(5)).ioThreads(3 / serverCount)));
        for (int i = 0; i < IN_FLIGHT; i++)
        {
            destinations[i] = ByteBuffer.allocateDirect(rangeBytes);
        }
        for (int i = 0; i < OBJECTS; i++)
        {
            for (long at = 0; at < OBJECT_BYTES; at += rangeBytes)
            {
                destinations[0].clear();
                router.read(key(i), at, destinations[0]).join();
            }
        }
        for (final L2Shard shard : router.servers())
        {
            if (shard.client().metrics().readFallbacksTotal() != 0)
            {
                throw new IllegalStateException("L2 server " + shard.id() + " did not answer during warm-up");
            }
        }
        for (int i = 0; i < PLAN; i++)
        {
            planKeys[i] = key(random.nextInt(OBJECTS));
            planOffsets[i] = (long) random.nextInt(OBJECT_BYTES / rangeBytes) * rangeBytes;
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
        router.close();
        for (final Server server : servers)
        {
            server.close();
        }
        BenchmarkFiles.deleteTree(dir);
    }

    /**
     * {@value #IN_FLIGHT} reads issued together, then awaited; the score is per read.
     *
     * @return bytes read.
     */
    @Benchmark
    @OperationsPerInvocation(IN_FLIGHT)
    public int read()
    {
        for (int i = 0; i < IN_FLIGHT; i++)
        {
            final int step = next;
            next = (step + 1) & (PLAN - 1);
            destinations[i].clear();
            reads[i] = router.read(planKeys[step], planOffsets[step], destinations[i]);
        }
        int total = 0;
        for (int i = 0; i < IN_FLIGHT; i++)
        {
            total += (Integer) reads[i].join();
        }
        return total;
    }

    private static String key(final int object)
    {
        return "bench/object-" + object + ".bin";
    }

    /** One L2 server wired as the offcache-server program wires it, with a RAM tier that holds every object. */
    private static final class Server
    {
        final RangeCache cache;
        final L2HttpServer http;

        Server(final Path origin, final Path ssd) throws InterruptedException
        {
            cache = L2Engines.open(new FileSystemOrigin(origin, 1), BLOCK, (long) OBJECTS * OBJECT_BYTES + 4L * BLOCK,
                8L * BLOCK, ssd);
            final TieredBlockStore store = L2Engines.store(cache);
            http = L2HttpServer.launch(new L2HttpServer.Context()
                .listen("127.0.0.1", 0)
                .transport(TransportKind.NIO)
                .ioThreads(1)
                .engine(cache)
                .apiKeys(ApiKeys.parse(API_KEY))
                .authDisabled(true)
                .tierMetrics(store.metrics()));
        }

        void close()
        {
            http.close();
            cache.close();
        }
    }
}
