package dev.offcache.range.metrics;

import java.util.concurrent.atomic.AtomicReferenceArray;

import org.agrona.concurrent.status.AtomicCounter;

/**
 * A bounded table of counters in a {@link CountersRegion}, each allocated on its first update, so an outside
 * reader and a scrape see only the series that happened (an endpoint × status pair, an error code). The slots and
 * their labels are fixed at construction; the region must have room for every slot.
 *
 * <p>An update after the first is a volatile read of the slot and one atomic add: no lock, no allocation. The first
 * update of a slot claims it with a CAS; concurrent first updates of the same slot spin until the claimer has
 * allocated the counter (once per slot per region's life), so each slot gets exactly one counter. Memory: the
 * counters live in the region, which its owner frees; this object holds references only. Thread-safe.
 */
public final class CounterTable
{
    /** Marks a slot whose counter one thread is allocating. */
    private static final Object ALLOCATING = new Object();

    private final CountersRegion region;
    private final String[] labels;
    private final AtomicReferenceArray<Object> slots;

    /**
     * A table whose slot {@code i} becomes a counter named {@code labels[i]} on first use.
     *
     * @param region where the counters are allocated (it outlives every update of this table).
     * @param labels each slot's full counter label ({@link MetricNames#labelled}); copied.
     */
    public CounterTable(final CountersRegion region, final String... labels)
    {
        this.region = region;
        this.labels = labels.clone();
        this.slots = new AtomicReferenceArray<>(labels.length);
    }

    /**
     * Slots in the table.
     *
     * @return its size.
     */
    public int size()
    {
        return labels.length;
    }

    /**
     * Adds one to a slot's counter, allocating it on first use.
     *
     * @param slot the slot.
     */
    public void increment(final int slot)
    {
        counter(slot).increment();
    }

    /**
     * A slot's counter, allocated on first use.
     *
     * @param slot the slot.
     * @return its counter.
     */
    public AtomicCounter counter(final int slot)
    {
        final Object existing = slots.get(slot);
        return existing instanceof AtomicCounter counter ? counter : allocate(slot);
    }

    /**
     * Whether a slot has been used (its counter exists).
     *
     * @param slot the slot.
     * @return true after its first update.
     */
    public boolean used(final int slot)
    {
        return slots.get(slot) instanceof AtomicCounter;
    }

    /**
     * A slot's value, safe against the region's close ({@link CountersRegion#value}); 0 for an unused slot.
     *
     * @param slot the slot.
     * @return its value.
     */
    public long value(final int slot)
    {
        return slots.get(slot) instanceof AtomicCounter counter ? region.value(counter) : 0;
    }

    private AtomicCounter allocate(final int slot)
    {
        while (true)
        {
            final Object seen = slots.get(slot);
            if (seen instanceof AtomicCounter counter)
            {
                return counter;
            }
            if (null == seen && slots.compareAndSet(slot, null, ALLOCATING))
            {
                final AtomicCounter counter;
                try
                {
                    counter = region.newCounter(labels[slot]);
                }
                catch (final RuntimeException | Error ex)
                {
                    slots.set(slot, null);
                    throw ex;
                }
                slots.set(slot, counter);
                return counter;
            }
            Thread.onSpinWait();
        }
    }
}
