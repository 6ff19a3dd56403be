package dev.offcache.core.counters;

import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CounterTypesTest
{
    @Test
    void everyIdIsDistinctAndOutsideAeronsRange()
    {
        final Map<Integer, String> ids = CounterTypes.all();
        assertTrue(ids.size() >= 10, "every constant listed (all() refuses a shared id): " + ids);
        for (final int id : ids.keySet())
        {
            assertTrue(id >= 1000, "Aeron keeps the ids below 1000: " + ids.get(id) + " = " + id);
        }
        assertEquals("REGISTRY", ids.get(4201));
        assertEquals("TRANSPORT_SESSIONS", ids.get(8106));
        assertEquals("L2_SERVER", ids.get(4401));
    }
}
