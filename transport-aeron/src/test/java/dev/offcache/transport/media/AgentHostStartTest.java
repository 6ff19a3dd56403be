package dev.offcache.transport.media;

import java.util.concurrent.atomic.AtomicInteger;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentInvoker;
import org.agrona.concurrent.NoOpIdleStrategy;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An agent added the moment its host is made runs: the host's constructor returns only once its thread has started
 * the composite, which refuses additions before that.
 */
class AgentHostStartTest
{
    @Test
    void anAgentAddedRightAfterTheHostIsMadeRuns()
    {
        for (int round = 0; round < 200; round++)
        {
            final AgentInvoker driver = new AgentInvoker(Throwable::printStackTrace, null, new CountingAgent("driver"));
            final CountingAgent added = new CountingAgent("added");
            final AgentHost host = new AgentHost(driver, NoOpIdleStrategy.INSTANCE);
            try
            {
                final AgentHost.Hosted hosted = host.add(added);
                final long deadline = System.nanoTime() + 10_000_000_000L;
                while (added.passes.get() == 0 && System.nanoTime() < deadline)
                {
                    Thread.yield();
                }
                assertTrue(added.passes.get() > 0, "round " + round + ": the added agent runs");
                hosted.close();
                assertTrue(hosted.isClosed(), "round " + round + ": closed on the host's thread");
            }
            finally
            {
                host.close();
                driver.close();
            }
            assertEquals(1, added.closes.get(), "round " + round + ": closed once");
        }
    }

    private static final class CountingAgent implements Agent
    {
        private final String name;
        final AtomicInteger passes = new AtomicInteger();
        final AtomicInteger closes = new AtomicInteger();

        CountingAgent(final String name)
        {
            this.name = name;
        }

        public int doWork()
        {
            passes.incrementAndGet();
            return 0;
        }

        public void onClose()
        {
            closes.incrementAndGet();
        }

        public String roleName()
        {
            return name;
        }
    }
}
