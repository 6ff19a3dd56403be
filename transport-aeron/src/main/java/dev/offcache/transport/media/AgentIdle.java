package dev.offcache.transport.media;

import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.IdleStrategy;

/**
 * The idle strategy every transport agent (embedded media driver, payload server, payload client) gets by default, in
 * one place so that they are tuned together: a {@link RecentWorkIdleStrategy}. Each call returns a new instance: an
 * idle strategy keeps per-thread state and must not be shared between agents.
 */
public final class AgentIdle
{
    /** Busy spins after work. */
    public static final int MAX_SPINS = 10;
    /** How long after work an agent keeps yielding (polling) rather than parking. */
    public static final long YIELD_WINDOW_NS = TimeUnit.MICROSECONDS.toNanos(100);
    /** First park (on Linux it lasts at least the 50 µs timer slack). */
    public static final long MIN_PARK_NS = TimeUnit.MICROSECONDS.toNanos(1);
    /** Longest park: how late an agent idle for long may notice work that nobody signals. */
    public static final long MAX_PARK_NS = TimeUnit.MICROSECONDS.toNanos(1000);

    private AgentIdle()
    {
    }

    /**
     * A new idle strategy for one agent.
     *
     * @return a new idle strategy.
     */
    public static IdleStrategy standard()
    {
        return new RecentWorkIdleStrategy(MAX_SPINS, YIELD_WINDOW_NS, MIN_PARK_NS, MAX_PARK_NS);
    }
}
