package dev.offcache.transport.media;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import org.agrona.concurrent.IdleStrategy;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * While busy, an idle duty cycle never reaches the delegate's back-off (only its reset); once not busy, the delegate
 * idles as before; work is passed through.
 */
class WhileBusyIdleStrategyTest
{
    @Test
    void yieldsWhileBusyThenBacksOffThroughTheDelegate()
    {
        final List<String> calls = new ArrayList<>();
        final AtomicBoolean busy = new AtomicBoolean(true);
        final IdleStrategy idle = new WhileBusyIdleStrategy(new Recording(calls), busy::get);

        idle.idle(0);
        idle.idle(0);
        assertEquals(List.of("reset", "reset"), calls);

        idle.idle(3);
        busy.set(false);
        idle.idle(0);
        idle.idle();
        assertEquals(List.of("reset", "reset", "idle(3)", "idle()", "idle()"), calls);
    }

    private static final class Recording implements IdleStrategy
    {
        private final List<String> calls;

        Recording(final List<String> calls)
        {
            this.calls = calls;
        }

        public void idle(final int workCount)
        {
            calls.add(workCount > 0 ? "idle(" + workCount + ")" : "idle()");
        }

        public void idle()
        {
            calls.add("idle()");
        }

        public void reset()
        {
            calls.add("reset");
        }
    }
}
