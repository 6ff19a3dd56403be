package dev.offcache.benchmarks.l2client;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

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

import dev.offcache.range.l2.shard.L2Shard;
import dev.offcache.range.l2.shard.RendezvousHash;
import dev.offcache.range.l2.shard.ShardedL2Client;
import dev.offcache.range.l2.shard.ShardedL2Context;
import dev.offcache.range.origin.FileSystemOrigin;

/**
 * The sharded L2 client's route lookup ({@link ShardedL2Client#ownerOf}: hash the key once, one 64-bit mix and an
 * availability check per server) beside modulo hashing of the same key hash (one remainder; the baseline moves
 * almost every key when a server is added or removed). No server is contacted; run with {@code -prof gc} to see
 * that neither allocates.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RendezvousRouteBenchmark
{
    private static final int KEYS = 1024;

    /** Number of servers. */
    @Param({"3"})
    public int servers;

    private Path dir;
    private ShardedL2Client router;
    private L2Shard[] shards;
    private final String[] keys = new String[KEYS];
    private int next;

    /**
     * Builds a router over servers that are never contacted (health checks an hour apart).
     *
     * @throws IOException if the origin directory cannot be made.
     */
    @Setup(Level.Trial)
    public void setUp() throws IOException
    {
        dir = Files.createTempDirectory("offcache-routebench");
        final List<URI> uris = new ArrayList<>();
        for (int s = 0; s < servers; s++)
        {
            uris.add(URI.create("http://10.0.0." + (s + 1) + ":8080"));
        }
        router = new ShardedL2Client(new ShardedL2Context()
            .servers(uris)
            .apiKey("bench-key-0123456789")
            .origin(new FileSystemOrigin(dir, 1))
            .healthInterval(Duration.ofHours(1)).healthTimeout(Duration.ofMillis(500)).unhealthyAfter(3));
        shards = router.servers().toArray(new L2Shard[0]);
        for (int i = 0; i < KEYS; i++)
        {
            keys[i] = "lake/events/date=2024-01-" + (1 + i % 28) + "/part-" + i + ".parquet";
        }
    }

    /**
     * Closes the router and deletes the directory.
     *
     * @throws IOException if it cannot be deleted.
     */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException
    {
        router.close();
        Files.delete(dir);
    }

    private String nextKey()
    {
        final int i = next;
        next = (i + 1) & (KEYS - 1);
        return keys[i];
    }

    /**
     * Rendezvous lookup of the key's owner.
     *
     * @return the owner.
     */
    @Benchmark
    public L2Shard oursRoute()
    {
        return router.ownerOf(nextKey());
    }

    /**
     * Baseline: modulo hashing of the same key hash.
     *
     * @return the owner.
     */
    @Benchmark
    public L2Shard baselineModuloRoute()
    {
        return shards[(int) Long.remainderUnsigned(RendezvousHash.hash(nextKey()), shards.length)];
    }
}
