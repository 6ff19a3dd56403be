package dev.offcache.transport.media;

import dev.offcache.core.agent.AgentErrors;
import org.agrona.CloseHelper;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentInvoker;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.DynamicCompositeAgent;
import org.agrona.concurrent.IdleStrategy;

/**
 * One thread that runs an embedded media driver launched in {@code ThreadingMode.INVOKER} and the agents handed to
 * it (payload servers), one duty cycle of each per pass. Why: on a small machine every busy thread of a fetch takes
 * turns on the cores with the others; a server answering on the driver's own thread is one thread and one hand-off
 * fewer. The price is that a slow duty cycle of one (a server's CRC pass on open) delays the others. Owned by
 * {@link AeronMedia}, which stops it before it closes the driver; agents added are closed when removed, or by
 * the host's close if still there.
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
    }

    /**
     * Run {@code agent} on this host's thread from its next pass on; returns once it is running.
     *
     * @param agent the agent; its {@link Agent#onStart()} runs on the host's thread.
     * @throws IllegalStateException if the host is closed.
     */
    public void add(final Agent agent)
    {
        // the composite throws once it is no longer active; say why in the host's own words first
        checkRunning();
        while (!agents.tryAdd(agent))
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

    /**
     * Stop running {@code agent}; returns once the host has taken it out of its pass. Its {@link Agent#onClose()}
     * runs on the host's thread right after (the composite signals the removal before it closes the agent), so a
     * caller that must know it closed waits for its own sign of that, bounded by {@link #isClosed()}.
     *
     * @param agent an agent added before.
     */
    public void remove(final Agent agent)
    {
        // once the host has stopped, the composite refuses removals (it closed its agents itself)
        if (runner.isClosed() || agents.status() != DynamicCompositeAgent.Status.ACTIVE)
        {
            return;
        }
        while (!agents.tryRemove(agent))
        {
            if (runner.isClosed())
            {
                return;
            }
            Thread.yield();
        }
        while (!agents.hasRemoveAgentCompleted() && !runner.isClosed())
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
