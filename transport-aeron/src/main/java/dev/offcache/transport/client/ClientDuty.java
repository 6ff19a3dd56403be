package dev.offcache.transport.client;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import dev.offcache.core.agent.AgentErrors;
import dev.offcache.core.agent.SignalledIdleStrategy;
import dev.offcache.transport.media.AgentIdle;
import dev.offcache.transport.media.WhileBusyIdleStrategy;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;

/**
 * Who runs the payload client's duty cycle ({@link PayloadClientAgent}, single-threaded): the client's agent thread,
 * or a caller, one at a time, handed over by a compare-and-set token. Why: a caller that would otherwise park until
 * the agent thread completes its future polls the response itself, so a waited-for fetch has no hand-off and no
 * second busy thread (no agent thread yielding beside the caller on a small machine, no unpark of the caller).
 *
 * <p>A caller's {@code fetch} sends its own FETCH when the token is free ({@link #submitted}), so it wakes nobody;
 * a caller waiting in {@code join()} / {@code get()} then drives the cycle while a response is coming
 * ({@link PayloadClientAgent#awaitingResponse()}). While a caller drives or waits to, and for one longest park after
 * a drive, the agent thread stays parked and leaves the cycle to callers ({@link SignalledIdleStrategy}, signalled
 * by a caller that leaves work behind, by a fetch its caller could not send, and by close). Otherwise the agent
 * thread serves: fetches nobody waits for, HELLO and reconnection, deadlines; a fetch sent when no caller drove in
 * the last millisecond, or one its caller could not send itself, wakes it at once, and otherwise it finds work within
 * its idle strategy's longest park at the latest.
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

    private final PayloadClientAgent agent;
    private final ManyToOneConcurrentArrayQueue<Fetch> submissions;
    private final ErrorHandler errorHandler;
    private final AtomicInteger token = new AtomicInteger(FREE);
    /** The agent thread's park while a caller drives; bounded like any idle agent's park. */
    private final SignalledIdleStrategy standBy = new SignalledIdleStrategy(AgentIdle.MAX_PARK_NS);
    private final AgentRunner runner;
    private volatile boolean callerDriving;
    /** When a caller last stopped driving: the agent thread stays on stand-by for a while after. */
    private volatile long callerDroveNs = System.nanoTime() - 2 * AgentIdle.MAX_PARK_NS;
    /** Callers in {@code awaitDone} that would drive: the agent thread leaves the cycle to them. */
    private final AtomicInteger takers = new AtomicInteger();
    private volatile boolean closing;
    /** The thread holding the token, for telling a wait from inside the duty cycle; written only by that thread. */
    private Thread owner;
    private boolean agentThreadAwaiting;
    /** Times the agent thread passed its duty cycle (each wake-up, spin or yield), for tests; its writes only. */
    private volatile long agentThreadPasses;

    ClientDuty(
        final PayloadClientAgent agent,
        final ManyToOneConcurrentArrayQueue<Fetch> submissions,
        final IdleStrategy idleStrategy)
    {
        this.agent = agent;
        this.submissions = submissions;
        // The client has no counters of its own (the server counts transport errors); a failed duty cycle is logged.
        this.errorHandler = AgentErrors.logging(agent.roleName());
        this.runner = AgentErrors.runner(new WhileBusyIdleStrategy(new StandByIdle(idleStrategy),
            () -> agentThreadAwaiting), null, this);
    }

    AgentRunner runner()
    {
        return runner;
    }

    long agentThreadPasses()
    {
        return agentThreadPasses;
    }

    /**
     * A fetch was queued by the calling thread: send it from here when nobody runs the cycle, else make sure
     * whoever does takes it promptly.
     *
     * @param fetch the fetch just queued.
     */
    void submitted(final Fetch fetch)
    {
        if (!closing && token.get() == FREE && token.compareAndSet(FREE, HELD))
        {
            owner = Thread.currentThread();
            try
            {
                agent.send();
            }
            catch (final Throwable ex)
            {
                errorHandler.onError(ex);
            }
            finally
            {
                owner = null;
                token.set(FREE);
            }
            if (fetch.sent || fetch.future.isDone())
            {
                // On its way. A caller that drove lately is in a loop of synchronous fetches and will poll this one
                // itself; otherwise nobody may ever wait on the future (continuations, allOf): the agent thread polls
                // the response at once rather than when its park ends.
                if (System.nanoTime() - callerDroveNs >= AgentIdle.MAX_PARK_NS)
                {
                    wakeAgentThread();
                }
                return;
            }
        }
        if (!callerDriving)
        {
            // not sent (not connected, back-pressured) or the agent thread holds the cycle: end its park now
            wakeAgentThread();
        }
    }

    void closing()
    {
        closing = true;
        standBy.wakeForClose();
        wakeAgentThread();
    }

    public String roleName()
    {
        return agent.roleName();
    }

    public int doWork()
    {
        agentThreadPasses++;
        if (callerDriving || takers.get() > 0 || !token.compareAndSet(FREE, HELD))
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
        takers.incrementAndGet();
        try
        {
            return await(future, interruptible, timed, deadline);
        }
        finally
        {
            takers.decrementAndGet();
        }
    }

    private boolean await(
        final FetchFuture future, final boolean interruptible, final boolean timed, final long deadline)
    {
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
                final boolean coming = drive(future, interruptible, timed, deadline);
                interrupted |= Thread.interrupted();
                if (coming || (interrupted && interruptible))
                {
                    continue;
                }
                // Nothing is coming soon (not connected yet, a stalled server): the agent thread's backoff serves.
                takers.decrementAndGet();
                try
                {
                    interrupted |= future.parkUntilDone(Math.min(WAIT_SLICE_NS, left));
                }
                finally
                {
                    takers.incrementAndGet();
                }
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
    private boolean drive(
        final FetchFuture future, final boolean interruptible, final boolean timed, final long deadline)
    {
        final Thread thread = Thread.currentThread();
        boolean coming = true;
        boolean leftWork;
        owner = thread;
        callerDriving = true;
        try
        {
            while (!future.isDone() && !closing && !(timed && System.nanoTime() - deadline >= 0) &&
                !(interruptible && thread.isInterrupted()))
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
            callerDroveNs = System.nanoTime();
            callerDriving = false; // before looking at the queue: a submitter that saw it true queued before this
            leftWork = agent.hasWork() || !submissions.isEmpty();
            owner = null;
            token.set(FREE);
        }
        if (leftWork)
        {
            wakeAgentThread();
        }
        return coming;
    }

    private void wakeAgentThread()
    {
        // parked in stand-by (a caller drove) or in the configured strategy's park (a plain parkNanos): end either
        standBy.signal();
        final Thread thread = runner.thread();
        if (thread != null)
        {
            LockSupport.unpark(thread);
        }
    }

    /**
     * The agent thread's idling when its cycle found nothing: the stand-by park while a caller drives, else the
     * configured strategy.
     */
    private final class StandByIdle implements IdleStrategy
    {
        private final IdleStrategy delegate;

        StandByIdle(final IdleStrategy delegate)
        {
            this.delegate = delegate;
        }

        public void idle(final int workCount)
        {
            if (workCount > 0)
            {
                standBy.idle(workCount);
                delegate.idle(workCount);
            }
            else
            {
                idle();
            }
        }

        public void idle()
        {
            // while a caller drives or waits to, and for one longest park after a drive (the gap to its next
            // fetch): work that needs the agent thread then signals it (a caller leaving work, a fetch not sent)
            if (callerDriving || takers.get() > 0 || System.nanoTime() - callerDroveNs < AgentIdle.MAX_PARK_NS)
            {
                standBy.idle();
            }
            else
            {
                delegate.idle();
            }
        }

        public void reset()
        {
            standBy.reset();
            delegate.reset();
        }

        public String alias()
        {
            return "stand-by";
        }
    }
}
