package dev.offcache.registry.persistent;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Random put/remove sequences against a {@link HashMap}, over keys whose hash codes collide often (equal codes go to
 * collision nodes, near ones share trie paths): after every step the trie holds exactly the model's pairs (get of
 * every key touched so far and of a never-put key on each one's hash, size, both views, iteration), and every
 * earlier version still holds what it held when it was made (persistence: nothing is shared mutably).
 */
class HashTrieProperties
{
    private static final int DOMAIN = 300;

    @Property(tries = 100)
    void behavesLikeAHashMapAndKeepsEveryVersion(@ForAll("operations") final List<Op> operations)
    {
        HashTrie<Key, Integer> trie = HashTrie.empty();
        final Map<Key, Integer> model = new HashMap<>();
        final List<HashTrie<Key, Integer>> versions = new ArrayList<>();
        final List<Map<Key, Integer>> snapshots = new ArrayList<>();
        final Set<Key> touched = new HashSet<>();
        for (final Op op : operations)
        {
            touched.add(op.key);
            final HashTrie<Key, Integer> before = trie;
            if (op.put)
            {
                final Integer previous = model.put(op.key, op.value);
                trie = trie.put(op.key, op.value);
                if (previous != null && previous.equals(op.value) && previous == op.value)
                {
                    assertSame(before, trie, "putting the same value changes nothing");
                }
            }
            else
            {
                final boolean present = model.remove(op.key) != null;
                trie = trie.remove(op.key);
                if (!present)
                {
                    assertSame(before, trie, "removing an absent key changes nothing");
                }
            }
            assertHolds(model, trie, touched);
            versions.add(trie);
            snapshots.add(new HashMap<>(model));
        }
        for (int i = 0; i < versions.size(); i++)
        {
            assertHolds(snapshots.get(i), versions.get(i), touched);
        }
    }

    @Property(tries = 5)
    void growsAndShrinksThroughEveryLevel(@ForAll("seeds") final long seed)
    {
        final java.util.Random random = new java.util.Random(seed);
        HashTrie<Key, Integer> trie = HashTrie.empty();
        final Map<Key, Integer> model = new HashMap<>();
        final List<Key> keys = new ArrayList<>();
        for (int i = 0; i < 5_000; i++)
        {
            final Key key = new Key(i, random.nextInt(3) == 0 ? random.nextInt(64) : random.nextInt());
            keys.add(key);
            model.put(key, i);
            trie = trie.put(key, i);
        }
        assertHolds(model, trie, model.keySet());
        java.util.Collections.shuffle(keys, random);
        for (final Key key : keys)
        {
            model.remove(key);
            trie = trie.remove(key);
        }
        assertEquals(0, trie.size());
        assertEquals(Map.of(), trie.asMap());
    }

    @Property(tries = 1)
    void refusesNulls()
    {
        assertThrows(NullPointerException.class, () -> HashTrie.<Key, Integer>empty().put(null, 1));
        assertThrows(NullPointerException.class, () -> HashTrie.<Key, Integer>empty().put(new Key(1, 1), null));
    }

    /**
     * Gets every key ever touched (present ones and removed ones, plus a neighbour of each on the same hash, which
     * was never put), then compares the views.
     */
    private static void assertHolds(
        final Map<Key, Integer> model, final HashTrie<Key, Integer> trie, final Set<Key> touched)
    {
        assertEquals(model.size(), trie.size());
        for (final Key key : touched)
        {
            assertEquals(model.get(key), trie.get(key), "get " + key);
            final Key neverPut = new Key(-1 - key.id, key.hash);
            assertNull(trie.get(neverPut), "get " + neverPut);
        }
        assertEquals(model, trie.asMap());
        assertEquals(model.keySet(), trie.keySet());
        assertEquals(new HashSet<>(model.keySet()), new HashSet<>(trie.keySet()), "iteration yields every key once");
        final Map<Key, Integer> visited = new HashMap<>();
        trie.forEach((key, value) -> assertNull(visited.put(key, value), "visited twice: " + key));
        assertEquals(model, visited);
    }

    @Provide
    Arbitrary<List<Op>> operations()
    {
        final Arbitrary<Key> keys = Combinators.combine(Arbitraries.integers().between(0, DOMAIN - 1),
            Arbitraries.of(0, 1, 2, 31, 32, 33, 1 << 20, -1)).as(Key::new);
        final Arbitrary<Op> ops = Combinators.combine(Arbitraries.integers().between(0, 9), keys,
            Arbitraries.integers().between(0, 3)).as((kind, key, value) -> new Op(kind < 6, key, value));
        return ops.list().ofMaxSize(200);
    }

    @Provide
    Arbitrary<Long> seeds()
    {
        return Arbitraries.longs();
    }

    /**
     * A key whose hash code is chosen, so collisions are common.
     */
    record Key(int id, int hash)
    {
        @Override
        public int hashCode()
        {
            return hash;
        }

        @Override
        public boolean equals(final Object other)
        {
            return other instanceof Key key && key.id == id && key.hash == hash;
        }
    }

    record Op(boolean put, Key key, Integer value)
    {
    }
}
