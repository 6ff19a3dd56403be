package dev.offcache.transport.media;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@link RecentWorkIdleStrategy} on a fake clock: spins first, then yields (no park) until the window after the last
 * work has passed, then parks doubling from the minimum to the maximum; work starts over.
 */
class RecentWorkIdleStrategyTest
{
    private long now = 1_000_000_000L;
    private final List<Long> parks = new ArrayList<>();

    private RecentWorkIdleStrategy strategy()
    {
        // 2 spins, yields for 100 us after work, parks from 1 us to 8 us.
        return new RecentWorkIdleStrategy(2, 100_000, 1_000, 8_000, () -> now, (ns) ->
        {
            parks.add(ns);
            now += ns;
        });
    }

    @Test
    void yieldsWithinTheWindowAfterWorkThenParksDoublingToTheMaximum()
    {
        final RecentWorkIdleStrategy idle = strategy();
        idle.idle(1);
        for (int i = 0; i < 50; i++)
        {
            idle.idle(0);
            now += 1_000;
        }
        assertEquals(List.of(), parks, "within 100 us of work: spins and yields only");
        now += 60_000;
        for (int i = 0; i < 6; i++)
        {
            idle.idle(0);
        }
        assertEquals(List.of(1_000L, 2_000L, 4_000L, 8_000L, 8_000L, 8_000L), parks);

        parks.clear();
        idle.idle(3);
        now += 100_000;
        for (int i = 0; i < 4; i++)
        {
            idle.idle(0);
        }
        assertEquals(List.of(1_000L, 2_000L), parks, "work starts the spins, the window and the backoff over");
    }

    @Test
    void badSettingsAreRefused()
    {
        assertThrows(IllegalArgumentException.class, () -> new RecentWorkIdleStrategy(-1, 0, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new RecentWorkIdleStrategy(0, -1, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new RecentWorkIdleStrategy(0, 0, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> new RecentWorkIdleStrategy(0, 0, 2, 1));
    }
}
