package dev.offcache.core.agent;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.agrona.concurrent.IdleStrategy;

/**
 * An idle strategy for an agent whose every piece of work is announced by the thread that made it: the agent parks
 * until {@link #signal()} (or {@link #wakeForClose()}) wakes it, instead of waking on a timer to find nothing to do.
 * For agents that wait on a queue other threads offer to and on completions they are told of; not for agents that
 * poll something no one can signal (a socket, another process's log), which need a timed strategy.
 *
 * <p>No signal is lost: a signaller makes its work visible first (a queue offer), then counts the signal and
 * unparks the parked agent thread, if any. The agent, before it parks, publishes its thread and then checks whether a
 * signal arrived since its last duty cycle began; the two volatile steps on each side make at least one side see the
 * other, and an unpark that comes before the park leaves a permit that ends it at once. A signal costs an atomic
 * increment, plus an unpark only while the agent is parked, and never takes a lock. {@code maxParkNs} bounds each
 * park all the same (a safety net, not a poll). Thread-safety: {@link #idle} and {@link #reset} only on the agent's
 * thread; {@link #signal()} and {@link #wakeForClose()} from any thread.
 */
public final class SignalledIdleStrategy implements IdleStrategy
{
    private final long maxParkNs;
    private final AtomicLong signals = new AtomicLong();
    private volatile Thread parked;
    private volatile boolean closing;
    /** The signal count when the current duty cycle began (agent thread only). */
    private long seen;

    /**
     * Creates the strategy.
     *
     * @param maxParkNs the longest park without a signal; at least 1.
     */
    public SignalledIdleStrategy(final long maxParkNs)
    {
        if (maxParkNs < 1)
        {
            throw new IllegalArgumentException("maxParkNs must be >= 1: " + maxParkNs);
        }
        this.maxParkNs = maxParkNs;
    }

    /**
     * Tells the agent there is work (call after making the work visible). Any thread; never blocks.
     */
    public void signal()
    {
        signals.incrementAndGet();
        final Thread thread = parked;
        if (thread != null)
        {
            LockSupport.unpark(thread);
        }
    }

    /**
     * Stops parking for good, so that an agent runner's close does not wait out a park. Any thread.
     */
    public void wakeForClose()
    {
        closing = true;
        signal();
    }

    @Override
    public void idle(final int workCount)
    {
        if (workCount > 0)
        {
            seen = signals.get();
            return;
        }
        if (closing)
        {
            Thread.yield();
            return;
        }
        parked = Thread.currentThread();
        final long now = signals.get();
        if (now == seen)
        {
            LockSupport.parkNanos(this, maxParkNs);
        }
        parked = null;
        // every signal counted before this read is seen by the next duty cycle, which starts after it
        seen = signals.get();
    }

    @Override
    public void idle()
    {
        idle(0);
    }

    @Override
    public void reset()
    {
        seen = signals.get();
    }

    @Override
    public String alias()
    {
        return "signalled";
    }

    @Override
    public String toString()
    {
        return "SignalledIdleStrategy{maxParkNs=" + maxParkNs + '}';
    }
}
