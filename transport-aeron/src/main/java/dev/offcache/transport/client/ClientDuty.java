package dev.offcache.transport.client;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import dev.offcache.transport.media.WhileBusyIdleStrategy;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;

/**
 * Who runs the payload client's duty cycle ({@link PayloadClientAgent}, single-threaded): the client's agent thread,
 * or a caller waiting in {@code join()} / {@code get()} for one of its fetches, one at a time, handed over by a
 * compare-and-set token. Why: a caller that would otherwise park until the agent thread completes its future
 * polls the response itself, so a fetch costs one hand-off and one busy thread fewer (no agent thread yielding
 * beside the caller on a small machine, no unpark of the caller). While a caller drives, the agent thread stands
 * by parked; it takes over when no caller waits (asynchronous use, continuations) and for whatever a leaving caller
 * left in flight. A caller drives only while a response is coming ({@link PayloadClientAgent#awaitingResponse()});
 * otherwise (not yet connected, a stalled server) it waits on its future and the agent thread's backoff serves.
 */
final class ClientDuty implements Agent
{
    private static final int FREE = 0;
    private static final int HELD = 1;
    private static final int CLOSED = 2;
    /** Attempts, yielding between them, to take the token from the agent thread's current cycle before parking. */
    private static final int TAKE_ATTEMPTS = 64;
    /** How long a caller that could not drive parks before trying again (its future's completion ends it). */
    private static final long WAIT_SLICE_NS = TimeUnit.MICROSECONDS.toNanos(200);
    /** The agent thread's park while a caller drives: a bound in case the caller's unpark is missed. */
    private static final long STAND_BY_PARK_NS = TimeUnit.MILLISECONDS.toNanos(1);

    private final PayloadClientAgent agent;
    private final ManyToOneConcurrentArrayQueue<Fetch> submissions;
    private final ErrorHandler errorHandler;
    private final AtomicInteger token = new AtomicInteger(FREE);
    private volatile boolean callerDriving;
    private volatile boolean closing;
    private volatile Thread agentThread;
    /** The thread holding the token, for telling a wait from inside the duty cycle; written only by that thread. */
    private Thread owner;
    private boolean agentThreadAwaiting;

    ClientDuty(
        final PayloadClientAgent agent,
        final ManyToOneConcurrentArrayQueue<Fetch> submissions,
        final ErrorHandler errorHandler)
    {
        this.agent = agent;
        this.submissions = submissions;
        this.errorHandler = errorHandler;
    }

    /**
     * The agent thread's idle strategy: yield while a response it polls is coming, park while a caller drives (the
     * caller unparks it when it leaves work behind), else the configured strategy.
     *
     * @param delegate the configured strategy.
     * @return the strategy for the agent's runner.
     */
    IdleStrategy agentThreadIdle(final IdleStrategy delegate)
    {
        return new WhileBusyIdleStrategy(new StandByIdle(delegate), () -> agentThreadAwaiting);
    }

    /**
     * Whether the agent thread needs waking for a fetch just queued: not while a caller drives (it takes the queue,
     * or unparks the agent thread when it stops).
     *
     * @return true when the submitter should unpark the agent thread.
     */
    boolean agentThreadNeeded()
    {
        return !callerDriving;
    }

    Thread agentThread()
    {
        return agentThread;
    }

    void closing()
    {
        closing = true;
    }

    public String roleName()
    {
        return agent.roleName();
    }

    public void onStart()
    {
        agentThread = Thread.currentThread();
    }

    public int doWork()
    {
        if (callerDriving || !token.compareAndSet(FREE, HELD))
        {
            agentThreadAwaiting = false;
            return 0;
        }
        owner = Thread.currentThread();
        try
        {
            final int work = agent.doWork();
            agentThreadAwaiting = agent.awaitingResponse();
            return work;
        }
        finally
        {
            owner = null;
            token.set(FREE);
        }
    }

