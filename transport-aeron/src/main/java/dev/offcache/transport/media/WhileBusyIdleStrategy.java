package dev.offcache.transport.media;

import java.util.function.BooleanSupplier;

import org.agrona.concurrent.IdleStrategy;

/**
 * Yields instead of backing off while its agent says work is under way that nobody will signal (a response being
 * received), then hands idling back to the agent's own strategy, starting it afresh. Why: the payload client idles
 * between the fragments of one response, and a park there (never shorter than the 50 µs timer slack on Linux) is
 * added to the fetch; the agent bounds how long it reports itself busy, so a response that stops coming still ends
 * in the delegate's parks. Single-threaded, like any idle strategy.
 */
public final class WhileBusyIdleStrategy implements IdleStrategy
{
    private final IdleStrategy delegate;
    private final BooleanSupplier busy;

    /**
     * Wraps an idle strategy.
     *
     * @param delegate how to idle when not busy.
     * @param busy     asked on the agent's thread each time the duty cycle did no work.
     */
    public WhileBusyIdleStrategy(final IdleStrategy delegate, final BooleanSupplier busy)
    {
        this.delegate = delegate;
        this.busy = busy;
    }

    /**
     * {@inheritDoc}
     */
    public void idle(final int workCount)
    {
        if (workCount > 0)
        {
            delegate.idle(workCount);
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
        if (busy.getAsBoolean())
        {
            Thread.yield();
            delegate.reset();
        }
        else
        {
            delegate.idle();
        }
    }

    /**
     * {@inheritDoc}
     */
    public void reset()
    {
        delegate.reset();
    }

    /**
     * {@inheritDoc}
     */
    public String alias()
    {
        return "while-busy";
    }

    /**
     * {@inheritDoc}
     */
    public String toString()
    {
        return "WhileBusyIdleStrategy{" + delegate + '}';
    }
}
