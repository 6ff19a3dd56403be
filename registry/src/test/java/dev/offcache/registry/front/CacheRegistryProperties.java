package dev.offcache.registry.front;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import net.jqwik.api.Arbitrary;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.agrona.concurrent.CachedEpochClock;

import dev.offcache.registry.model.Command;
import dev.offcache.registry.model.Commands;
import dev.offcache.registry.model.ReferenceModel;
import dev.offcache.registry.state.CacheEntry;
import dev.offcache.registry.state.CacheKey;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Three producer threads publish generated sequences concurrently through the registry. Each producer owns its own
 * sessions, jobs and executors, so its commands commute with the others' and the interleaving must not matter:
 * every future's outcome equals the producer's own reference model at that point, and the registry's final state
 * equals the union of the three models' final states (and its pin snapshot their pinned stages).
 */
class CacheRegistryProperties
{
    private static final int PRODUCERS = 3;

    @Property(tries = 150, edgeCases = EdgeCasesMode.NONE)
    void concurrentProducersEndInTheModelsState(
        @ForAll("producer0") final List<Command> p0,
        @ForAll("producer1") final List<Command> p1,
        @ForAll("producer2") final List<Command> p2) throws Exception
    {
        final List<List<Command>> sequences = List.of(p0, p1, p2);
        final Set<String> dead = ConcurrentHashMap.newKeySet();
        final CacheRegistry registry = CacheRegistry.launch(new CacheRegistry.Context()
            .ringSize(64)
            .clock(new CachedEpochClock())
            .liveExecutors(id -> !dead.contains(id)));
        try
        {
            final List<ReferenceModel> models = new ArrayList<>();
            final List<List<Object>> expected = new ArrayList<>();
            final List<List<CompletableFuture<?>>> actual = new ArrayList<>();
            final CountDownLatch start = new CountDownLatch(1);
            final List<Thread> threads = new ArrayList<>();
            final List<Throwable> errors = new ArrayList<>();
            for (int p = 0; p < PRODUCERS; p++)
            {
                final List<Command> sequence = sequences.get(p);
                final ReferenceModel model = new ReferenceModel();
                final List<Object> outcomes = new ArrayList<>();
                final List<CompletableFuture<?>> futures = new ArrayList<>();
                models.add(model);
                expected.add(outcomes);
                actual.add(futures);
                final Thread thread = new Thread(() ->
                {
                    try
                    {
                        start.await();
                        for (final Command command : sequence)
                        {
                            outcomes.add(Command.normalise(command.apply(model)));
                            if (command instanceof Command.SetExecutorLive live)
                            {
                                // The live view is outside the ring: let this producer's earlier commands finish.
                                CompletableFuture.allOf(futures.toArray(new CompletableFuture<?>[0]))
                                    .get(10, TimeUnit.SECONDS);
                                live.applyTo(dead);
                                futures.add(CompletableFuture.completedFuture(null));
                            }
                            else
                            {
                                futures.add(command.publish(registry));
                            }
                        }
                    }
                    catch (final Throwable ex)
                    {
                        synchronized (errors)
                        {
                            errors.add(ex);
                        }
                    }
                }, "producer-" + p);
                threads.add(thread);
                thread.start();
            }
            start.countDown();
            for (final Thread thread : threads)
            {
                thread.join(20_000);
                assertTrue(!thread.isAlive(), "producer did not finish");
            }
            assertEquals(List.of(), errors);

            final Map<CacheKey, CacheEntry> union = new HashMap<>();
            final Set<Object> unionPins = new HashSet<>();
            for (int p = 0; p < PRODUCERS; p++)
            {
                for (int i = 0; i < expected.get(p).size(); i++)
                {
                    assertEquals(expected.get(p).get(i),
                        Command.normalise(actual.get(p).get(i).get(10, TimeUnit.SECONDS)),
                        "producer " + p + " step " + i + " " + sequences.get(p).get(i));
                }
                union.putAll(models.get(p).map);
                unionPins.addAll(models.get(p).pinnedStages());
            }
            assertEquals(union, registry.entries().get(10, TimeUnit.SECONDS));
            assertEquals(unionPins, registry.pinnedStages());
        }
        finally
        {
            registry.close();
        }
    }

