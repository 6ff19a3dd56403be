package dev.offcache.range.l2.shard;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * Rendezvous hashing against its definition over random server sets and keys: the owner is the argmax of the
 * weights (a sort-based reference), independent of list order; removing a server changes exactly the keys it
 * owned, each to the key's second-ranked server; adding a server changes only keys that the new server now owns.
 * And the health tracker against a reference model over random check outcomes.
 */
class RendezvousProperties
{
    @Provide
    Arbitrary<List<String>> serverIds()
    {
        return Arbitraries.strings().alpha().numeric().ofMinLength(1).ofMaxLength(20)
            .map((s) -> "http://" + s.toLowerCase(java.util.Locale.ROOT) + ":8080")
            .list().uniqueElements().ofMinSize(2).ofMaxSize(9);
    }

    @Provide
    Arbitrary<List<String>> keys()
    {
        return Arbitraries.strings().ofMinLength(1).ofMaxLength(60).list().ofMinSize(1).ofMaxSize(200);
    }

    @Property(tries = 300)
    void ownerIsTheHighestWeightWhateverTheOrder(
        @ForAll("serverIds") final List<String> ids, @ForAll("keys") final List<String> keys,
        @ForAll final long shuffle)
    {
        final List<String> shuffled = new ArrayList<>(ids);
        Collections.shuffle(shuffled, new Random(shuffle));
        final long[] seeds = seeds(ids);
        final long[] shuffledSeeds = seeds(shuffled);
        for (final String key : keys)
        {
            final long hash = RendezvousHash.hash(key);
            final List<String> ranked = ranking(ids, hash);
            assertEquals(ranked.get(0), ids.get(RendezvousHash.owner(seeds, hash)));
            assertEquals(ranked.get(0), shuffled.get(RendezvousHash.owner(shuffledSeeds, hash)));
        }
    }

    @Property(tries = 300)
    void removingAServerMovesExactlyItsKeysToTheirSecondChoice(
        @ForAll("serverIds") final List<String> ids, @ForAll("keys") final List<String> keys,
        @ForAll @IntRange(min = 0, max = 8) final int pick)
    {
        final String removed = ids.get(pick % ids.size());
        final List<String> rest = new ArrayList<>(ids);
        rest.remove(removed);
        final long[] seeds = seeds(ids);
        final long[] restSeeds = seeds(rest);
        for (final String key : keys)
        {
            final long hash = RendezvousHash.hash(key);
            final String before = ids.get(RendezvousHash.owner(seeds, hash));
            final String after = rest.get(RendezvousHash.owner(restSeeds, hash));
            if (before.equals(removed))
            {
                assertEquals(ranking(ids, hash).get(1), after, "moved to its second-ranked server");
            }
            else
            {
                assertEquals(before, after, "a key of a remaining server moved");
            }
        }
    }

    @Property(tries = 300)
    void addingAServerMovesOnlyKeysItNowOwns(
        @ForAll("serverIds") final List<String> ids, @ForAll("keys") final List<String> keys)
    {
        final String added = ids.get(ids.size() - 1);
        final List<String> before = ids.subList(0, ids.size() - 1);
        final long[] beforeSeeds = seeds(before);
        final long[] afterSeeds = seeds(ids);
        for (final String key : keys)
        {
            final long hash = RendezvousHash.hash(key);
            final String was = before.get(RendezvousHash.owner(beforeSeeds, hash));
            final String now = ids.get(RendezvousHash.owner(afterSeeds, hash));
            if (!was.equals(now))
            {
                assertEquals(added, now, "a key moved between old servers");
            }
        }
    }

    @Property(tries = 300)
    void healthTrackerMatchesTheModel(
        @ForAll @IntRange(min = 1, max = 5) final int unhealthyAfter,
        @ForAll("outcomes") final List<Boolean> outcomes)
    {
        final HealthTracker tracker = new HealthTracker(unhealthyAfter);
        int trailingFailures = 0;
        boolean modelHealthy = true;
        for (final boolean ok : outcomes)
        {
            final boolean wasHealthy = modelHealthy;
            trailingFailures = ok ? 0 : trailingFailures + 1;
            modelHealthy = trailingFailures < unhealthyAfter;
            final HealthTracker.Transition expected = wasHealthy == modelHealthy ? HealthTracker.Transition.NONE :
                modelHealthy ? HealthTracker.Transition.REJOINED : HealthTracker.Transition.MARKED_UNHEALTHY;
            assertEquals(expected, tracker.onResult(ok));
            assertEquals(modelHealthy, tracker.healthy());
            assertEquals(trailingFailures, tracker.consecutiveFailures());
        }
        assertEquals(true, tracker.tryBegin());
        assertNotEquals(true, tracker.tryBegin(), "one check at a time");
        tracker.end();
        assertEquals(true, tracker.tryBegin());
    }

    @Provide
    Arbitrary<List<Boolean>> outcomes()
    {
        return Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(2, Arbitraries.just(true)),
            net.jqwik.api.Tuple.of(3, Arbitraries.just(false))).list().ofMaxSize(60);
    }

    private static long[] seeds(final List<String> ids)
    {
        final long[] seeds = new long[ids.size()];
        for (int i = 0; i < seeds.length; i++)
        {
            seeds[i] = RendezvousHash.hash(ids.get(i));
        }
        return seeds;
    }

    /** The reference: servers sorted by weight, highest first (ties by seed, as the hash breaks them). */
    private static List<String> ranking(final List<String> ids, final long keyHash)
    {
        final List<String> ranked = new ArrayList<>(ids);
        ranked.sort((a, b) ->
        {
            final long wa = RendezvousHash.weight(RendezvousHash.hash(a), keyHash);
            final long wb = RendezvousHash.weight(RendezvousHash.hash(b), keyHash);
            return wa != wb ? Long.compare(wb, wa) : Long.compare(RendezvousHash.hash(b), RendezvousHash.hash(a));
        });
        return ranked;
    }
}
