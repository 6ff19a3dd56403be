package dev.offcache.transport.media;

import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

import org.agrona.concurrent.IdleStrategy;

/**
 * An idle strategy that keeps polling for a while after the agent last did work, then backs off: spin
 * {@code maxSpins} times, yield until {@code yieldWindowNs} have passed since the last work, then park for periods
 * doubling from {@code minParkNs} to {@code maxParkNs}.
 *
 * <p>Why: a transport agent waits for work nobody can signal (a datagram, a request in another process's
 * publication), so how soon it notices that work is how long it is not parked. A park is never short on Linux: the
 * default timer slack of 50 µs makes even {@code parkNanos(1000)} sleep about 55 µs, so once an agent parks, each hop
 * of a request/response exchange costs at least that. Work comes in bursts (a fetch is followed by its response, a
 * reader by its next fetch), so the agent yields, and stays responsive, for a short window after work; a window
 * measured in time rather than in a number of yields stays the same length however busy the machine is. After the
 * window, parks grow to {@code maxParkNs}, so an idle agent costs almost no CPU. A park is
 * {@link LockSupport#parkNanos}, so an {@link LockSupport#unpark} of the agent's thread (a submitter with work for
 * it) ends it at once. Not thread-safe: one per agent.
 */
public final class RecentWorkIdleStrategy implements IdleStrategy
{
    private final int maxSpins;
    private final long yieldWindowNs;
    private final long minParkNs;
    private final long maxParkNs;
    private final LongSupplier clock;
    private final LongConsumer parker;
    private long lastWorkNs;
    private int spins;
    private long parkNs;

    /**
     * Creates the strategy.
     *
     * @param maxSpins      busy spins after work, before yielding.
     * @param yieldWindowNs how long after work the agent keeps yielding rather than parking.
     * @param minParkNs     first park.
     * @param maxParkNs     longest park.
     */
    public RecentWorkIdleStrategy(
        final int maxSpins, final long yieldWindowNs, final long minParkNs, final long maxParkNs)
    {
        this(maxSpins, yieldWindowNs, minParkNs, maxParkNs, System::nanoTime, LockSupport::parkNanos);
    }

    RecentWorkIdleStrategy(
        final int maxSpins,
        final long yieldWindowNs,
        final long minParkNs,
        final long maxParkNs,
        final LongSupplier clock,
        final LongConsumer parker)
    {
        if (maxSpins < 0 || yieldWindowNs < 0 || minParkNs < 1 || maxParkNs < minParkNs)
        {
            throw new IllegalArgumentException("need spins >= 0, yield window >= 0 and 1 <= minPark <= maxPark: " +
                maxSpins + ", " + yieldWindowNs + ", " + minParkNs + ", " + maxParkNs);
        }
        this.maxSpins = maxSpins;
        this.yieldWindowNs = yieldWindowNs;
        this.minParkNs = minParkNs;
        this.maxParkNs = maxParkNs;
        this.clock = clock;
        this.parker = parker;
        this.lastWorkNs = clock.getAsLong();
        this.parkNs = minParkNs;
    }

    /**
     * {@inheritDoc}
     */
    public void idle(final int workCount)
    {
        if (workCount > 0)
        {
            reset();
        }
        else
        {
            idle();
        }
    }

    /**
     * {@inheritDoc}
     */
    public void idle()
    {
        if (spins < maxSpins)
        {
            spins++;
            Thread.onSpinWait();
        }
        else if (clock.getAsLong() - lastWorkNs < yieldWindowNs)
        {
            Thread.yield();
        }
        else
        {
            parker.accept(parkNs);
            parkNs = Math.min(parkNs << 1, maxParkNs);
        }
    }

    /**
     * {@inheritDoc}
     */
    public void reset()
    {
        lastWorkNs = clock.getAsLong();
        spins = 0;
        parkNs = minParkNs;
    }

    /**
     * {@inheritDoc}
     */
    public String alias()
    {
        return "recent-work";
    }

    /**
     * {@inheritDoc}
     */
    public String toString()
    {
        return "RecentWorkIdleStrategy{spins=" + maxSpins + ", yieldWindowNs=" + yieldWindowNs + ", minParkNs=" +
            minParkNs + ", maxParkNs=" + maxParkNs + '}';
    }
}
