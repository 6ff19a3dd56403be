package dev.offcache.server.http;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

import dev.offcache.range.engine.StreamCredit;

/**
 * The one global bound on response bytes in flight (read from the cache or origin but not yet written to a socket),
 * across every connection. A stream reserves a chunk's bytes before reading it and releases them when the socket
 * write completes; a stream that cannot reserve parks a wake-up here instead of spinning. Peak use is recorded, so
 * tests and {@code /metrics} can show the bound held. Thread-safe, lock-free.
 */
public final class MemoryBudget implements StreamCredit
{
    private final long limitBytes;
    private final long largestChunk;
    private final AtomicLong inFlight = new AtomicLong();
    private final AtomicLong peak = new AtomicLong();
    private final AtomicLong waits = new AtomicLong();
    private final ConcurrentLinkedQueue<Runnable> waiters = new ConcurrentLinkedQueue<>();

    /**
     * A budget.
     *
     * @param limitBytes   the most bytes in flight.
     * @param largestChunk the largest single reservation (a block); at most the limit.
     */
    public MemoryBudget(final long limitBytes, final long largestChunk)
    {
        if (largestChunk > limitBytes)
        {
            throw new IllegalArgumentException(
                "memory budget " + limitBytes + " is smaller than one block " + largestChunk);
        }
        this.limitBytes = limitBytes;
        this.largestChunk = largestChunk;
    }

    /**
     * Reserves bytes if they fit.
     *
     * @param bytes at most the largest chunk.
     * @return whether they were reserved.
     */
    @Override
    public boolean tryReserve(final long bytes)
    {
        while (true)
        {
            final long current = inFlight.get();
            final long next = current + bytes;
            if (next > limitBytes)
            {
                return false;
            }
            if (inFlight.compareAndSet(current, next))
            {
                long seen;
                while (next > (seen = peak.get()) && !peak.compareAndSet(seen, next))
                {
                    Thread.onSpinWait();
                }
                return true;
            }
        }
    }

    /**
     * Parks a wake-up to run once a chunk of any size fits again; it runs at most once and must re-try.
     *
     * @param wakeUp what to run, quickly (for example: schedule a retry on an event loop).
     */
    @Override
    public void await(final Runnable wakeUp)
    {
        waits.incrementAndGet();
        waiters.add(wakeUp);
        if (inFlight.get() <= limitBytes - largestChunk)
        {
            wakeAll();
        }
    }

    /**
     * Returns reserved bytes.
     *
     * @param bytes what was reserved.
     */
    @Override
    public void release(final long bytes)
    {
        final long now = inFlight.addAndGet(-bytes);
        if (now <= limitBytes - largestChunk && !waiters.isEmpty())
        {
            wakeAll();
        }
    }

    private void wakeAll()
    {
        Runnable waiter;
        while (null != (waiter = waiters.poll()))
        {
            waiter.run();
        }
    }

    /**
     * Bytes in flight now.
     *
     * @return bytes.
     */
    public long inFlightBytes()
    {
        return inFlight.get();
    }

    /**
     * The most bytes ever in flight at once.
     *
     * @return bytes.
     */
    public long peakBytes()
    {
        return peak.get();
    }

    /**
     * Times a reservation did not fit and a wake-up was parked.
     *
     * @return the count.
     */
    public long waits()
    {
        return waits.get();
    }

    /**
     * The limit.
     *
     * @return bytes.
     */
    public long limitBytes()
    {
        return limitBytes;
    }
}
