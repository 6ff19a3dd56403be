package dev.offcache.registry.metrics;

import dev.offcache.core.counters.CounterTypes;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;

/**
 * The registry's counters, allocated in an Agrona {@link CountersManager} under their metric names, so any process
 * that maps the same counters buffers (for example a {@code CountersReader} over a file-backed region) reads them
 * without asking the registry (type id {@link CounterTypes#REGISTRY}). Written only by the registry thread, once
 * per batch, with ordered stores; the sweeper's error counter only by the sweeper's runner.
 *
 * <p>The counters are owned by the manager's buffers; {@link #close()} frees their slots.
 */
public final class RegistryCounters implements AutoCloseable
{
    private final AtomicCounter commands;
    private final AtomicCounter batches;
    private final AtomicCounter entries;
    private final AtomicCounter materializedBytes;
    private final AtomicCounter pinnedStages;
    private final AtomicCounter waiters;
    private final AtomicCounter removedEntries;
    private final AtomicCounter sweeperErrors;

    /**
     * Allocates the counters.
     *
     * @param manager where to allocate them; the caller owns it and its buffers.
     */
    public RegistryCounters(final CountersManager manager)
    {
        commands = manager.newCounter("offcache_registry_commands_total", CounterTypes.REGISTRY);
        batches = manager.newCounter("offcache_registry_batches_total", CounterTypes.REGISTRY);
        entries = manager.newCounter("offcache_registry_entries", CounterTypes.REGISTRY);
        materializedBytes = manager.newCounter("offcache_registry_materialized_bytes", CounterTypes.REGISTRY);
        pinnedStages = manager.newCounter("offcache_registry_pinned_stages", CounterTypes.REGISTRY);
        waiters = manager.newCounter("offcache_registry_waiters", CounterTypes.REGISTRY);
        removedEntries = manager.newCounter("offcache_registry_removed_entries_total", CounterTypes.REGISTRY);
        sweeperErrors = manager.newCounter("offcache_registry_sweeper_errors_total", CounterTypes.REGISTRY);
    }

    /**
     * Publishes the state at the end of a batch (registry thread only).
     *
     * @param commandsTotal       commands applied since start.
     * @param batchesTotal        batches ended since start.
     * @param entryCount          entries now.
     * @param bytes               materialized bytes now.
     * @param pinned              pinned stages now.
     * @param waiterCount         waiters now.
     * @param removedEntriesTotal entries removed since start.
     */
    public void update(
        final long commandsTotal,
        final long batchesTotal,
        final long entryCount,
        final long bytes,
        final long pinned,
        final long waiterCount,
        final long removedEntriesTotal)
    {
        commands.setOrdered(commandsTotal);
        batches.setOrdered(batchesTotal);
        entries.setOrdered(entryCount);
        materializedBytes.setOrdered(bytes);
        pinnedStages.setOrdered(pinned);
        waiters.setOrdered(waiterCount);
        removedEntries.setOrdered(removedEntriesTotal);
    }

    /**
     * Commands applied since start.
     *
     * @return the count.
     */
    public long commands()
    {
        return commands.get();
    }

    /**
     * Batches ended since start (commands / batches is the average batch size).
     *
     * @return the count.
     */
    public long batches()
    {
        return batches.get();
    }

    /**
     * Entries now.
     *
     * @return the count.
     */
    public long entries()
    {
        return entries.get();
    }

    /**
     * Materialized bytes now.
     *
     * @return the byte count.
     */
    public long materializedBytes()
    {
        return materializedBytes.get();
    }

    /**
     * Pinned stages now.
     *
     * @return the count.
     */
    public long pinnedStages()
    {
        return pinnedStages.get();
    }

    /**
     * Waiters on pending keys now.
     *
     * @return the count.
     */
    public long waiters()
    {
        return waiters.get();
    }

    /**
     * Entries removed since start (every path).
     *
     * @return the count.
     */
    public long removedEntries()
    {
        return removedEntries.get();
    }

    /**
     * The eviction sweeper's error counter, for its agent runner (closed before this, so no increment races the
     * release of the slot).
     *
     * @return the Agrona counter.
     */
    public AtomicCounter sweeperErrors()
    {
        return sweeperErrors;
    }

    /**
     * Frees the counters' slots.
     */
    public void close()
    {
        sweeperErrors.close();
        commands.close();
        batches.close();
        entries.close();
        materializedBytes.close();
        pinnedStages.close();
        waiters.close();
        removedEntries.close();
    }
}
