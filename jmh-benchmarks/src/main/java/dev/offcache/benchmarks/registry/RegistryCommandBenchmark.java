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

import dev.offcache.registry.api.Acquisition;
import dev.offcache.registry.front.CacheRegistry;
import dev.offcache.registry.journal.ChangeLog;
import dev.offcache.registry.journal.JournalChangeLog;
import dev.offcache.registry.state.BeginOutcome;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.CacheStateMachine;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.registry.state.StageRef;

/**
 * Registry commands through the in-process front ({@code impl=offcache}: reads from the writer's published view,
 * writes through the Disruptor ring to the single writer, group commit per batch) beside the same state machine behind
 * a {@code synchronized} block ({@code impl=synchronized}: the caller reads, or applies, journals and forces, under
 * the lock). Both run the same contract, the same workload and the same backend ({@code backend=memory} or
 * {@code backend=journal}: every state change appended to the mapped journal and forced before the call returns).
 *
 * <ul>
 *   <li>{@code read1}, {@code read2}, {@code read4}: reads of a hot materialized key by 1, 2 and 4 threads, each
 *       invocation one of {@code read} = {@code lookup} (a hit, its future joined), {@code acquire} (a hit),
 *       {@code pinned} ({@code isPinned} of the hot key's stage) or {@code mix} (the three in turn).</li>
 *   <li>{@code write1}: one write round trip per invocation (claim, completion with 2 partitions, invalidation of
 *       the thread's own key, in turn), waited for.</li>
 *   <li>{@code mixed4}: 4 threads, 9 lookups of the hot key to 1 write (as {@code write1}).</li>
 *   <li>{@code burst16}: 16 writes published, then all 16 awaited (how group commit amortises the force); the
 *       synchronized baseline can only run them one after another.</li>
 * </ul>
 * {@code writer} = {@code auto} (default: the callers run the writer's step with the in-memory log, a registry
 * thread with the journal), {@code caller} or {@code thread}; {@code waitStrategy} is the registry thread's
 * ({@code blocking} or {@code yielding}).
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
    private static final String HOT_JOB = "hot-job";
    private static final StageRef HOT_STAGE = new StageRef(HOT_JOB, 1);

    @Param({"offcache", "synchronized"})
    public String impl;

    @Param({"memory"})
    public String backend;

    /**
     * Who runs the single writer (offcache only): {@code auto}, {@code caller} or {@code thread}.
     */
    @Param({"auto"})
    public String writer;

    /**
     * The registry thread's wait strategy (offcache with a registry thread only): {@code blocking} (no CPU when
     * idle) or {@code yielding} (spins and yields: lower latency, burns a core).
     */
    @Param({"blocking"})
    public String waitStrategy;

    /**
     * What a {@code read*} invocation reads: {@code lookup}, {@code acquire}, {@code pinned} or {@code mix}.
     */
    @Param({"mix"})
    public String read;

    private final AtomicInteger threadIds = new AtomicInteger();
    private Path directory;
    private CacheRegistry registry;
    private SynchronizedRegistry baseline;
    private int readKind;

    /**
     * Starts the implementation under test with one materialized hot key.
     *
     * @throws IOException if the journal directory cannot be created.
     */
    @Setup(Level.Trial)
    public void setUp() throws IOException
    {
        readKind = switch (read)
        {
            case "lookup" -> 0;
            case "acquire" -> 1;
            case "pinned" -> 2;
            case "mix" -> 3;
            default -> throw new IllegalArgumentException("read must be lookup, acquire, pinned or mix: " + read);
        };
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
            final CacheRegistry.Context ctx = new CacheRegistry.Context().changeLog(changeLog).waitStrategy(strategy);
            if (!"auto".equals(writer))
            {
                if (!"caller".equals(writer) && !"thread".equals(writer))
                {
                    throw new IllegalArgumentException("writer must be auto, caller or thread: " + writer);
                }
                ctx.writerThread("thread".equals(writer));
            }
            registry = CacheRegistry.launch(ctx);
            registry.beginMaterialization(HOT, HOT_JOB).join();
            registry.completeMaterialization(HOT, HOT_JOB, SCHEMA, locations(HOT_JOB)).join();
        }
        else if ("synchronized".equals(impl))
        {
            baseline = new SynchronizedRegistry(changeLog);
            baseline.begin(HOT, HOT_JOB);
            baseline.complete(HOT, HOT_JOB, locations(HOT_JOB));
        }
        else
        {
            throw new IllegalArgumentException("impl must be offcache or synchronized: " + impl);
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
        long reads;

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
     * One read, one thread.
     *
     * @param producer the thread's state.
     * @return what was read.
     */
    @Benchmark
    @Threads(1)
    public Object read1(final Producer producer)
    {
        return read(producer);
    }

    /**
     * One read, two threads.
     *
     * @param producer the thread's state.
     * @return what was read.
     */
    @Benchmark
    @Threads(2)
    public Object read2(final Producer producer)
    {
        return read(producer);
    }

    /**
     * One read, four threads.
     *
     * @param producer the thread's state.
     * @return what was read.
     */
    @Benchmark
    @Threads(4)
    public Object read4(final Producer producer)
    {
        return read(producer);
    }

    /**
     * One write round trip, one thread.
     *
     * @param producer the thread's state.
     * @return the outcome.
     */
    @Benchmark
    @Threads(1)
    public Object write1(final Producer producer)
    {
        return write(producer);
    }

    /**
     * Nine lookups to one write, four threads.
     *
     * @param producer the thread's state.
     * @return the outcome.
     */
    @Benchmark
    @Threads(4)
    public Object mixed4(final Producer producer)
    {
        if (producer.reads++ % 10 == 9)
        {
            return write(producer);
        }
        return baseline != null ? baseline.lookup(HOT) : registry.lookup(HOT).join();
    }

    /**
     * Sixteen writes in flight from one producer, then awaited.
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
                last = write(producer);
            }
            return last;
        }
        final CompletableFuture<?>[] inFlight = new CompletableFuture<?>[16];
        for (int i = 0; i < 16; i++)
        {
            inFlight[i] = publishWrite(producer);
        }
        Object last = null;
        for (final CompletableFuture<?> future : inFlight)
        {
            last = future.join();
        }
        return last;
    }

    private Object read(final Producer producer)
    {
        final int kind = readKind == 3 ? (int) (producer.reads++ % 3) : readKind;
        if (baseline != null)
        {
            return kind == 0 ? baseline.lookup(HOT) : kind == 1 ? baseline.acquire(HOT, producer.job) :
                baseline.isPinned(HOT_STAGE);
        }
        return kind == 0 ? registry.lookup(HOT).join() : kind == 1 ? registry.acquire(HOT, producer.job).join() :
            registry.isPinned(HOT_JOB, 1);
    }

    private Object write(final Producer producer)
    {
        if (baseline != null)
        {
            final long step = producer.step++ % 3;
            if (step == 0)
            {
                return baseline.begin(producer.key, producer.job);
            }
            if (step == 1)
            {
                return baseline.complete(producer.key, producer.job, producer.locations);
            }
            return baseline.invalidate(producer.key);
        }
        return publishWrite(producer).join();
    }

    private CompletableFuture<?> publishWrite(final Producer producer)
    {
        final long step = producer.step++ % 3;
        if (step == 0)
        {
            return registry.beginMaterialization(producer.key, producer.job);
        }
        if (step == 1)
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

        synchronized Object acquire(final CacheKey key, final String job)
        {
            changeLog.beginCommand();
            final BeginOutcome outcome = state.beginMaterialization(key, job);
            final Object result = outcome instanceof BeginOutcome.AlreadyMaterialized hit ?
                new Acquisition.Hit(hit.entry()) : outcome;
            return commit(result);
        }

        synchronized boolean isPinned(final StageRef stage)
        {
            return state.isPinned(stage);
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
