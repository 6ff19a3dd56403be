package dev.offcache.range.ram;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

import dev.offcache.core.slab.BlockRef;
import dev.offcache.range.policy.PolicyKind;
import dev.offcache.range.store.FetchClass;
import net.jqwik.api.Arbitraries;
import org.agrona.concurrent.UnsafeBuffer;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The RAM block store against a simple model: random puts, acquires, copies and releases. The model knows which blocks
 * were ever put and which references the test holds; the store must return only bytes that were put (by reference
 * or by copy), never exceed its capacity, and lose no slot.
 */
class RamBlockStoreProperties
{
    private static final int BLOCK = 4096;

    enum Kind
    {
        PUT_DEMAND, PUT_PREFETCH, ACQUIRE_AND_RELEASE, ACQUIRE_AND_HOLD, COPY, RELEASE_HELD
    }

    record Op(Kind kind, long key, int heldIndex)
    {
    }

    @Provide
    Arbitrary<List<Op>> ops()
    {
        return Combinators.combine(
            Arbitraries.of(Kind.class),
            Arbitraries.longs().between(0, 40),
            Arbitraries.integers().between(0, 1000)).as(Op::new).list().ofMaxSize(300);
    }

    @Property(tries = 200)
    void storeBehavesLikeTheModel(
        @ForAll("ops") final List<Op> ops,
        @ForAll @IntRange(min = 1, max = 12) final int capacity,
        @ForAll final boolean lru)
    {
        final RamBlockStore store = new RamBlockStore(new RamBlockStore.Context()
            .blockSize(BLOCK)
            .capacityBytes((long) capacity * BLOCK)
            .policy(lru ? PolicyKind.LRU : PolicyKind.WINDOW_TINY_LFU));
        final Set<Long> everPut = new HashSet<>();
        final List<BlockRef> held = new ArrayList<>();
        final List<Long> heldKeys = new ArrayList<>();
        final UnsafeBuffer copy = new UnsafeBuffer(new byte[BLOCK]);
        try
        {
            for (final Op op : ops)
            {
                switch (op.kind())
                {
                    case PUT_DEMAND:
                    case PUT_PREFETCH:
                    {
                        final FetchClass fetchClass = op.kind() == Kind.PUT_DEMAND ?
                            FetchClass.DEMAND : FetchClass.PREFETCH;
                        final boolean kept = RamBlockStoreTest.put(store, op.key(), fetchClass);
                        if (kept)
                        {
                            everPut.add(op.key());
                        }
                        if (kept && fetchClass == FetchClass.DEMAND)
                        {
                            final BlockRef ref = store.acquire(op.key());
                            assertTrue(ref != null, "a block just put is resident");
                            ref.release();
                        }
                        break;
                    }
                    case ACQUIRE_AND_RELEASE:
                    case ACQUIRE_AND_HOLD:
                    {
                        final BlockRef ref = store.acquire(op.key());
                        if (ref != null)
                        {
                            assertTrue(everPut.contains(op.key()), "hit on a block never put: " + op.key());
                            assertEquals(-1, Blocks.firstMismatch(op.key(), ref.buffer(), ref.length(), BLOCK));
                            if (op.kind() == Kind.ACQUIRE_AND_HOLD)
                            {
                                held.add(ref);
                                heldKeys.add(op.key());
                            }
                            else
                            {
                                ref.release();
                            }
                        }
                        break;
                    }
                    case COPY:
                    {
                        final int offset = op.heldIndex() % BLOCK;
                        final int blockLength = store.read(op.key(), offset, copy, 0, BLOCK);
                        if (blockLength >= 0)
                        {
                            assertTrue(everPut.contains(op.key()), "copy of a block never put: " + op.key());
                            assertEquals(Blocks.lengthOf(op.key(), BLOCK), blockLength);
                            for (int i = 0; i < blockLength - offset; i++)
                            {
                                assertEquals(Blocks.byteAt(op.key(), offset + i), copy.getByte(i),
                                    "copy of block " + op.key() + " at " + (offset + i));
                            }
                        }
                        break;
                    }
                    default:
                    {
                        if (!held.isEmpty())
                        {
                            final int i = op.heldIndex() % held.size();
                            final BlockRef ref = held.remove(i);
                            final long key = heldKeys.remove(i);
                            assertEquals(-1, Blocks.firstMismatch(key, ref.buffer(), ref.length(), BLOCK),
                                "a held block never changes");
                            ref.release();
                        }
                        break;
                    }
                }
                final Set<BlockRef> distinctHeld = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
                distinctHeld.addAll(held);
                assertTrue(store.residentBlocks() <= capacity);
                assertTrue(store.sizeBytes() <= (long) capacity * BLOCK);
                assertTrue(store.liveSlots() <= capacity, "capacity: live slots " + store.liveSlots());
                assertTrue(store.liveSlots() >= store.residentBlocks());
                assertTrue(store.liveSlots() <= store.residentBlocks() + distinctHeld.size(), "no slot lost");
            }
            for (final BlockRef ref : held)
            {
                ref.release();
            }
            held.clear();
            assertEquals(store.residentBlocks(), store.liveSlots(), "no slot lost once readers released");
        }
        finally
        {
            for (final BlockRef ref : held)
            {
                ref.release();
            }
            store.close();
        }
        assertEquals(0, store.liveSlots(), "every slot returned at close");
    }
}
