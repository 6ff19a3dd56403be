package dev.offcache.registry.clustered;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.aeron.cluster.service.ClientSession;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import org.agrona.concurrent.CachedEpochClock;
import org.agrona.concurrent.UnsafeBuffer;

import dev.offcache.registry.codec.RecordReader;
import dev.offcache.registry.codec.RecordWriter;
import dev.offcache.registry.command.CommandType;
import dev.offcache.registry.front.CacheRegistry;
import dev.offcache.registry.model.Command;
import dev.offcache.registry.retention.RetentionPolicy;
import dev.offcache.registry.state.BeginOutcome;
import dev.offcache.registry.state.CacheEntry;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.PartitionLocation;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Both fronts answer the same command sequence alike, bad arguments included: each generated command goes to the
 * in-process {@link CacheRegistry} through its public call and, as the cluster client encodes it but without the
 * client's own checks, straight into a {@link RegistryClusteredService} (driven directly: a fake cluster and session
 * record its replies). A call the in-process front refuses ({@link IllegalArgumentException} from the call, or a
 * future failed by the state machine) must come back from the service as REFUSED with the same message; every other
 * answer must decode to the same outcome, and after the sequence both hold the same entries. The ids include empty
 * ones and the completions empty, foreign-job and duplicate location lists, so the shared argument checks are run on
 * both sides (the caller's thread in-process, the log's applier in the cluster).
 */
class BothFrontsProperties
{
    private static final CommandType[] TYPES = {
        CommandType.LOOKUP, CommandType.BEGIN, CommandType.COMPLETE, CommandType.ABORT, CommandType.INVALIDATE,
        CommandType.INVALIDATE_JOB, CommandType.INVALIDATE_EXECUTOR, CommandType.REMOVE_SESSION, CommandType.ACQUIRE,
        CommandType.AWAIT, CommandType.SWEEP, CommandType.ENTRIES};
    private static final CacheKey[] KEYS = {
        new CacheKey("s1", "c1"), new CacheKey("s1", "c2"), new CacheKey("s2", "c1")};
    private static final String[] JOBS = {"j1", "j2", ""};
    private static final String[] IDS = {"e1", "e2", "s1", "s2", ""};
    private static final long CLIENT = 9;

    record Step(CommandType type, int key, int job, int id, int locations)
    {
    }

    @Property(tries = 200, edgeCases = EdgeCasesMode.NONE)
    void bothFrontsAnswerEveryCommandAlike(@ForAll("steps") final List<Step> steps) throws Exception
    {
        final CachedEpochClock clock = new CachedEpochClock();
        final CacheRegistry registry = CacheRegistry.launch(new CacheRegistry.Context().clock(clock));
        final ServiceHarness cluster = new ServiceHarness();
        try
        {
            long time = 1_000;
            for (final Step step : steps)
            {
                time += 7;
                clock.update(time);
                final Object inProcess = inProcess(registry, step);
                final Object clustered = cluster.apply(step, time);
                assertEquals(inProcess, clustered, step + " in " + steps);
                Statistics.collect(step.type,
                    inProcess instanceof String text && text.startsWith("refused") ? "refused" : "answered");
            }
            clock.update(time + 1);
            assertEquals(new HashMap<>(registry.entries().get(5, TimeUnit.SECONDS)),
                cluster.apply(new Step(CommandType.ENTRIES, 0, 0, 0, 0), time + 1));
        }
        finally
        {
            registry.close();
        }
    }

    @Provide
    Arbitrary<List<Step>> steps()
    {
        return Combinators.combine(
            Arbitraries.of(TYPES),
            Arbitraries.integers().between(0, KEYS.length - 1),
            Arbitraries.integers().between(0, JOBS.length - 1),
            Arbitraries.integers().between(0, IDS.length - 1),
            Arbitraries.integers().between(0, 5))
            .as(Step::new).list().ofMinSize(1).ofMaxSize(40);
    }

    // ---- the in-process front ---------------------------------------------------------------------------------

    private static Object inProcess(final CacheRegistry registry, final Step step) throws Exception
    {
        final CacheKey key = KEYS[step.key];
        final String job = JOBS[step.job];
        final String id = IDS[step.id];
        final CompletableFuture<?> future;
        try
        {
            future = switch (step.type)
            {
                case LOOKUP -> registry.lookup(key);
                case BEGIN -> registry.beginMaterialization(key, job);
                case COMPLETE -> registry.completeMaterialization(key, job, schema(step), locations(step));
                case ABORT -> registry.abortMaterialization(key, job);
                case INVALIDATE -> registry.invalidate(key);
                case INVALIDATE_JOB -> registry.invalidate(key, job);
                case INVALIDATE_EXECUTOR -> registry.invalidateExecutor(id);
                case REMOVE_SESSION -> registry.removeSession(id);
                case ACQUIRE -> registry.acquire(key, job);
                case AWAIT -> registry.awaitMaterialization(key);
                case SWEEP -> registry.sweep();
                case ENTRIES -> registry.entries();
                default -> throw new IllegalStateException("not generated: " + step.type);
            };
        }
        catch (final IllegalArgumentException ex)
        {
            return "refused: " + ex.getMessage();
        }
        if (step.type == CommandType.AWAIT && !future.isDone())
        {
            return "waiting";
        }
        try
        {
            return normalise(future.get(5, TimeUnit.SECONDS));
        }
        catch (final ExecutionException ex)
        {
            return "refused: " + ex.getCause().getMessage();
        }
    }

