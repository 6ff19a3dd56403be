package dev.offcache.transport.media;

import java.util.concurrent.atomic.AtomicBoolean;

import dev.offcache.core.agent.AgentErrors;
import org.agrona.CloseHelper;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentInvoker;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.DynamicCompositeAgent;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.status.AtomicCounter;

/**
 * One thread that runs an embedded media driver launched in {@code ThreadingMode.INVOKER} and the agents handed to
 * it (payload servers), one duty cycle of each per pass. Why: on a small machine every busy thread of a fetch takes
 * turns on the cores with the others; a server answering on the driver's own thread is one thread and one hand-off
 * fewer. The price is that a slow duty cycle of one (a server's CRC pass on open) delays the others. Owned by
 * {@link AeronMedia}, which stops it before it closes the driver; an agent added is closed when its {@link Hosted}
 * is closed, or by the host's close if still there.
 */
public final class AgentHost implements AutoCloseable
{
    private final DynamicCompositeAgent agents;
    private final AgentRunner runner;

    AgentHost(final AgentInvoker driver, final IdleStrategy idleStrategy)
    {
        if (!driver.isStarted())
        {
            driver.start();
        }
        agents = new DynamicCompositeAgent("offcache-media", new InvokerAgent(driver));
        runner = AgentErrors.runner(idleStrategy, null, agents);
        AgentRunner.startOnThread(runner);
        // the composite refuses additions until its onStart has run on the new thread: an add right after this
        // constructor would otherwise fail with "add called when not active"
        while (agents.status() == DynamicCompositeAgent.Status.INIT && !runner.isClosed())
        {
            Thread.yield();
        }
    }

    /**
     * Run {@code agent} on this host's thread from its next pass on, with no counter of its own for errors (they
     * are logged); returns once it is running.
     *
     * @param agent the agent; its {@link Agent#onStart()} runs on the host's thread.
     * @return the hosted agent; its {@link Hosted#close()} takes it out again.
     * @throws IllegalStateException if the host is closed (the agent is then closed here).
     */
    public Hosted add(final Agent agent)
    {
        return add(agent, null);
    }

    /**
     * Run {@code agent} on this host's thread from its next pass on; returns once it is running. A failed duty cycle
     * of the agent is handled by the agents' one policy ({@link AgentErrors#handler}: counted in
     * {@code errorCounter}, logged under the agent's role name) and does not cut the host's pass short.
     *
     * @param agent        the agent; its {@link Agent#onStart()} runs on the host's thread.
     * @param errorCounter the agent's error counter, or {@code null} to log errors only.
     * @return the hosted agent; its {@link Hosted#close()} takes it out again.
     * @throws IllegalStateException if the host is closed (the agent is then closed here, once).
     */
    public Hosted add(final Agent agent, final AtomicCounter errorCounter)
    {
        final Hosted hosted = new Hosted(this, agent, AgentErrors.handler(errorCounter, agent.roleName()));
        try
        {
            // the composite throws once it is no longer active; say why in the host's own words first
            checkRunning();
            while (!agents.tryAdd(hosted))
            {
                checkRunning();
                Thread.yield();
            }
            while (!agents.hasAddAgentCompleted())
            {
                checkRunning();
                Thread.yield();
            }
        }
        catch (final RuntimeException ex)
        {
            // never ran here, or the host closed it with itself meanwhile: either way closed once
            hosted.onClose();
            throw ex;
        }
        return hosted;
    }

    private void remove(final Hosted hosted)
    {
        // once the host is stopping, the composite refuses removals and closes its agents itself
        if (!runner.isClosed() && agents.status() == DynamicCompositeAgent.Status.ACTIVE)
        {
            try
            {
                while (!agents.tryRemove(hosted))
                {
                    if (runner.isClosed())
                    {
                        return;
                    }
                    Thread.yield();
                }
            }
            catch (final IllegalStateException ex)
            {
                // the host stopped between the checks: it closes its agents itself
            }
        }
        // Either way the agent is closed on the host's thread, the composite marking itself closed (or signalling
        // the removal) before it gets there: wait for the close itself, so nothing the agent uses is freed under it.
        while (!hosted.closed && !runner.isClosed())
        {
            Thread.yield();
        }
    }

    /**
     * Returns true once the host's thread has stopped (the agents still there were closed on it).
     *
     * @return true once closed.
     */
    public boolean isClosed()
    {
        return runner.isClosed();
    }

    /**
     * Stops the thread; the agents still there are closed on it.
     */
    public void close()
    {
        CloseHelper.close(runner);
    }

    private void checkRunning()
    {
        if (runner.isClosed())
        {
            throw new IllegalStateException("the media's agent host is closed");
        }
    }

    /**
     * An agent running on the host: its errors go to the agents' policy instead of ending the host's pass, its
     * {@link Agent#onClose()} runs once (on the host's thread, or on the caller's when it never ran there).
     */
    public static final class Hosted implements Agent, AutoCloseable
    {
        private final AgentHost host;
        private final Agent agent;
        private final ErrorHandler errorHandler;
        private final AtomicBoolean closing = new AtomicBoolean();
        private volatile boolean closed;

        Hosted(final AgentHost host, final Agent agent, final ErrorHandler errorHandler)
        {
            this.host = host;
            this.agent = agent;
            this.errorHandler = errorHandler;
        }

        /**
         * {@inheritDoc}
         */
        public void onStart()
        {
            agent.onStart();
        }

        /**
         * {@inheritDoc}
         */
        public int doWork()
        {
            try
            {
                return agent.doWork();
            }
            catch (final Throwable ex)
            {
                errorHandler.onError(ex);
                return 0;
            }
        }

        /**
         * {@inheritDoc}
         */
        public void onClose()
        {
            if (!closing.compareAndSet(false, true))
            {
                return;
            }
            try
            {
                agent.onClose();
            }
            finally
            {
                closed = true;
            }
        }

        /**
         * {@inheritDoc}
         */
        public String roleName()
        {
            return agent.roleName();
        }

        /**
         * Returns true once the agent's {@link Agent#onClose()} has run.
         *
         * @return true once closed.
         */
        public boolean isClosed()
        {
            return closed;
        }

        /**
         * Takes the agent off the host; returns once its {@link Agent#onClose()} has run on the host's thread (or the
         * host closed it with itself).
         */
        public void close()
        {
            host.remove(this);
        }
    }

    private static final class InvokerAgent implements Agent
    {
        private final AgentInvoker invoker;

        InvokerAgent(final AgentInvoker invoker)
        {
            this.invoker = invoker;
        }

        public int doWork()
        {
            return invoker.invoke();
        }

        public String roleName()
        {
            return "media-driver";
        }
    }
}
