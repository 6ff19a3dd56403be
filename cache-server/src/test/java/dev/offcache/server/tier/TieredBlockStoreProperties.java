package dev.offcache.server.tier;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import dev.offcache.core.slab.BlockRef;
import dev.offcache.range.store.FetchClass;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import org.agrona.concurrent.UnsafeBuffer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The tiered store against a reference model: RAM is an access-ordered LRU map of {@code RAM_BLOCKS} blocks (a
 * demand put does not refresh a resident block), demand fills and SSD-hit promotions enter RAM, RAM evictions are
 * spilled to SSD, prefetch fills enter SSD only. The SSD capacity is large enough that it never evicts, so tier
 * membership is deterministic once spills are written. After every operation both tiers hold exactly the model's
 * blocks, every read returns the right bytes or a miss exactly when the model has neither copy.
 */
class TieredBlockStoreProperties
{
    private static final int BLOCK = 4096;
    private static final int RAM_BLOCKS = 3;
    private static final int KEYS = 8;

    enum Op
    {
        DEMAND_PUT,
        PREFETCH_PUT,
        ACQUIRE
    }

    @Provide
    Arbitrary<List<Tuple.Tuple2<Op, Integer>>> operations()
    {
        return Arbitraries.of(Op.class).flatMap((op) -> Arbitraries.integers().between(0, KEYS - 1)
            .map((key) -> Tuple.of(op, key))).list().ofMinSize(1).ofMaxSize(60);
    }

    @Property(tries = 60)
    void storeBehavesLikeTheModel(@ForAll("operations") final List<Tuple.Tuple2<Op, Integer>> ops) throws Exception
    {
        final Path dir = Files.createTempDirectory("offcache-tier-prop");
        final TestNames names = new TestNames(1);
        final LinkedHashMap<Integer, Boolean> ram = new LinkedHashMap<>(16, 0.75f, true);
        final Set<Integer> ssd = new LinkedHashSet<>();
        final TieredBlockStore store = TieredBlockStore.open(new TieredBlockStore.Context()
            .blockSize(BLOCK)
            .ramCapacityBytes((long) RAM_BLOCKS * BLOCK)
            .ssdCapacityBytes(1L << 30)
            .spillQueueCapacity(KEYS)
            .ssdDir(dir)
            .names(names));
        try
        {
            for (final Tuple.Tuple2<Op, Integer> op : ops)
            {
                final int key = op.get2();
                final byte[] bytes = TieredBlockStoreTest.content("p", key, lengthOf(key));
                final long blockKey = names.blockKey("p", key);
                switch (op.get1())
                {
                    case DEMAND_PUT:
                        store.put(blockKey, new UnsafeBuffer(bytes), 0, bytes.length, FetchClass.DEMAND);
                        if (!ram.containsKey(key))
                        {
                            admit(ram, ssd, key);
                        }
                        break;
                    case PREFETCH_PUT:
                        store.put(blockKey, new UnsafeBuffer(bytes), 0, bytes.length, FetchClass.PREFETCH);
                        if (!ram.containsKey(key))
                        {
                            ssd.add(key);
                        }
                        break;
                    default:
                        final BlockRef ref = store.acquire(blockKey);
                        if (ram.containsKey(key))
                        {
                            ram.get(key);
                            assertBytes(bytes, ref);
                        }
                        else if (ssd.contains(key))
                        {
                            admit(ram, ssd, key);
                            assertBytes(bytes, ref);
                        }
                        else
                        {
                            assertNull(ref, "a block in neither tier is a miss");
                        }
                        break;
                }
                assertTrue(store.awaitSpillsWritten(5_000));
                for (int k = 0; k < KEYS; k++)
                {
                    final long bk = names.blockKey("p", k);
                    assertEquals(ram.containsKey(k), store.inRam(bk), "RAM membership of " + k + " after " + op);
                    assertEquals(ssd.contains(k), store.onSsd(bk), "SSD membership of " + k + " after " + op);
                }
            }
            store.close();
            assertEquals(0, store.liveSlots(), "no slot leaked");
        }
        finally
        {
            store.close();
            try (Stream<Path> paths = Files.walk(dir))
            {
                for (final Path path : paths.sorted(Comparator.reverseOrder()).toList())
                {
                    Files.deleteIfExists(path);
                }
            }
            catch (final IOException ignore)
            {
                // best effort
            }
        }
    }

    /** Model admission into RAM: evict least recently used first; an evicted block ends up on SSD. */
    private static void admit(final LinkedHashMap<Integer, Boolean> ram, final Set<Integer> ssd, final int key)
    {
        while (ram.size() >= RAM_BLOCKS)
        {
            final Map.Entry<Integer, Boolean> eldest = ram.entrySet().iterator().next();
            ram.remove(eldest.getKey());
            ssd.add(eldest.getKey());
        }
        ram.put(key, Boolean.TRUE);
    }

    private static int lengthOf(final int key)
    {
        return key % 3 == 2 ? 100 + key : BLOCK;
    }

    private static void assertBytes(final byte[] expected, final BlockRef ref)
    {
        assertTrue(null != ref, "a block the model holds is served");
        try
        {
            final byte[] got = new byte[ref.length()];
            ref.buffer().getBytes(0, got);
            assertArrayEquals(expected, got);
        }
        finally
        {
            ref.release();
        }
    }
}
