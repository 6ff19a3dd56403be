package dev.offcache.registry.front;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;

import dev.offcache.registry.api.Acquisition;
import dev.offcache.registry.api.Resolution;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.CompletionOutcome;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.Materialized;
import dev.offcache.registry.state.PartitionLocation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A hit on a materialized key, through {@code lookup}, {@code acquire} or {@code awaitMaterialization}, is answered
 * from the published view and allocates nothing per call: every reader of an entry gets the same completed future.
 */
class HitAllocationTest
{
    private static final CacheKey KEY = new CacheKey("s", "c");
    private static final int CALLS = 20_000;
    private static final int ROUNDS = 3;
    // Room for the measuring calls themselves; one small object per call would be hundreds of kilobytes.
    private static final long ALLOWANCE_BYTES = 16 * 1024;

    @Test
    void hitsAllocateNothingPerCall() throws Exception
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assertTrue(threads.isThreadAllocatedMemorySupported());
        threads.setThreadAllocatedMemoryEnabled(true);
        final long threadId = Thread.currentThread().getId();

        try (CacheRegistry registry = CacheRegistry.launch(new CacheRegistry.Context()))
        {
            registry.beginMaterialization(KEY, "j").get(5, TimeUnit.SECONDS);
            final List<PartitionLocation> locations = WaitersTest.locations("j", "e1", "e2");
            assertEquals(CompletionOutcome.PROMOTED, registry.completeMaterialization(
                KEY, "j", new DatasetSchema("x:int32"), locations).get(5, TimeUnit.SECONDS));

            final Materialized entry = (Materialized) registry.lookup(KEY).join();
            assertEquals(locations, entry.locations());
            assertEquals(entry, ((Acquisition.Hit) registry.acquire(KEY, "j2").join()).entry());
            assertEquals(entry, assertInstanceOf(Resolution.Ready.class,
                registry.awaitMaterialization(KEY).join()).entry());
            assertSame(registry.awaitMaterialization(KEY), registry.awaitMaterialization(KEY),
                "every waiter on a materialized key gets the same completed future");

            final long lookup = leastAllocated(threads, threadId, () -> registry.lookup(KEY));
            final long acquire = leastAllocated(threads, threadId, () -> registry.acquire(KEY, "j2"));
            final long await = leastAllocated(threads, threadId, () -> registry.awaitMaterialization(KEY));
            assertTrue(lookup < ALLOWANCE_BYTES, "lookup hits allocated " + lookup + " bytes");
            assertTrue(acquire < ALLOWANCE_BYTES, "acquire hits allocated " + acquire + " bytes");
            assertTrue(await < ALLOWANCE_BYTES, "awaitMaterialization hits allocated " + await + " bytes");
        }
    }

    /**
     * The least a few rounds of {@link #CALLS} calls allocated: a one-off allocation (a JIT deoptimisation, a lazily
     * loaded class) can land in any round, a per-call allocation lands in every round.
     */
    private static long leastAllocated(
        final com.sun.management.ThreadMXBean threads, final long threadId,
        final Supplier<CompletableFuture<?>> call)
    {
        long least = Long.MAX_VALUE;
        int done = 0;
        for (int round = 0; round < ROUNDS + 1; round++)
        {
            final long before = threads.getThreadAllocatedBytes(threadId);
            for (int i = 0; i < CALLS; i++)
            {
                if (call.get().isDone())
                {
                    done++;
                }
            }
            final long allocated = threads.getThreadAllocatedBytes(threadId) - before;
            if (round > 0)
            {
                // the first round warms the path up
                least = Math.min(least, allocated);
            }
        }
        assertEquals((ROUNDS + 1) * CALLS, done, "every hit answered at once");
        return least;
    }
}
