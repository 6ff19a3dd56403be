package dev.offcache.range.metrics;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import dev.offcache.core.region.MappedRegion;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.ConcurrentCountersManager;
import org.agrona.concurrent.status.CountersReader;

/**
 * Memory for named counters in the {@link CountersFile} layout: a new memory-mapped file that another process can
 * read while this one runs ({@link CountersFile#read}), or a private direct buffer, with room for as many counters
 * as its owner asks for ({@link CountersFile#DEFAULT_COUNTERS} unless it says). Counters come from an Agrona
 * {@link ConcurrentCountersManager}, one atomic add per update.
 *
 * <p>Memory: this object owns the mapping (or buffer), a {@link MappedRegion} (so leak tests count it with
 * {@link MappedRegion#liveMappings()}), and frees it in {@link #close()}; the file stays on disk for a last read.
 * Writers that may race with {@code close()} bracket their updates with {@link #enter()} and {@link #exit()}:
 * {@code close()} waits for every writer inside, and after it nobody enters, so no update ever touches unmapped
 * memory. Thread-safe.
 */
public final class CountersRegion implements AutoCloseable
{
    private final MappedRegion backing;
    private final ConcurrentCountersManager counters;
    private final int typeId;
    private final int capacity;
    private final AtomicInteger inside = new AtomicInteger();
    private volatile boolean closed;
    private volatile Map<String, Long> finalValues;
    /** The values at close by counter id, for {@link #value}; written before {@link #finalValues} is published. */
    private final long[] finalById;

    private CountersRegion(final MappedRegion backing, final int typeId, final int capacity)
    {
        this.backing = backing;
        this.typeId = typeId;
        this.capacity = capacity;
        this.finalById = new long[capacity];
        final UnsafeBuffer whole = backing.view(0, (int) backing.capacity());
        CountersFile.writeHeader(whole, capacity);
        counters = new ConcurrentCountersManager(CountersFile.metadata(whole), CountersFile.values(whole));
    }

    /**
     * Counters in a new file (replacing one that is there), or in memory.
     *
     * @param file   where to map the counters, or {@code null} to keep them in a private direct buffer.
     * @param typeId the Agrona type id of every counter in it, from {@link dev.offcache.core.counters.CounterTypes}.
     * @return the region.
     */
    public static CountersRegion open(final Path file, final int typeId)
    {
        return open(file, typeId, CountersFile.DEFAULT_COUNTERS);
    }

    /**
     * Counters in a new file (replacing one that is there), or in memory, with room for {@code capacity} of them.
     *
     * @param file     where to map the counters, or {@code null} to keep them in a private direct buffer.
     * @param typeId   the Agrona type id of every counter in it, from
     *                 {@link dev.offcache.core.counters.CounterTypes}.
     * @param capacity the most counters it holds (at least 1).
     * @return the region.
     */
    public static CountersRegion open(final Path file, final int typeId, final int capacity)
    {
        if (capacity < 1 || capacity > (Integer.MAX_VALUE - CountersFile.HEADER_LENGTH) /
            (CountersReader.METADATA_LENGTH + CountersReader.COUNTER_LENGTH))
        {
            throw new IllegalArgumentException("counters capacity out of range: " + capacity);
        }
        final int total = CountersFile.fileLength(capacity);
        if (file == null)
        {
            return new CountersRegion(MappedRegion.anonymous(total), typeId, capacity);
        }
        try
        {
            Files.deleteIfExists(file);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot replace the counters file " + file, ex);
        }
        return new CountersRegion(MappedRegion.mapNewFile(file, total), typeId, capacity);
    }

    /**
     * The most counters this region holds.
     *
     * @return its capacity.
     */
    public int capacity()
    {
        return capacity;
    }

    /**
     * A new counter (at most {@link #capacity()} per region). Allocation takes the manager's lock: allocate at
     * construction or on first use, never per update.
     *
     * @param label its name, with Prometheus labels if any.
     * @return the counter, valid until {@link #close()}.
     */
    public AtomicCounter newCounter(final String label)
    {
        return counters.newCounter(label, typeId);
    }

    /**
     * One counter's value, read safely against {@link #close()}: the live value while open, the value it had at
     * close after. For scrapes and getters, not for hot paths (it enters and exits).
     *
     * @param counter a counter of this region.
     * @return its value.
     */
    public long value(final AtomicCounter counter)
    {
        if (enter())
        {
            try
            {
                return counter.get();
            }
            finally
            {
                exit();
            }
        }
        while (finalValues == null)
        {
            Thread.onSpinWait();
        }
        return finalById[counter.id()];
    }

    /**
     * Starts an update that may race with {@link #close()}.
     *
     * @return whether the counters may be touched; when true, call {@link #exit()} afterwards.
     */
    public boolean enter()
    {
        inside.incrementAndGet();
        if (closed)
        {
            inside.decrementAndGet();
            return false;
        }
        return true;
    }

    /** Ends an update started with a successful {@link #enter()}. */
    public void exit()
    {
        inside.decrementAndGet();
    }

    /**
     * Every counter by label, in registration order; after {@link #close()}, the values it had then.
     *
     * @return a new map.
     */
    public Map<String, Long> snapshot()
    {
        if (!enter())
        {
            Map<String, Long> last;
            while ((last = finalValues) == null)
            {
                // close() is waiting for the last writers; it publishes the final values right after
                Thread.onSpinWait();
            }
            return new LinkedHashMap<>(last);
        }
        try
        {
            return readAll();
        }
        finally
        {
            exit();
        }
    }

    private Map<String, Long> readAll()
    {
        final Map<String, Long> values = new LinkedHashMap<>();
        counters.forEach((counterId, label) -> values.put(label, counters.getCounterValue(counterId)));
        return values;
    }

    /**
     * Refuses new writers, waits for those inside, keeps the final values, then unmaps (or frees) the memory.
     * Idempotent.
     */
    @Override
    public void close()
    {
        synchronized (this)
        {
            if (closed)
            {
                return;
            }
            closed = true;
        }
        while (inside.get() != 0)
        {
            Thread.onSpinWait();
        }
        counters.forEach((counterId, label) -> finalById[counterId] = counters.getCounterValue(counterId));
        finalValues = readAll();
        backing.close();
    }
}
