package dev.offcache.range.l2.shard;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The health state of one L2 server from its periodic {@code GET /health} results: healthy at first, unhealthy
 * after {@code unhealthyAfter} consecutive failures, healthy again after one success. One check per server is out
 * at a time ({@link #tryBegin()} / {@link #end()}), so results are applied in order by one thread at a time; the
 * read path only reads the volatile {@link #healthy()}.
 */
final class HealthTracker
{
    /** What a result changed. */
    enum Transition
    {
        /** Nothing. */
        NONE,
        /** The server became unhealthy. */
        MARKED_UNHEALTHY,
        /** The server became healthy again. */
        REJOINED
    }

    private final int unhealthyAfter;
    private final AtomicBoolean checking = new AtomicBoolean();
    private volatile boolean healthy = true;
    private int consecutiveFailures;

    HealthTracker(final int unhealthyAfter)
    {
        if (unhealthyAfter < 1)
        {
            throw new IllegalArgumentException("unhealthyAfter must be >= 1: " + unhealthyAfter);
        }
        this.unhealthyAfter = unhealthyAfter;
    }

    boolean tryBegin()
    {
        return checking.compareAndSet(false, true);
    }

    void end()
    {
        checking.set(false);
    }

    Transition onResult(final boolean ok)
    {
        if (ok)
        {
            consecutiveFailures = 0;
            if (!healthy)
            {
                healthy = true;
                return Transition.REJOINED;
            }
            return Transition.NONE;
        }
        if (consecutiveFailures < Integer.MAX_VALUE)
        {
            consecutiveFailures++;
        }
        if (healthy && consecutiveFailures >= unhealthyAfter)
        {
            healthy = false;
            return Transition.MARKED_UNHEALTHY;
        }
        return Transition.NONE;
    }

    boolean healthy()
    {
        return healthy;
    }

    int consecutiveFailures()
    {
        return consecutiveFailures;
    }
}
