package dev.offcache.benchmarks.registry;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import dev.offcache.registry.clustered.RegistryClusterClient;
import dev.offcache.registry.clustered.RegistryClusterMember;
import dev.offcache.registry.front.CacheRegistry;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.testkit.net.LoopbackPorts;

/**
 * Registry commands through the Aeron Cluster deployment ({@code impl=offcache-cluster}: a
 * {@link RegistryClusterClient} against {@code members} registry members, all in this JVM on 127.0.0.1 over UDP,
 * each with its own embedded driver, archive and consensus module, SHARED threading and backoff idle strategies)
 * beside the in-process Disruptor {@link CacheRegistry} ({@code impl=disruptor}, the baseline: no replication, no
 * network), with the same workload, at pipelining depths 1, 16 and 256.
 *
 * <p>Workload (as {@code RegistryCommandBenchmark}): round robin over lookup of a hot materialized key, claim,
 * completion (2 partitions) and invalidation of one of 64 keys; three of four commands change state.
 * {@code pipelined}: throughput with a sliding window of {@code pipelineDepth} commands in flight (each invocation
 * publishes one command and, when the window is full, first waits for the oldest). {@code burstRoundTrip} (sample
 * time, so p50/p99): {@code pipelineDepth} commands published at once, then all awaited; at depth 1 the round trip
 * of one command. The build's smoke run uses depth 16 only ({@code -p pipelineDepth=16}): each trial starts a
 * cluster.
 *
 * <p>Caveat: every member, the client and JMH share this machine's cores, so the cluster numbers include three
 * members' worth of Aeron threads competing with the client; on separate hosts the network adds latency instead.
 */
@State(Scope.Benchmark)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
@Threads(1)
public class RegistryClusterBenchmark
{
    private static final DatasetSchema SCHEMA = new DatasetSchema("id:int64,name:utf8");
    private static final CacheKey HOT = new CacheKey("bench", "hot");
    private static final int KEYS = 64;

    @Param({"offcache-cluster", "disruptor"})
    public String impl;

    /**
     * Commands in flight.
     */
    @Param({"1", "16", "256"})
    public int pipelineDepth;

    /**
     * Cluster members (cluster only): 3 (default) or 1 ({@code -p members=1}, no replication).
     */
    @Param({"3"})
    public int members;

    private final CacheKey[] keys = new CacheKey[KEYS];
    private final String[] jobs = new String[KEYS];
    private final List<List<PartitionLocation>> locations = new ArrayList<>();
    private final ArrayDeque<CompletableFuture<?>> window = new ArrayDeque<>();
    private final List<RegistryClusterMember> running = new ArrayList<>();
    private final List<String> aeronDirs = new ArrayList<>();
    private Path directory;
    private RegistryClusterClient client;
    private CacheRegistry registry;
    private long step;

    /**
     * Starts the implementation with one materialized hot key.
     *
     * @throws IOException if the member directories cannot be created.
     */
    @Setup(Level.Trial)
    public void setUp() throws IOException
    {
        for (int i = 0; i < KEYS; i++)
        {
            keys[i] = new CacheKey("bench", "key-" + i);
            jobs[i] = "job-" + i;
            locations.add(RegistryCommandBenchmark.locations(jobs[i]));
        }
        if ("offcache-cluster".equals(impl))
        {
            directory = Files.createTempDirectory("offcache-registry-cluster-bench");
            final int portBase = LoopbackPorts.randomBase(100);
            final List<String> hosts = new ArrayList<>();
            for (int i = 0; i < members; i++)
            {
                hosts.add("127.0.0.1");
            }
            final String prefix = "/dev/shm/aeron-offcache-cluster-bench-" + Long.toHexString(System.nanoTime());
            for (int i = 0; i < members; i++)
            {
                aeronDirs.add(prefix + "-" + i);
                running.add(RegistryClusterMember.launch(new RegistryClusterMember.Context()
                    .memberId(i)
                    .hosts(hosts)
                    .portBase(portBase)
                    .memberDir(directory.resolve("member-" + i).toFile())
                    .aeronDirectoryName(prefix + "-" + i)
                    .logTermLength(8 << 20)
                    .ingressTermLength(1 << 20)));
            }
            client = RegistryClusterClient.connect(new RegistryClusterClient.Context()
                .ingressEndpoints(RegistryClusterMember.ingressEndpoints(hosts, portBase))
                .egressChannel("aeron:udp?endpoint=127.0.0.1:0")
                .connectTimeoutMs(30_000));
            client.beginMaterialization(HOT, "hot-job").join();
            client.completeMaterialization(HOT, "hot-job", SCHEMA, RegistryCommandBenchmark.locations("hot-job"))
                .join();
        }
        else if ("disruptor".equals(impl))
        {
            registry = CacheRegistry.launch(new CacheRegistry.Context());
            registry.beginMaterialization(HOT, "hot-job").join();
            registry.completeMaterialization(HOT, "hot-job", SCHEMA, RegistryCommandBenchmark.locations("hot-job"))
                .join();
        }
        else
        {
            throw new IllegalArgumentException("impl must be offcache-cluster or disruptor: " + impl);
        }
    }

    /**
     * Drains the window, stops everything and deletes the member directories.
     *
     * @throws IOException if a directory cannot be deleted.
     */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException
    {
        while (!window.isEmpty())
        {
            window.poll().join();
        }
        if (client != null)
        {
            client.close();
        }
        if (registry != null)
        {
            registry.close();
        }
        for (final RegistryClusterMember member : running)
        {
            member.close();
        }
        for (final String dir : aeronDirs)
        {
            delete(Path.of(dir));
        }
        if (directory != null)
        {
            delete(directory);
        }
    }

    /**
     * Throughput with {@code pipelineDepth} commands in flight.
     *
     * @return the completed oldest command's outcome, or null while the window fills.
     */
    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    public Object pipelined()
    {
        Object done = null;
        if (window.size() >= pipelineDepth)
        {
            done = window.poll().join();
        }
        window.add(publish());
        return done;
    }

    /**
     * Time for a burst of {@code pipelineDepth} commands to be answered (at depth 1: one round trip).
     *
     * @return the last outcome.
     */
    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    public Object burstRoundTrip()
    {
        final CompletableFuture<?>[] burst = new CompletableFuture<?>[pipelineDepth];
        for (int i = 0; i < pipelineDepth; i++)
        {
            burst[i] = publish();
        }
        return CompletableFuture.allOf(burst).join();
    }

    private CompletableFuture<?> publish()
    {
        final long n = step++;
        final int kind = (int) (n & 3);
        final int key = (int) ((n >>> 2) % KEYS);
        if (kind == 0)
        {
            return client != null ? client.lookup(HOT) : registry.lookup(HOT);
        }
        if (kind == 1)
        {
            return client != null ? client.beginMaterialization(keys[key], jobs[key]) :
                registry.beginMaterialization(keys[key], jobs[key]);
        }
        if (kind == 2)
        {
            return client != null ? client.completeMaterialization(keys[key], jobs[key], SCHEMA, locations.get(key)) :
                registry.completeMaterialization(keys[key], jobs[key], SCHEMA, locations.get(key));
        }
        return client != null ? client.invalidate(keys[key]) : registry.invalidate(keys[key]);
    }

    private static void delete(final Path path) throws IOException
    {
        if (!Files.exists(path))
        {
            return;
        }
        try (Stream<Path> files = Files.walk(path))
        {
            for (final Path file : files.sorted(Comparator.reverseOrder()).toList())
            {
                Files.deleteIfExists(file);
            }
        }
    }
}
