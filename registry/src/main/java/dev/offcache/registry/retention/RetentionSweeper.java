package dev.offcache.registry.retention;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.EpochClock;

/**
 * Duty-cycle agent that asks the registry for an eviction sweep every interval. The sweep itself runs on the
 * registry thread (it is a command like any other), so this agent only decides when.
 */
public final class RetentionSweeper implements Agent
{
    private final Runnable requestSweep;
    private final EpochClock clock;
    private final long intervalMs;
    private long nextSweepMs;

    /**
     * An agent.
     *
     * @param requestSweep publishes one sweep command (does not wait for it).
     * @param clock        the clock that decides when the interval has passed.
     * @param intervalMs   time between sweeps; positive.
     */
    public RetentionSweeper(final Runnable requestSweep, final EpochClock clock, final long intervalMs)
    {
        if (intervalMs <= 0)
        {
            throw new IllegalArgumentException("sweep intervalMs must be positive: " + intervalMs);
        }
        this.requestSweep = requestSweep;
        this.clock = clock;
        this.intervalMs = intervalMs;
        this.nextSweepMs = clock.time() + intervalMs;
    }

    /**
     * Requests a sweep when the interval has passed.
     *
     * @return 1 when a sweep was requested, else 0 (so the idle strategy backs off).
     */
    public int doWork()
    {
        final long now = clock.time();
        if (now < nextSweepMs)
        {
            return 0;
        }
        nextSweepMs = now + intervalMs;
        requestSweep.run();
        return 1;
    }

    /**
     * The agent's name.
     *
     * @return {@code "offcache-registry-sweeper"}.
     */
    public String roleName()
    {
        return "offcache-registry-sweeper";
    }
}
