package dev.offcache.core.agent;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The agents' error policy: every failed duty cycle is counted in the component's counter (readable through a
 * {@link CountersReader}), and a burst of errors logs one line, then at most one a second.
 */
class AgentErrorsTest
{
    @Test
    void everyFailedDutyCycleIsCountedInTheComponentsCounter() throws Exception
    {
        final CountersManager manager = new CountersManager(new UnsafeBuffer(ByteBuffer.allocateDirect(64 * 1024)),
            new UnsafeBuffer(ByteBuffer.allocateDirect(16 * 1024)));
        final AtomicCounter errors = manager.newCounter("test_agent_errors_total", 4999);
        final AtomicInteger passes = new AtomicInteger();
        final Agent failing = new Agent()
        {
            public int doWork()
            {
                if (passes.incrementAndGet() <= 25)
                {
                    throw new IllegalStateException("pass " + passes.get());
                }
                return 0;
            }

            public String roleName()
            {
                return "test-failing-agent";
            }
        };
        final AgentRunner runner = AgentErrors.runner(new SleepingMillisIdleStrategy(1), errors, failing);
        AgentRunner.startOnThread(runner);
        try
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (passes.get() <= 25 && System.nanoTime() < deadline)
            {
                Thread.sleep(1);
            }
        }
        finally
        {
            runner.close();
        }
        assertTrue(passes.get() > 25, "the agent kept running after its errors");
        assertEquals(25, errors.get());
        final AtomicLong seen = new AtomicLong(-1);
        manager.forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (label.equals("test_agent_errors_total"))
            {
                seen.set(manager.getCounterValue(counterId));
            }
        });
        assertEquals(25, seen.get(), "readable by label through the counters reader");
    }

    @Test
    void aBurstLogsOneLineThenAtMostOneAnInterval()
    {
        final AtomicLong now = new AtomicLong(1_000_000_000L);
        final AgentErrors.RateLimitedLog log = new AgentErrors.RateLimitedLog("test", now::get);
        final RuntimeException error = new RuntimeException("injected");
        for (int i = 0; i < 100; i++)
        {
            log.onError(error);
        }
        assertEquals(1, log.logged(), "the first error of a burst is logged");
        assertEquals(99, log.suppressed());

        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(AgentErrors.LOG_INTERVAL_MS) - 1);
        log.onError(error);
        assertEquals(1, log.logged(), "still within the interval");
        assertEquals(100, log.suppressed());

        now.addAndGet(1);
        log.onError(error);
        assertEquals(2, log.logged(), "one line after the interval, carrying the count not logged");
        assertEquals(0, log.suppressed());
    }
}
