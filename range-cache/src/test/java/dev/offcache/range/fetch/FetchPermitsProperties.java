package dev.offcache.range.fetch;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

import dev.offcache.range.metrics.RangeMetrics;
import dev.offcache.range.store.FetchClass;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fetch permits against a simple reference model, over random sequences of submits (demand or prefetch),
 * promotions and releases: the same runs start in the same order, never more than the permits run, prefetch never
 * takes the reserved permits, and no run waits while its class could start.
 */
class FetchPermitsProperties
{
    /** An action: 0 submit demand, 1 submit prefetch, 2 promote the n-th live run, 3 release the n-th running run. */
    record Action(int kind, int pick)
    {
    }

    private static final class ModelRun
    {
        final FetchRun run;
        boolean demand;
        boolean queued;
        boolean running;
        boolean holdsPrefetch;

        ModelRun(final FetchRun run, final boolean demand)
        {
            this.run = run;
            this.demand = demand;
        }
    }

    @Property(tries = 300)
    void permitsMatchTheModel(
        @ForAll @IntRange(min = 1, max = 5) final int permits,
        @ForAll @IntRange(min = 0, max = 4) final int reservedWanted,
        @ForAll("actions") final List<Action> actions)
    {
        final int reserved = Math.min(reservedWanted, permits - 1);
        final int prefetchPermits = permits - reserved;
        final List<FetchRun> launched = new ArrayList<>();
        try (RangeMetrics metrics = new RangeMetrics())
        {
            final FetchPermits fetchPermits = new FetchPermits(permits, reserved, launched::add, metrics);

            final List<ModelRun> live = new ArrayList<>();
            final ArrayDeque<ModelRun> demandQueue = new ArrayDeque<>();
            final ArrayDeque<ModelRun> prefetchQueue = new ArrayDeque<>();
            final List<FetchRun> expectedLaunches = new ArrayList<>();
            final int[] running = new int[2];
            long promotions = 0;
            int nextKey = 0;

            for (final Action action : actions)
            {
                if (action.kind() <= 1)
                {
                    final boolean demand = action.kind() == 0;
                    final BlockFetch block = new BlockFetch(nextKey, nextKey, 10,
                        demand ? FetchClass.DEMAND : FetchClass.PREFETCH, true);
                    nextKey++;
                    final FetchRun run = new FetchRun("k", 16, new BlockFetch[]{block}, Long.MAX_VALUE);
                    final ModelRun model = new ModelRun(run, demand);
                    live.add(model);
                    if (canStart(demand, running, permits, prefetchPermits))
                    {
                        start(model, running, expectedLaunches);
                    }
                    else
                    {
                        model.queued = true;
                        (demand ? demandQueue : prefetchQueue).addLast(model);
                    }
                    fetchPermits.submit(run);
                }
                else if (action.kind() == 2 && !live.isEmpty())
                {
                    final ModelRun model = live.get(action.pick() % live.size());
                    if (!model.demand)
                    {
                        model.demand = true;
                        promotions++;
                        if (model.queued)
                        {
                            prefetchQueue.remove(model);
                            demandQueue.addLast(model);
                        }
                        else if (model.holdsPrefetch)
                        {
                            model.holdsPrefetch = false;
                            running[1]--;
                        }
                        drain(demandQueue, prefetchQueue, running, permits, prefetchPermits, expectedLaunches);
                    }
                    fetchPermits.promote(model.run.blocks[0]);
                }
                else if (action.kind() == 3)
                {
                    final List<ModelRun> runningRuns = live.stream().filter((m) -> m.running).toList();
                    if (runningRuns.isEmpty())
                    {
                        continue;
                    }
                    final ModelRun model = runningRuns.get(action.pick() % runningRuns.size());
                    model.running = false;
                    live.remove(model);
                    running[0]--;
                    if (model.holdsPrefetch)
                    {
                        model.holdsPrefetch = false;
                        running[1]--;
                    }
                    drain(demandQueue, prefetchQueue, running, permits, prefetchPermits, expectedLaunches);
                    fetchPermits.release(model.run);
                }

                assertEquals(expectedLaunches, launched, "same runs started in the same order");
                assertEquals(running[0], fetchPermits.running());
                assertEquals(demandQueue.size() + prefetchQueue.size(), fetchPermits.queued());
                assertTrue(running[0] <= permits);
                assertTrue(running[1] <= prefetchPermits, "prefetch never takes the reserve");
                assertTrue(demandQueue.isEmpty() || running[0] == permits, "demand never waits for nothing");
                assertTrue(prefetchQueue.isEmpty() || running[0] == permits || running[1] == prefetchPermits,
                    "prefetch waits only for a permit");
                for (final ModelRun model : live)
                {
                    assertEquals(model.demand ? FetchClass.DEMAND : FetchClass.PREFETCH,
                        fetchPermits.classOf(model.run));
                }
            }
            assertEquals(promotions, metrics.value("offcache_range_promotions_total"));
            assertTrue(fetchPermits.peakRunning() <= permits);
            final Set<FetchRun> unique = new HashSet<>(launched);
            assertEquals(launched.size(), unique.size(), "no run starts twice");
        }
    }

    @Provide
    Arbitrary<List<Action>> actions()
    {
        return Arbitraries.integers().between(0, 3).flatMap((kind) ->
            Arbitraries.integers().between(0, 50).map((pick) -> new Action(kind, pick)))
            .list().ofMinSize(1).ofMaxSize(60);
    }

    private static boolean canStart(
        final boolean demand, final int[] running, final int permits, final int prefetchPermits)
    {
        return running[0] < permits && (demand || running[1] < prefetchPermits);
    }

    private static void start(final ModelRun model, final int[] running, final List<FetchRun> launches)
    {
        model.queued = false;
        model.running = true;
        running[0]++;
        if (!model.demand)
        {
            model.holdsPrefetch = true;
            running[1]++;
        }
        launches.add(model.run);
    }

    private static void drain(
        final ArrayDeque<ModelRun> demandQueue,
        final ArrayDeque<ModelRun> prefetchQueue,
        final int[] running,
        final int permits,
        final int prefetchPermits,
        final List<FetchRun> launches)
    {
        while (!demandQueue.isEmpty() && canStart(true, running, permits, prefetchPermits))
        {
            start(demandQueue.pollFirst(), running, launches);
        }
        while (!prefetchQueue.isEmpty() && canStart(false, running, permits, prefetchPermits))
        {
            start(prefetchQueue.pollFirst(), running, launches);
        }
    }
}
