package dev.offcache.range.metrics;

import java.nio.MappedByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicReference;

import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A {@link CounterTable}'s lazily allocated counters under concurrent first use (each slot gets exactly one counter,
 * every update lands in it), and a {@link CountersRegion} sized by its owner, read from outside through the file.
 */
class CounterTableTest
{
    private static final int TYPE_ID = 4999;

    @TempDir
    Path tmp;

    private static String[] labels(final int slots)
    {
        final String[] labels = new String[slots];
        for (int i = 0; i < slots; i++)
        {
            labels[i] = MetricNames.labelled("t_total", "slot", Integer.toString(i));
        }
        return labels;
    }

    /**
     * Threads released together each update every slot in their own random order, so every slot's first use is
     * contended; repeated on fresh regions. Each slot ends with one counter whose value is every update, and the
     * region holds exactly one counter per used slot (no loser's counter left behind).
     */
    @Test
    void concurrentFirstUseAllocatesOneCounterPerSlotAndLosesNoUpdate() throws Exception
    {
        final int slots = 96;
        final int threads = 4;
        final int rounds = 40;
        final int updatesPerSlot = 50;
        for (int round = 0; round < rounds; round++)
        {
            try (CountersRegion region = CountersRegion.open(null, TYPE_ID, slots))
            {
                final CounterTable table = new CounterTable(region, labels(slots));
                final CyclicBarrier start = new CyclicBarrier(threads);
                final AtomicReference<Throwable> failure = new AtomicReference<>();
                final List<Thread> workers = new ArrayList<>();
                for (int t = 0; t < threads; t++)
                {
                    final Random random = new Random(round * 31L + t);
                    final Thread worker = new Thread(() ->
                    {
                        try
                        {
                            final int[] order = new int[slots];
                            for (int i = 0; i < slots; i++)
                            {
                                order[i] = i;
                            }
                            for (int i = slots - 1; i > 0; i--)
                            {
                                final int j = random.nextInt(i + 1);
                                final int swap = order[i];
                                order[i] = order[j];
                                order[j] = swap;
                            }
                            start.await();
                            for (int pass = 0; pass < updatesPerSlot; pass++)
                            {
                                for (final int slot : order)
                                {
                                    table.increment(slot);
                                }
                            }
                        }
                        catch (final Throwable ex)
                        {
                            failure.compareAndSet(null, ex);
                        }
                    });
                    worker.start();
                    workers.add(worker);
                }
                for (final Thread worker : workers)
                {
                    worker.join();
                }
                assertNull(failure.get(), () -> "a worker failed: " + failure.get());
                final Map<String, Long> values = region.snapshot();
                assertEquals(slots, values.size(), "one counter per slot: " + values.keySet());
                for (int slot = 0; slot < slots; slot++)
                {
                    assertTrue(table.used(slot));
                    assertEquals((long) threads * updatesPerSlot, table.value(slot), "slot " + slot);
                    assertEquals((long) threads * updatesPerSlot, values.get(labels(slots)[slot]));
                }
            }
        }
    }

    @Test
    void unusedSlotsHaveNoCounterAndReadZero()
    {
        try (CountersRegion region = CountersRegion.open(null, TYPE_ID, 4))
        {
            final CounterTable table = new CounterTable(region, labels(4));
            table.increment(2);
            table.increment(2);
            assertFalse(table.used(0));
            assertEquals(0, table.value(0));
            assertEquals(2, table.value(2));
            assertEquals(Map.of(labels(4)[2], 2L), region.snapshot());
        }
    }

    /**
     * A region with room for more than the default 64 counters: full at its capacity, its file read from outside
     * by {@link CountersFile#read} and by a bare Agrona {@link CountersReader} over the header's lengths, with the
     * type id on every counter; after close, the values it had are still read through the region.
     */
    @Test
    void aRegionSizedByItsOwnerIsReadableFromOutside()
    {
        final int capacity = 200;
        final Path file = tmp.resolve("counters.dat");
        final CountersRegion region = CountersRegion.open(file, TYPE_ID, capacity);
        final CounterTable table = new CounterTable(region, labels(capacity));
        for (int slot = 0; slot < capacity; slot++)
        {
            table.counter(slot).getAndAdd(slot);
        }
        assertEquals(capacity, region.capacity());
        assertThrows(IllegalStateException.class, () -> region.newCounter("one_too_many_total"));
        final Map<String, Long> read = CountersFile.read(file);
        assertEquals(capacity, read.size());
        assertEquals(199L, read.get(labels(capacity)[199]));

        final MappedByteBuffer mapping = IoUtil.mapExistingFile(file.toFile(), "test");
        try
        {
            final UnsafeBuffer whole = new UnsafeBuffer(mapping);
            assertEquals(CountersFile.MAGIC, whole.getInt(0));
            assertEquals(CountersFile.fileLength(capacity), whole.capacity());
            final CountersReader reader = new CountersReader(
                new UnsafeBuffer(whole, CountersFile.HEADER_LENGTH, whole.getInt(8)),
                new UnsafeBuffer(whole, CountersFile.HEADER_LENGTH + whole.getInt(8), whole.getInt(12)));
            final List<Long> values = new ArrayList<>();
            reader.forEach((id, typeId, key, label) ->
            {
                assertEquals(TYPE_ID, typeId, label);
                values.add(reader.getCounterValue(id));
            });
            assertEquals(capacity, values.size());
            assertEquals(150L, values.get(150));
        }
        finally
        {
            IoUtil.unmap(mapping);
        }
        region.close();
        assertEquals(77, table.value(77), "the final value after close, not freed memory");
        assertEquals(77L, CountersFile.read(file).get(labels(capacity)[77]), "the file stays for a last read");
    }

    @Test
    void capacityOutOfRangeIsRefused()
    {
        assertThrows(IllegalArgumentException.class, () -> CountersRegion.open(null, TYPE_ID, 0));
        assertThrows(IllegalArgumentException.class, () -> CountersRegion.open(null, TYPE_ID, Integer.MAX_VALUE));
    }
}
