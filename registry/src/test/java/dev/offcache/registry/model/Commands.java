package dev.offcache.registry.model;

import java.util.ArrayList;
import java.util.List;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.PartitionLocation;

/**
 * Generators of registry command sequences over a deliberately tiny id space (2 sessions x 2 caches, 3 jobs,
 * 3 executors), so claims collide, completions arrive late, duplicated or from the wrong job, aborts come from
 * other jobs and executor losses hit live entries.
 */
public final class Commands
{
    private Commands()
    {
    }

    /**
     * Sequences of every command, including executor deaths and clock steps.
     *
     * @param ns prefix of every id, so sequences of different producers touch disjoint state.
     * @param withClock whether to include clock steps.
     * @return the arbitrary.
     */
    public static Arbitrary<List<Command>> sequences(final String ns, final boolean withClock)
    {
        return command(ns, withClock).list().ofMinSize(1).ofMaxSize(60);
    }

    static Arbitrary<Command> command(final String ns, final boolean withClock)
    {
        final Arbitrary<CacheKey> keys = Combinators.combine(
            Arbitraries.of(ns + "s1", ns + "s2"), Arbitraries.of("c1", "c2")).as(CacheKey::new);
        final Arbitrary<String> jobs = Arbitraries.of(ns + "j1", ns + "j2", ns + "j3");
        final Arbitrary<String> executors = Arbitraries.of(ns + "e1", ns + "e2", ns + "e3");
        final Arbitrary<String> sessions = Arbitraries.of(ns + "s1", ns + "s2", ns + "s3");

        final Arbitrary<Command> lookup = keys.map(Command.Lookup::new);
        final Arbitrary<Command> begin = Combinators.combine(keys, jobs).as(Command.Begin::new);
        final Arbitrary<Command> acquire = Combinators.combine(keys, jobs).as(Command.Acquire::new);
        final Arbitrary<Command> complete = Combinators.combine(keys, jobs, executors.list().ofMinSize(1).ofMaxSize(3),
            Arbitraries.integers().between(0, 1), Arbitraries.longs().between(0, 1000))
            .as((key, job, execs, stage, length) ->
                new Command.Complete(key, job, new DatasetSchema("schema-of-" + key.cacheId()),
                    locations(job, execs, stage, length)));
        final Arbitrary<Command> badComplete = Combinators.combine(keys, jobs, Arbitraries.integers().between(0, 2))
            .as((key, job, kind) -> new Command.BadComplete(key, job, badLocations(job, kind)));
        final Arbitrary<Command> abort = Combinators.combine(keys, jobs).as(Command.Abort::new);
        final Arbitrary<Command> invalidate = keys.map(Command.Invalidate::new);
        final Arbitrary<Command> invalidateJob = Combinators.combine(keys, jobs).as(Command.InvalidateJob::new);
        final Arbitrary<Command> invalidateExecutor = executors.map(Command.InvalidateExecutor::new);
        final Arbitrary<Command> removeSession = sessions.map(Command.RemoveSession::new);
        final Arbitrary<Command> executorLive = Combinators.combine(executors, Arbitraries.of(true, false))
            .as(Command.SetExecutorLive::new);
        final Arbitrary<Command> clock = Arbitraries.longs().between(1, 50).map(Command.AdvanceClock::new);

        return Arbitraries.frequencyOf(
            Tuple.of(3, lookup),
            Tuple.of(4, begin),
            Tuple.of(3, acquire),
            Tuple.of(6, complete),
            Tuple.of(1, badComplete),
            Tuple.of(3, abort),
            Tuple.of(2, invalidate),
            Tuple.of(2, invalidateJob),
            Tuple.of(1, invalidateExecutor),
            Tuple.of(1, removeSession),
            Tuple.of(1, executorLive),
            Tuple.of(withClock ? 2 : 0, clock));
    }

    static List<PartitionLocation> locations(
        final String job, final List<String> executors, final int stage, final long length)
    {
        final List<PartitionLocation> out = new ArrayList<>();
        for (int p = 0; p < executors.size(); p++)
        {
            // some locations without a CRC, as journaled before CRCs were recorded
            final long size = length + p;
            final long crc = size % 3 == 0 ? PartitionLocation.NO_CRC : size * 0x9E3779B1L & 0xFFFF_FFFFL;
            out.add(new PartitionLocation(executors.get(p), job, stage, p, "/work/" + job + "/" + stage + "/" + p,
                length + p, crc));
        }
        return out;
    }

    static List<PartitionLocation> badLocations(final String job, final int kind)
    {
        switch (kind)
        {
            case 0:
                return List.of();
            case 1:
                return List.of(new PartitionLocation("e1", job + "-other", 0, 0, "/x", 1));
            default:
                return List.of(
                    new PartitionLocation("e1", job, 0, 0, "/x", 1), new PartitionLocation("e2", job, 0, 0, "/y", 1));
        }
    }
}