    // ---- the clustered service ----------------------------------------------------------------------------------

    /**
     * A service with a fake cluster and session; sends each command as the client encodes it (without the client's
     * checks) and decodes the reply as the client does.
     */
    private static final class ServiceHarness
    {
        private final List<byte[]> sent = new ArrayList<>();
        private final ClientSession session = FakeCluster.session(7, sent);
        private final RegistryClusteredService service =
            new RegistryClusteredService(RetentionPolicy.none(), 60_000, 32 * 1024);
        private final RecordWriter writer = new RecordWriter(512);
        private final RecordReader reader = new RecordReader();
        private long sequence;

        ServiceHarness()
        {
            service.onStart(FakeCluster.cluster(session), null);
        }

        Object apply(final Step step, final long time)
        {
            final CommandType type = step.type;
            WireCodec.encode(writer, type, KEYS[step.key], JOBS[step.job], IDS[step.id], schema(step),
                type == CommandType.COMPLETE ? locations(step) : null, false);
            sequence++;
            writer.buffer().putLong(WireCodec.CLIENT_ID_OFFSET, CLIENT);
            writer.buffer().putLong(WireCodec.SEQUENCE_OFFSET, sequence);
            writer.buffer().putLong(WireCodec.FLOOR_OFFSET, sequence);
            sent.clear();
            service.onSessionMessage(session, time, writer.buffer(), 0, writer.position(), null);
            for (final byte[] message : sent)
            {
                final UnsafeBuffer buffer = new UnsafeBuffer(message);
                if (buffer.getByte(0) == WireCodec.REPLY && buffer.getLong(1) == sequence)
                {
                    assertEquals(1, buffer.getInt(1 + Long.BYTES + Integer.BYTES), "one chunk");
                    final int header = WireCodec.EGRESS_HEADER_LENGTH;
                    reader.wrap(buffer, header, message.length - header);
                    if (reader.getByte() == WireCodec.REFUSED)
                    {
                        return "refused: " + reader.getString();
                    }
                    final Object answer = WireCodec.decodeAnswer(type, reader);
                    if (type == CommandType.AWAIT && answer == null)
                    {
                        return "waiting";
                    }
                    if (answer instanceof RegistryClusterClient.Probe probe)
                    {
                        return new HashMap<>(probe.entries());
                    }
                    if (type == CommandType.ACQUIRE)
                    {
                        return acquisition((BeginOutcome) answer);
                    }
                    return normalise(answer);
                }
            }
            throw new AssertionError("no reply to " + step);
        }
    }

    // ---- arguments and outcomes ---------------------------------------------------------------------------------

    private static DatasetSchema schema(final Step step)
    {
        return new DatasetSchema("v" + step.locations);
    }

    /** 0-2 consistent outputs of the job; 3 none, 4 another job's, 5 one partition twice. */
    private static List<PartitionLocation> locations(final Step step)
    {
        final String job = JOBS[step.job].isEmpty() ? "j1" : JOBS[step.job];
        return switch (step.locations)
        {
            case 0, 1 -> List.of(new PartitionLocation("e1", job, 0, 0, "/w/" + job + "/0", 10 + step.locations));
            case 2 -> List.of(new PartitionLocation("e1", job, 1, 0, "/w/" + job + "/1/0", 5),
                new PartitionLocation("e2", job, 1, 1, "/w/" + job + "/1/1", 6));
            case 3 -> List.of();
            case 4 -> List.of(new PartitionLocation("e1", job + "-other", 0, 0, "/x", 1));
            default -> List.of(new PartitionLocation("e1", job, 0, 0, "/x", 1),
                new PartitionLocation("e2", job, 0, 0, "/y", 1));
        };
    }

    private static Object acquisition(final BeginOutcome outcome)
    {
        if (outcome instanceof BeginOutcome.AlreadyMaterialized materialized)
        {
            return "hit:" + materialized.entry();
        }
        if (outcome instanceof BeginOutcome.AlreadyPending pending)
        {
            return "wait:" + pending.jobId();
        }
        return "claimed";
    }

    private static Object normalise(final Object outcome)
    {
        if (outcome instanceof Map<?, ?> map)
        {
            return new HashMap<CacheKey, CacheEntry>(castEntries(map));
        }
        return Command.normalise(outcome);
    }

    @SuppressWarnings("unchecked")
    private static Map<CacheKey, CacheEntry> castEntries(final Map<?, ?> map)
    {
        return (Map<CacheKey, CacheEntry>) map;
    }
}
