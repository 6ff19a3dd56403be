package dev.offcache.benchmarks.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import org.agrona.CloseHelper;
import org.agrona.concurrent.UnsafeBuffer;
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

import dev.offcache.core.shuffle.PartitionId;
import dev.offcache.core.shuffle.PartitionWriter;
import dev.offcache.core.shuffle.ShufflePartitionStore;
import dev.offcache.dataset.CachedDatasetCoordinator;
import dev.offcache.dataset.DatasetResolver;
import dev.offcache.dataset.CachedNode;
import dev.offcache.dataset.JobOutput;
import dev.offcache.dataset.LocalExecutorStages;
import dev.offcache.dataset.OutputReader;
import dev.offcache.dataset.PartitionOpener;
import dev.offcache.dataset.PartitionReadBack;
import dev.offcache.dataset.PartitionViews;
import dev.offcache.dataset.ReadBackCounters;
import dev.offcache.dataset.StageCleanup;
import dev.offcache.registry.front.CacheRegistry;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.testkit.net.LoopbackPorts;
import dev.offcache.transport.client.PayloadClient;
import dev.offcache.transport.media.AeronMedia;
import dev.offcache.transport.media.TransportChannels;
import dev.offcache.transport.server.PayloadServer;
import dev.offcache.transport.source.ShufflePartitionSource;

