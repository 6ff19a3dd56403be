package dev.offcache.range.policy;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LruPolicyTest
{
    @Test
    void evictsTheLeastRecentlyUsed()
    {
        final LruPolicy policy = new LruPolicy(3);
        policy.add(1, false);
        policy.add(2, false);
        policy.add(3, false);
        policy.recordAccess(1);
        assertEquals(2, policy.evict());
        policy.add(4, false);
        assertEquals(3, policy.evict());
        assertEquals(1, policy.evict());
        assertEquals(4, policy.evict());
        assertEquals(EvictionPolicy.NO_KEY, policy.evict());
    }

    @Test
    void lowPriorityEntriesGoFirstUnlessRead()
    {
        final LruPolicy policy = new LruPolicy(3);
        policy.add(1, false);
        policy.add(2, false);
        policy.add(9, true);
        assertEquals(9, policy.evict());
        policy.add(9, true);
        policy.recordAccess(9);
        assertEquals(1, policy.evict());
        assertTrue(policy.admits(77));
        assertTrue(policy.contains(9));
        assertFalse(policy.contains(1));
    }
}
