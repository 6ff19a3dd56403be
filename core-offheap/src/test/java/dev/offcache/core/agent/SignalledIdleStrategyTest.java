package dev.offcache.core.agent;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link SignalledIdleStrategy} under a real {@link AgentRunner}: an agent with nothing to do runs (next to) no duty
 * cycles, and no signal is lost: with parks bounded only by an hour, every offer is consumed promptly, including
 * offers racing the agent's way into a park.
 */
class SignalledIdleStrategyTest
{
    private static final long HOUR_NS = TimeUnit.HOURS.toNanos(1);

    /** Drains a queue; counts its duty cycles and the items it took. */
    private static final class QueueAgent implements Agent
    {
        final ConcurrentLinkedQueue<Long> queue = new ConcurrentLinkedQueue<>();
        final AtomicLong cycles = new AtomicLong();
        final AtomicLong consumed = new AtomicLong();

        @Override
        public int doWork()
        {
            cycles.incrementAndGet();
            int n = 0;
            while (queue.poll() != null)
            {
                n++;
            }
            consumed.addAndGet(n);
            return n;
        }

        @Override
        public String roleName()
        {
            return "signalled-test";
        }
    }

    private static void awaitConsumed(final QueueAgent agent, final long count)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (agent.consumed.get() < count)
        {
            assertTrue(System.nanoTime() < deadline,
                "an offered item was not consumed within 30 s (a lost wake-up): " + agent.consumed + " of " + count);
            Thread.yield();
        }
    }

    @Test
    void anIdleAgentParksAndAnOfferIsServedPromptly() throws InterruptedException
    {
        final QueueAgent agent = new QueueAgent();
        final SignalledIdleStrategy idle = new SignalledIdleStrategy(HOUR_NS);
        final AgentRunner runner = AgentErrors.runner(idle, null, agent);
        final Thread thread = AgentRunner.startOnThread(runner);
        try
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (thread.getState() != Thread.State.TIMED_WAITING)
            {
                assertTrue(System.nanoTime() < deadline, "the agent never parked");
                Thread.sleep(1);
            }
            final long before = agent.cycles.get();
            // the window over which an idle agent must not run: with a 1 ms backoff it would run ~1000 times
            Thread.sleep(1000);
            assertTrue(agent.cycles.get() - before <= 1,
                "an agent with nothing to do ran " + (agent.cycles.get() - before) + " duty cycles in a second");

            agent.queue.offer(1L);
            idle.signal();
            awaitConsumed(agent, 1);
        }
        finally
        {
            idle.wakeForClose();
            runner.close();
        }
        assertTrue(runner.isClosed());
    }

    @Test
    void noSignalIsLostWhenOffersRaceTheAgentIntoItsPark() throws InterruptedException
    {
        final QueueAgent agent = new QueueAgent();
        final SignalledIdleStrategy idle = new SignalledIdleStrategy(HOUR_NS);
        final AgentRunner runner = AgentErrors.runner(idle, null, agent);
        AgentRunner.startOnThread(runner);
        final int producers = 3;
        final int perProducer = 3_000;
        final Thread[] threads = new Thread[producers];
        try
        {
            for (int p = 0; p < producers; p++)
            {
                threads[p] = new Thread(() ->
                {
                    for (int i = 0; i < perProducer; i++)
                    {
                        agent.queue.offer((long) i);
                        idle.signal();
                        // vary the gap so that offers land before, during and after the agent's check
                        final int spins = ThreadLocalRandom.current().nextInt(200);
                        for (int s = 0; s < spins; s++)
                        {
                            Thread.onSpinWait();
                        }
                    }
                });
                threads[p].start();
            }
            for (final Thread thread : threads)
            {
                thread.join(TimeUnit.SECONDS.toMillis(60));
            }
            awaitConsumed(agent, (long) producers * perProducer);

            // ping-pong: each offer made right after the agent finished the previous one, as it heads for its park
            final long start = agent.consumed.get();
            for (int i = 1; i <= 2_000; i++)
            {
                agent.queue.offer((long) i);
                idle.signal();
                awaitConsumed(agent, start + i);
            }
            assertEquals(start + 2_000, agent.consumed.get());
        }
        finally
        {
            idle.wakeForClose();
            runner.close();
        }
    }

    @Test
    void aCloseDoesNotWaitOutAPark() throws InterruptedException
    {
        final QueueAgent agent = new QueueAgent();
        final SignalledIdleStrategy idle = new SignalledIdleStrategy(HOUR_NS);
        final AgentRunner runner = AgentErrors.runner(idle, null, agent);
        final Thread thread = AgentRunner.startOnThread(runner);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (thread.getState() != Thread.State.TIMED_WAITING)
        {
            assertTrue(System.nanoTime() < deadline, "the agent never parked");
            Thread.yield();
        }
        final long start = System.nanoTime();
        idle.wakeForClose();
        runner.close();
        // without the wake-up the runner waits 5 s for the hour-long park, then interrupts it
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(4), "close waited out the park");
        assertTrue(runner.isClosed());
        // close() returns once the agent has closed; the thread itself may take a moment more to end
        thread.join(TimeUnit.SECONDS.toMillis(4));
        assertFalse(thread.isAlive(), "the agent's thread ended");
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(8), "close and the thread's end took long");
    }

    @Test
    void refusesANonPositivePark()
    {
        assertThrows(IllegalArgumentException.class, () -> new SignalledIdleStrategy(0));
    }
}