/**
 * Time per action over a cached dataset on 2 in-process executors (each a shuffle store and an Aeron payload server
 * on one embedded driver, reached over IPC or, {@code -p transport=udp}, over UDP on 127.0.0.1 as another host's
 * executor would be; the action runs on executor 0, so half the partitions are read locally and half fetched over
 * Aeron): {@code oursWarmAction} (hit: read-back only), {@code oursColdAction} (claim, job, complete,
 * job cleanup, read-back) and the baseline {@code baselineRecomputeWarmAction} (no cache: run the input as a job,
 * read its output, delete it — what every action costs without {@code df.cache()}). The job computes
 * {@code totalBytes / 8} pseudo-random longs and writes them through the shuffle store (temp file, force, rename);
 * the query sums them. Default 8 MiB for the smoke run; {@code -p totalBytes=268435456} is 256 MiB over 4
 * partitions.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
@State(Scope.Benchmark)
public class DatasetCacheBenchmark
{
    private static final DatasetSchema SCHEMA = new DatasetSchema("value:int64");
    private static final OutputReader<Long> SUM = (schema, partitions) ->
    {
        long sum = 0;
        for (int i = 0; i < partitions.count(); i++)
        {
            final int length = partitions.buffer(i).capacity();
            for (int at = 0; at < length; at += Long.BYTES)
            {
                sum += partitions.buffer(i).getLong(at);
            }
        }
        return sum;
    };

    /**
     * Dataset size in bytes (over {@link #partitions} partitions).
     */
    @Param({"8388608"})
    public long totalBytes;

    /**
     * Output partitions; partition p lives on executor p mod 2.
     */
    @Param({"4"})
    public int partitions;

    /**
     * How the executors' payload servers are reached: {@code ipc} (one host) or {@code udp} (127.0.0.1, as from
     * another host: the remote read-back of docs/transport-aeron.md).
     */
    @Param({"ipc"})
    public String transport;

    private Path root;
    private AeronMedia media;
    private final List<ShufflePartitionStore> stores = new ArrayList<>();
    private final List<PayloadServer> servers = new ArrayList<>();
    private final List<PayloadClient> clients = new ArrayList<>();
    private UnsafeBuffer staging;
    private StageCleanup cleanup;
    private CacheRegistry registry;
    private CachedDatasetCoordinator<Long> coordinator;
    private PartitionReadBack baselineReadBack;
    private final AtomicLong sequence = new AtomicLong();
    private CachedNode<Long> warm;
    private CacheKey coldKey;
    private String recomputeJob;

    /**
     * Starts the cluster and materializes the warm dataset.
     *
     * @throws IOException if the work dir cannot be created.
     */
    @Setup(Level.Trial)
    public void setUp() throws IOException
    {
        if (totalBytes % ((long) partitions * Long.BYTES) != 0 || totalBytes / partitions > (1 << 30))
        {
            throw new IllegalArgumentException("totalBytes must split into partitions of whole longs <= 1 GiB");
        }
        root = Files.createTempDirectory("offcache-e2e-bench");
        media = AeronMedia.launch(new AeronMedia.Context());
        for (int e = 0; e < 2; e++)
        {
            final ShufflePartitionStore store = new ShufflePartitionStore(root.resolve("exec-" + e),
                (jobId, stageId) -> registry != null && registry.isPinned(jobId, stageId));
            stores.add(store);
            final String channel;
            switch (transport)
            {
                case "ipc":
                    channel = TransportChannels.IPC;
                    break;
                case "udp":
                    channel = TransportChannels.udp("127.0.0.1", LoopbackPorts.freeUdpPort());
                    break;
                default:
                    throw new IllegalArgumentException("transport must be ipc or udp: " + transport);
            }
            servers.add(PayloadServer.launch(new PayloadServer.Context().aeron(media.aeron())
                .payloadSource(new ShufflePartitionSource(store)).requestChannel(channel)
                .requestStreamId(7101 + e)));
            clients.add(PayloadClient.connect(new PayloadClient.Context().aeron(media.aeron())
                .requestChannel(channel).requestStreamId(7101 + e)));
        }
        staging = new UnsafeBuffer(ByteBuffer.allocateDirect((int) (totalBytes / partitions)));
        cleanup = new StageCleanup(new LocalExecutorStages(Map.of("exec-0", stores.get(0), "exec-1", stores.get(1))));
        registry = CacheRegistry.launch(new CacheRegistry.Context().removalListener(cleanup));
        cleanup.pinnedStages(registry::pinnedStages);
        coordinator = CachedDatasetCoordinator.launch(new CachedDatasetCoordinator.Context<Long>()
            .resolver(new DatasetResolver.Context<Long>().registry(registry).jobRunner(this::runJob).cleanup(cleanup))
            .opener(new PartitionOpener.Context().on("exec-0", stores.get(0)).remoteExecutors(this::client))
            .workerThreads(2));
        baselineReadBack = new PartitionReadBack("exec-0", stores.get(0), this::client,
            TimeUnit.SECONDS.toNanos(30), true, new ReadBackCounters());
        warm = new CachedNode<>(new CacheKey("bench", "warm"), 42L);
        coordinator.execute(warm, SUM).join();
    }

    /**
     * A hit: validate, read back (2 partitions mapped locally, 2 fetched over Aeron), sum.
     *
     * @return the sum.
     */
    @Benchmark
    public long oursWarmAction()
    {
        return coordinator.execute(warm, SUM).join();
    }

    /**
     * A miss on a fresh key: claim, job, complete, job cleanup, read back, sum (the key is removed after each call,
     * outside the measurement).
     *
     * @return the sum.
     */
    @Benchmark
    public long oursColdAction()
    {
        coldKey = new CacheKey("bench", "cold-" + sequence.incrementAndGet());
        return coordinator.execute(new CachedNode<>(coldKey, 42L), SUM).join();
    }

    /**
     * Without a cache: run the input as a job, read its output, sum (its output is deleted after each call, outside
     * the measurement, as the cold action's is).
     *
     * @return the sum.
     */
    @Benchmark
    public long baselineRecomputeWarmAction()
    {
        recomputeJob = "recompute-" + sequence.incrementAndGet();
        final JobOutput output = runJob(recomputeJob, 42L).join();
        try (PartitionViews views = baselineReadBack.readAll(output.locations()))
        {
            return SUM.read(output.schema(), views);
        }
    }

    /**
     * Removes the cold key's and the recompute job's output so actions do not pile up data.
     *
     * @throws InterruptedException if interrupted.
     */
    @TearDown(Level.Invocation)
    public void dropColdKey() throws InterruptedException
    {
        if (coldKey != null)
        {
            registry.invalidate(coldKey).join();
            cleanup.awaitIdle(30_000);
            coldKey = null;
        }
        if (recomputeJob != null)
        {
            cleanup.cleanJob(recomputeJob).join();
            recomputeJob = null;
        }
    }

    /**
     * Stops everything and deletes the work dir.
     *
     * @throws IOException if the work dir cannot be deleted.
     */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException
    {
        CloseHelper.closeAll(coordinator, baselineReadBack, registry, cleanup);
        CloseHelper.closeAll(clients);
        CloseHelper.closeAll(servers);
        CloseHelper.close(media);
        try (Stream<Path> files = Files.walk(root))
        {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
        catch (final UncheckedIOException ex)
        {
            throw ex.getCause();
        }
    }

    private PayloadClient client(final String executorId)
    {
        return clients.get(Integer.parseInt(executorId.substring("exec-".length())));
    }

    private CompletableFuture<JobOutput> runJob(final String jobId, final Long seed)
    {
        // Runs on the caller's thread: the job's cost is what is measured, its future is its finish event.
        final List<PartitionLocation> locations = new ArrayList<>();
        final int rows = (int) (totalBytes / partitions / Long.BYTES);
        synchronized (staging)
        {
            for (int p = 0; p < partitions; p++)
            {
                long z = seed * 0x9E3779B97F4A7C15L + ((long) p << 32);
                for (int i = 0; i < rows; i++)
                {
                    z += 0x9E3779B97F4A7C15L;
                    long x = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
                    x = (x ^ (x >>> 27)) * 0x94D049BB133111EBL;
                    staging.putLong(i * Long.BYTES, x ^ (x >>> 31));
                }
                final int executor = p % 2;
                try (PartitionWriter writer = stores.get(executor).openWriter(new PartitionId(jobId, 1, p)))
                {
                    writer.write(staging, 0, rows * Long.BYTES);
                    locations.add(PartitionLocation.of("exec-" + executor, writer.commit()));
                }
            }
        }
        return CompletableFuture.completedFuture(new JobOutput(SCHEMA, locations));
    }
}
