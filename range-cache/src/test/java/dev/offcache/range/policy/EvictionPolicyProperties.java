package dev.offcache.range.policy;

import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Set;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The policies' bookkeeping against reference models under random operations: the resident set of W-TinyLFU against
 * a plain set (whatever it evicts must have been resident, and nothing else disappears), and LRU's exact eviction
 * order against an access-ordered {@link LinkedHashMap}.
 */
class EvictionPolicyProperties
{
    enum Kind
    {
        ACCESS, ACCESS_LOW_PRIORITY_INSERT, REMOVE, EVICT
    }

    record Op(Kind kind, long key)
    {
    }

    @Provide
    Arbitrary<List<Op>> ops()
    {
        return Combinators.combine(
            Arbitraries.frequency(
                Tuple.of(6, Kind.ACCESS),
                Tuple.of(1, Kind.ACCESS_LOW_PRIORITY_INSERT),
                Tuple.of(1, Kind.REMOVE),
                Tuple.of(1, Kind.EVICT)),
            Arbitraries.longs().between(0, 60)).as(Op::new).list().ofMaxSize(400);
    }

    @Property(tries = 300)
    void windowTinyLfuResidentSetMatchesTheModel(
        @ForAll("ops") final List<Op> ops, @ForAll @IntRange(min = 1, max = 20) final int capacity)
    {
        final WindowTinyLfuPolicy policy = new WindowTinyLfuPolicy(capacity);
        final Set<Long> model = new HashSet<>();
        for (final Op op : ops)
        {
            switch (op.kind())
            {
                case REMOVE:
                    assertEquals(model.remove(op.key()), policy.remove(op.key()));
                    break;
                case EVICT:
                {
                    final long evicted = policy.evict();
                    if (model.isEmpty())
                    {
                        assertEquals(EvictionPolicy.NO_KEY, evicted);
                    }
                    else
                    {
                        assertTrue(model.remove(evicted), "evicted a key that was not resident: " + evicted);
                    }
                    break;
                }
                default:
                {
                    policy.recordAccess(op.key());
                    if (!model.contains(op.key()))
                    {
                        if (model.size() == capacity)
                        {
                            final boolean admitted = op.kind() != Kind.ACCESS_LOW_PRIORITY_INSERT ||
                                policy.admits(op.key());
                            if (!admitted)
                            {
                                break;
                            }
                            assertTrue(model.remove(policy.evict()));
                        }
                        policy.add(op.key(), op.kind() == Kind.ACCESS_LOW_PRIORITY_INSERT);
                        model.add(op.key());
                    }
                    break;
                }
            }
            assertEquals(model.size(), policy.size());
            for (long key = 0; key <= 60; key++)
            {
                assertEquals(model.contains(key), policy.contains(key), "key " + key);
            }
            assertTrue(policy.size() <= capacity);
        }
    }

    @Property(tries = 300)
    void lruEvictsExactlyLikeAnAccessOrderedMap(
        @ForAll("ops") final List<Op> ops, @ForAll @IntRange(min = 1, max = 20) final int capacity)
    {
        final LruPolicy policy = new LruPolicy(capacity);
        final LinkedHashMap<Long, Boolean> model = new LinkedHashMap<>(16, 0.75f, true);
        for (final Op op : ops)
        {
            switch (op.kind())
            {
                case REMOVE:
                    assertEquals(model.remove(op.key()) != null, policy.remove(op.key()));
                    break;
                case EVICT:
                {
                    final long evicted = policy.evict();
                    if (model.isEmpty())
                    {
                        assertEquals(EvictionPolicy.NO_KEY, evicted);
                    }
                    else
                    {
                        final Iterator<Long> eldest = model.keySet().iterator();
                        assertEquals(eldest.next(), evicted);
                        eldest.remove();
                    }
                    break;
                }
                default:
                {
                    policy.recordAccess(op.key());
                    if (model.get(op.key()) == null)
                    {
                        if (model.size() == capacity)
                        {
                            final Iterator<Long> eldest = model.keySet().iterator();
                            assertEquals(eldest.next(), policy.evict());
                            eldest.remove();
                        }
                        // The model has no "insert at the LRU end": low-priority inserts are plain inserts here.
                        policy.add(op.key(), false);
                        model.put(op.key(), Boolean.TRUE);
                    }
                    break;
                }
            }
            assertEquals(model.size(), policy.size());
        }
    }
}