    public void onClose()
    {
        // A driving caller sees closing and hands the token back within one duty cycle; then nobody drives again.
        while (!token.compareAndSet(FREE, CLOSED))
        {
            Thread.yield();
        }
        agent.onClose();
    }

    /**
     * Wait until {@code future} is done, running the duty cycle on this thread whenever nobody else does and a
     * response is coming.
     *
     * @param future        the fetch's future.
     * @param interruptible whether an interrupt ends the wait ({@code get}) or is only remembered ({@code join}).
     * @param timed         whether {@code deadline} applies.
     * @param deadline      {@code System.nanoTime()} to give up at, when {@code timed}.
     * @return true if the thread was interrupted while it waited (its interrupt status is then clear).
     * @throws IllegalStateException when called from within the duty cycle (a continuation of another fetch):
     *                               waiting there could never end.
     */
    boolean awaitDone(
        final FetchFuture future, final boolean interruptible, final boolean timed, final long deadline)
    {
        if (owner == Thread.currentThread())
        {
            throw new IllegalStateException("waiting for a fetch inside the payload client's duty cycle (in a " +
                "continuation or handler of another fetch) would never end: use the async variants");
        }
        boolean interrupted = false;
        int attempts = 0;
        while (!future.isDone() && !(interrupted && interruptible))
        {
            final long left = timed ? deadline - System.nanoTime() : WAIT_SLICE_NS;
            if (left <= 0)
            {
                break;
            }
            if (!closing && token.get() == FREE && token.compareAndSet(FREE, HELD))
            {
                attempts = 0;
                if (drive(future, timed, deadline))
                {
                    continue;
                }
                // Nothing is coming soon (not connected yet, a stalled server): the agent thread's backoff serves.
                interrupted |= future.parkUntilDone(Math.min(WAIT_SLICE_NS, left));
            }
            else if (++attempts < TAKE_ATTEMPTS)
            {
                Thread.yield(); // the agent thread holds the token for one cycle at a time
            }
            else
            {
                attempts = 0;
                interrupted |= future.parkUntilDone(Math.min(WAIT_SLICE_NS, left));
            }
        }
        return interrupted;
    }

    /**
     * Runs duty cycles while {@code future} is not done and a response is coming; the token is held on entry and
     * handed back on exit.
     *
     * @return false when it stopped because nothing was coming.
     */
    private boolean drive(final FetchFuture future, final boolean timed, final long deadline)
    {
        boolean coming = true;
        boolean leftWork;
        owner = Thread.currentThread();
        callerDriving = true;
        try
        {
            while (!future.isDone() && !closing && !(timed && System.nanoTime() - deadline >= 0))
            {
                int work = 0;
                try
                {
                    work = agent.doWork();
                }
                catch (final Throwable ex)
                {
                    errorHandler.onError(ex);
                }
                if (work == 0)
                {
                    if (!agent.awaitingResponse())
                    {
                        coming = false;
                        break;
                    }
                    Thread.yield();
                }
            }
        }
        finally
        {
            callerDriving = false; // before looking at the queue: a submitter that saw it true queued before this
            leftWork = agent.hasWork() || !submissions.isEmpty();
            owner = null;
            token.set(FREE);
        }
        final Thread thread = agentThread;
        if (leftWork && thread != null)
        {
            LockSupport.unpark(thread);
        }
        return coming;
    }

    private final class StandByIdle implements IdleStrategy
    {
        private final IdleStrategy delegate;

        StandByIdle(final IdleStrategy delegate)
        {
            this.delegate = delegate;
        }

        public void idle(final int workCount)
        {
            delegate.idle(workCount);
        }

        public void idle()
        {
            if (callerDriving)
            {
                LockSupport.parkNanos(STAND_BY_PARK_NS);
            }
            else
            {
                delegate.idle();
            }
        }

        public void reset()
        {
            delegate.reset();
        }

        public String alias()
        {
            return "stand-by";
        }
    }
}
