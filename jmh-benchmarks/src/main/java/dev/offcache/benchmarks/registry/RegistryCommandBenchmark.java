package dev.offcache.benchmarks.registry;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import com.lmax.disruptor.BlockingWaitStrategy;
import com.lmax.disruptor.WaitStrategy;
import com.lmax.disruptor.YieldingWaitStrategy;
import org.agrona.concurrent.SystemEpochClock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import dev.offcache.registry.front.CacheRegistry;
import dev.offcache.registry.journal.ChangeLog;
import dev.offcache.registry.journal.JournalChangeLog;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.CacheStateMachine;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.PartitionLocation;

/**
 * Registry commands through the Disruptor front ({@code impl=offcache}: one registry thread, callers wait on a
 * CompletableFuture, group commit per batch) beside the same state machine behind a {@code synchronized} block
 * ({@code impl=synchronized}: the caller applies, journals and forces under the lock). Both run the same contract,
 * the same workload and the same backend ({@code backend=memory} or {@code backend=journal}: every state change
 * appended to the mapped journal and forced before the call returns).
 *
 * <p>Workload per thread, round robin: lookup of a hot materialized key (hit), claim of the thread's own key,
 * completion of it (2 partitions), invalidation of it — three of four commands change state.
 * {@code roundTrip*}: one command per call, waited for (latency; run with {@code -bm sample} for p50/p99/p99.9).
 * {@code burst16}: 16 commands published, then all 16 awaited (how group commit amortises the force); the
 * synchronized baseline can only run them one after another.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class RegistryCommandBenchmark
{
    private static final DatasetSchema SCHEMA = new DatasetSchema("id:int64,name:utf8");
    private static final CacheKey HOT = new CacheKey("bench", "hot");

    @Param({"offcache", "synchronized"})
    public String impl;

    @Param({"memory"})
    public String backend;

    /**
     * The registry thread's wait strategy (disruptor only): {@code blocking} (default, no CPU when idle) or
     * {@code yielding} (spins and yields: lower latency, burns a core).
     */
    @Param({"blocking"})
    public String waitStrategy;

    private final AtomicInteger threadIds = new AtomicInteger();
    private Path directory;
    private CacheRegistry registry;
    private SynchronizedRegistry baseline;

    /**
     * Starts the implementation under test with one materialized hot key.
     *
     * @throws IOException if the journal directory cannot be created.
     */
    @Setup(Level.Trial)
    public void setUp() throws IOException
    {
        final ChangeLog changeLog;
        if ("journal".equals(backend))
        {
            directory = Files.createTempDirectory("offcache-registry-bench");
            changeLog = JournalChangeLog.open(new JournalChangeLog.Context().directory(directory));
        }
        else if ("memory".equals(backend))
        {
            changeLog = ChangeLog.IN_MEMORY;
        }
        else
        {
            throw new IllegalArgumentException("backend must be memory or journal: " + backend);
        }
        if ("offcache".equals(impl))
        {
            final WaitStrategy strategy =
                "yielding".equals(waitStrategy) ? new YieldingWaitStrategy() : new BlockingWaitStrategy();
            registry = CacheRegistry.launch(new CacheRegistry.Context().changeLog(changeLog).waitStrategy(strategy));
            registry.beginMaterialization(HOT, "hot-job").join();
            registry.completeMaterialization(HOT, "hot-job", SCHEMA, locations("hot-job")).join();
        }
        else if ("synchronized".equals(impl))
        {
            baseline = new SynchronizedRegistry(changeLog);
            baseline.begin(HOT, "hot-job");
            baseline.complete(HOT, "hot-job", locations("hot-job"));
        }
        else
        {
            throw new IllegalArgumentException("impl must be offcache (the Disruptor front) or synchronized: " + impl);
        }
    }

    /**
     * Stops it and deletes the journal.
     *
     * @throws IOException if the journal directory cannot be deleted.
     */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException
    {
        if (registry != null)
        {
            registry.close();
        }
        if (baseline != null)
        {
            baseline.close();
        }
        if (directory != null)
        {
            try (Stream<Path> files = Files.walk(directory))
            {
                for (final Path file : files.sorted(Comparator.reverseOrder()).toList())
                {
                    Files.delete(file);
                }
            }
        }
    }

    /**
     * Per-thread workload position: its own key and job, and the next step.
     */
    @State(Scope.Thread)
    public static class Producer
    {
        CacheKey key;
        String job;
        List<PartitionLocation> locations;
        long step;

        /**
         * Gives the thread its own key.
         *
         * @param bench the shared benchmark state.
         */
        @Setup(Level.Trial)
        public void setUp(final RegistryCommandBenchmark bench)
        {
            final int id = bench.threadIds.getAndIncrement();
            key = new CacheKey("bench", "producer-" + id);
            job = "job-" + id;
            locations = locations(job);
        }
    }

    /**
     * One command, one producer thread.
     *
     * @param producer the thread's state.
     * @return the outcome.
     */
    @Benchmark
    @Threads(1)
    public Object roundTrip1(final Producer producer)
    {
        return oneCommand(producer);
    }

    /**
     * One command, two producer threads.
     *
     * @param producer the thread's state.
     * @return the outcome.
     */
    @Benchmark
    @Threads(2)
    public Object roundTrip2(final Producer producer)
    {
        return oneCommand(producer);
    }

    /**
     * Sixteen commands in flight from one producer, then awaited.
     *
     * @param producer the thread's state.
     * @return the last outcome.
     */
    @Benchmark
    @Threads(1)
    @OperationsPerInvocation(16)
    public Object burst16(final Producer producer)
    {
        if (baseline != null)
        {
            Object last = null;
            for (int i = 0; i < 16; i++)
            {
                last = oneCommand(producer);
            }
            return last;
        }
        final CompletableFuture<?>[] inFlight = new CompletableFuture<?>[16];
        for (int i = 0; i < 16; i++)
        {
            inFlight[i] = publish(producer);
        }
        return CompletableFuture.allOf(inFlight).join();
    }

    private Object oneCommand(final Producer producer)
    {
        if (baseline != null)
        {
            final long step = producer.step++ & 3;
            if (step == 0)
            {
                return baseline.lookup(HOT);
            }
            if (step == 1)
            {
                return baseline.begin(producer.key, producer.job);
            }
            if (step == 2)
            {
                return baseline.complete(producer.key, producer.job, producer.locations);
            }
            return baseline.invalidate(producer.key);
        }
        return publish(producer).join();
    }

    private CompletableFuture<?> publish(final Producer producer)
    {
        final long step = producer.step++ & 3;
        if (step == 0)
        {
            return registry.lookup(HOT);
        }
        if (step == 1)
        {
            return registry.beginMaterialization(producer.key, producer.job);
        }
        if (step == 2)
        {
            return registry.completeMaterialization(producer.key, producer.job, SCHEMA, producer.locations);
        }
        return registry.invalidate(producer.key);
    }

    static List<PartitionLocation> locations(final String job)
    {
        return List.of(
            new PartitionLocation("exec-1", job, 1, 0, "/shuffle/" + job + "/1/0.data", 64 << 20),
            new PartitionLocation("exec-2", job, 1, 1, "/shuffle/" + job + "/1/1.data", 64 << 20));
    }

    /**
     * The baseline: the same state machine and change log behind one lock; each call applies, journals and forces
     * before it returns (there is no batch to amortise the force over).
     */
    static final class SynchronizedRegistry
    {
        private final CacheStateMachine state;
        private final ChangeLog changeLog;

        SynchronizedRegistry(final ChangeLog changeLog)
        {
            this.changeLog = changeLog;
            this.state = new CacheStateMachine(SystemEpochClock.INSTANCE);
            changeLog.recover(state);
            state.listener(changeLog);
        }

        synchronized Object lookup(final CacheKey key)
        {
            changeLog.beginCommand();
            final Object result = state.lookup(key);
            return commit(result);
        }

        synchronized Object begin(final CacheKey key, final String job)
        {
            changeLog.beginCommand();
            return commit(state.beginMaterialization(key, job));
        }

        synchronized Object complete(final CacheKey key, final String job, final List<PartitionLocation> locations)
        {
            changeLog.beginCommand();
            return commit(state.completeMaterialization(key, job, SCHEMA, locations));
        }

        synchronized Object invalidate(final CacheKey key)
        {
            changeLog.beginCommand();
            return commit(state.invalidate(key));
        }

        synchronized void close()
        {
            changeLog.close();
        }

        private Object commit(final Object result)
        {
            changeLog.endCommand();
            changeLog.force();
            changeLog.afterBatch(state);
            return result;
        }
    }
}
