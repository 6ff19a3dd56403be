package dev.offcache.range.policy;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FrequencySketchTest
{
    @Test
    void countsAndSaturatesAtFifteen()
    {
        final FrequencySketch sketch = new FrequencySketch(1000);
        assertEquals(0, sketch.frequency(42));
        for (int i = 1; i <= 10; i++)
        {
            sketch.increment(42);
            assertEquals(i, sketch.frequency(42));
        }
        for (int i = 0; i < 100; i++)
        {
            sketch.increment(42);
        }
        assertEquals(FrequencySketch.MAX_FREQUENCY, sketch.frequency(42));
    }

    @Test
    void resetHalvesEveryCounter()
    {
        final FrequencySketch sketch = new FrequencySketch(1000);
        for (int i = 0; i < 9; i++)
        {
            sketch.increment(7);
        }
        for (int i = 0; i < 4; i++)
        {
            sketch.increment(8);
        }
        sketch.reset();
        assertEquals(4, sketch.frequency(7));
        assertEquals(2, sketch.frequency(8));
        assertEquals(1, sketch.resets());
    }

    @Test
    void agesAutomaticallyAfterTenTimesCapacityIncrements()
    {
        final int capacity = 100;
        final FrequencySketch sketch = new FrequencySketch(capacity);
        for (int i = 0; i < 15; i++)
        {
            sketch.increment(1);
        }
        assertEquals(15, sketch.frequency(1));
        // Many distinct keys, once each: the sample fills and the sketch halves (possibly more than once).
        long key = 1000;
        while (sketch.resets() == 0)
        {
            sketch.increment(key++);
        }
        assertTrue(key - 1000 <= 10L * capacity, "reset after at most 10 x capacity increments: " + (key - 1000));
        assertEquals(7, sketch.frequency(1));
    }

    @Test
    void distinguishesHotFromColdKeysAmongMany()
    {
        final FrequencySketch sketch = new FrequencySketch(512);
        for (int round = 0; round < 3; round++)
        {
            for (long key = 0; key < 200; key++)
            {
                sketch.increment(key);
            }
        }
        int errors = 0;
        for (long key = 0; key < 200; key++)
        {
            errors += sketch.frequency(key) >= 3 ? 0 : 1;
        }
        assertEquals(0, errors, "count-min never underestimates before aging");
        int overestimates = 0;
        for (long key = 10_000; key < 10_200; key++)
        {
            overestimates += sketch.frequency(key) > 1 ? 1 : 0;
        }
        assertTrue(overestimates < 20, "unseen keys mostly estimate 0 or 1: " + overestimates);
    }
}
