package dev.offcache.core.agent;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import org.agrona.ErrorHandler;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.status.AtomicCounter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one error policy for offcache's agents (duty cycles run by an {@link AgentRunner}) and for the error handlers
 * handed to Aeron: every error is <b>counted</b> (the runner increments the component's Agrona counter, readable
 * from outside the process) and <b>logged</b> at WARN under the agent's role name, with the stack trace. A duty
 * cycle that fails on every pass must not flood the log, so after the first error at most one line per
 * {@link #LOG_INTERVAL_MS} is written, saying how many were not.
 */
public final class AgentErrors
{
    /** The least time between two logged errors of one handler. */
    public static final long LOG_INTERVAL_MS = 1_000;

    private AgentErrors()
    {
    }

    /**
     * A runner for an agent with the policy's error handler.
     *
     * @param idleStrategy  how the agent idles.
     * @param errorCounter  the component's error counter (the runner increments it per error); {@code null} only
     *                      for a component that has no counters, then errors are logged only.
     * @param agent         the agent; its {@link Agent#roleName()} names it in the log.
     * @return a runner, not started.
     */
    public static AgentRunner runner(
        final IdleStrategy idleStrategy, final AtomicCounter errorCounter, final Agent agent)
    {
        return new AgentRunner(idleStrategy, handler(errorCounter, agent.roleName()), null, agent);
    }

    /**
     * The policy's handler for a duty cycle run by something other than its own {@link AgentRunner} (an agent
     * hosted on another agent's thread): what {@link #runner} does with each error, counted and then logged.
     *
     * @param errorCounter the component's error counter, incremented per error until it is closed; {@code null}
     *                     for a component that has no counters, then errors are logged only.
     * @param component    what failed, as it appears in the log.
     * @return a thread-safe handler.
     */
    public static ErrorHandler handler(final AtomicCounter errorCounter, final String component)
    {
        final ErrorHandler log = logging(component);
        if (errorCounter == null)
        {
            return log;
        }
        return error ->
        {
            if (!errorCounter.isClosed())
            {
                errorCounter.increment();
            }
            log.onError(error);
        };
    }

    /**
     * The policy's handler for errors reported outside an {@link AgentRunner} (Aeron's contexts, which count into
     * their own error counters).
     *
     * @param component what failed, as it appears in the log.
     * @return a thread-safe, rate-limited logging handler.
     */
    public static ErrorHandler logging(final String component)
    {
        return new RateLimitedLog(component, System::nanoTime);
    }

    static final class RateLimitedLog implements ErrorHandler
    {
        private static final Logger LOG = LoggerFactory.getLogger(AgentErrors.class);

        private final String component;
        private final LongSupplier nanoClock;
        private final AtomicLong nextLogNs;
        private final AtomicLong suppressed = new AtomicLong();
        private final AtomicLong logged = new AtomicLong();

        RateLimitedLog(final String component, final LongSupplier nanoClock)
        {
            this.component = component;
            this.nanoClock = nanoClock;
            this.nextLogNs = new AtomicLong(nanoClock.getAsLong());
        }

        long logged()
        {
            return logged.get();
        }

        long suppressed()
        {
            return suppressed.get();
        }

        public void onError(final Throwable error)
        {
            final long now = nanoClock.getAsLong();
            final long next = nextLogNs.get();
            if (now - next >= 0 &&
                nextLogNs.compareAndSet(next, now + TimeUnit.MILLISECONDS.toNanos(LOG_INTERVAL_MS)))
            {
                logged.incrementAndGet();
                final long dropped = suppressed.getAndSet(0);
                if (dropped == 0)
                {
                    LOG.warn("{} failed", component, error);
                }
                else
                {
                    LOG.warn("{} failed ({} more errors not logged since the last line)", component, dropped, error);
                }
            }
            else
            {
                suppressed.incrementAndGet();
            }
        }
    }
}