    /**
     * The same kind of sequence over shared keys, dealt round robin to three producers that publish without waiting:
     * the registry must behave exactly like the model applied in the order the writer linearized the commands, with
     * every read served from a view placed right after the last command that view holds, for every outcome and for
     * the final state.
     */
    @Property(tries = 150, edgeCases = EdgeCasesMode.NONE)
    void sharedKeysBehaveLikeTheModelInRingOrder(@ForAll("shared") final List<Command> sequence) throws Exception
    {
        final Map<CompletableFuture<?>, Long> applied = Collections.synchronizedMap(new IdentityHashMap<>());
        final ThreadLocal<long[]> viewRead = ThreadLocal.withInitial(() -> new long[1]);
        final CacheRegistry registry = CacheRegistry.launch(new CacheRegistry.Context()
            .ringSize(16)
            .clock(new CachedEpochClock())
            .applyObserver(applied::put)
            .readObserver(through -> viewRead.get()[0] = through));
        try
        {
            final List<Published> published = Collections.synchronizedList(new ArrayList<>());
            final List<Thread> threads = new ArrayList<>();
            final CountDownLatch start = new CountDownLatch(1);
            for (int p = 0; p < PRODUCERS; p++)
            {
                final List<Command> mine = new ArrayList<>();
                for (int i = p; i < sequence.size(); i += PRODUCERS)
                {
                    mine.add(sequence.get(i));
                }
                final Thread thread = new Thread(() ->
                {
                    try
                    {
                        start.await();
                        for (final Command command : mine)
                        {
                            viewRead.get()[0] = NOT_A_VIEW_READ;
                            final CompletableFuture<?> future = command.publish(registry);
                            published.add(new Published(command, future, viewRead.get()[0]));
                        }
                    }
                    catch (final InterruptedException ex)
                    {
                        Thread.currentThread().interrupt();
                    }
                });
                threads.add(thread);
                thread.start();
            }
            start.countDown();
            for (final Thread thread : threads)
            {
                thread.join(20_000);
                assertTrue(!thread.isAlive(), "producer did not finish");
            }
            final Map<CacheKey, CacheEntry> finalState = registry.entries().get(10, TimeUnit.SECONDS);

            // A command applied at ring sequence s sorts as (s, 0); a read from a view holding everything up to t
            // as (t, 1): after the last command it holds, before the next.
            final List<Published> order = new ArrayList<>(published);
            for (final Published one : order)
            {
                one.at = one.viewThrough == NOT_A_VIEW_READ ? applied.get(one.future) : one.viewThrough;
                assertTrue(one.at != null, "never applied: " + one.command);
            }
            order.sort(Comparator.comparingLong((Published one) -> one.at)
                .thenComparingInt(one -> one.viewThrough == NOT_A_VIEW_READ ? 0 : 1));
            final ReferenceModel model = new ReferenceModel();
            int checked = 0;
            for (final Published one : order)
            {
                assertEquals(Command.normalise(one.command.apply(model)),
                    Command.normalise(one.future.get(10, TimeUnit.SECONDS)),
                    "position " + checked + " " + one.command + (one.viewThrough == NOT_A_VIEW_READ ?
                    " (ring sequence " + one.at + ")" : " (read from the view through " + one.at + ")"));
                checked++;
            }
            assertEquals(sequence.size(), checked, "every published command was answered once");
            // The writer's order is one sequence whichever caller ran the step and whichever path (a command applied
            // at once with the ring empty, or through the ring) it took: no position twice, none skipped.
            final List<Long> positions = new ArrayList<>(applied.values());
            positions.sort(Comparator.naturalOrder());
            for (int i = 0; i < positions.size(); i++)
            {
                assertEquals(i, positions.get(i), "writer positions " + positions);
            }
            assertEquals(model.map, finalState);
            assertEquals(model.pinnedStages(), registry.pinnedStages());
        }
        finally
        {
            registry.close();
        }
    }

    private static final long NOT_A_VIEW_READ = Long.MIN_VALUE;

    /**
     * One published command, its future, and the view it was read from (or {@link #NOT_A_VIEW_READ}).
     */
    private static final class Published
    {
        final Command command;
        final CompletableFuture<?> future;
        final long viewThrough;
        Long at;

        Published(final Command command, final CompletableFuture<?> future, final long viewThrough)
        {
            this.command = command;
            this.future = future;
            this.viewThrough = viewThrough;
        }
    }

    @Provide
    Arbitrary<List<Command>> shared()
    {
        // Executor deaths act outside the ring and invalid completions never enter it: both need a fixed order.
        return Commands.sequences("", false).map(commands -> commands.stream()
            .filter(c -> !(c instanceof Command.SetExecutorLive) && !(c instanceof Command.BadComplete))
            .toList()).filter(commands -> !commands.isEmpty());
    }

    @Provide
    Arbitrary<List<Command>> producer0()
    {
        return Commands.sequences("p0-", false);
    }

    @Provide
    Arbitrary<List<Command>> producer1()
    {
        return Commands.sequences("p1-", false);
    }

    @Provide
    Arbitrary<List<Command>> producer2()
    {
        return Commands.sequences("p2-", false);
    }
}
