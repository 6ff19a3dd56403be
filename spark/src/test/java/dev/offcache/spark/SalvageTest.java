package dev.offcache.spark;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.Materialized;
import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.registry.state.Pending;
import dev.offcache.registry.state.RemovedEntry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Which removals {@link Salvage} holds (an entry that lost an executor and still has partitions on live ones), what a
 * materialization of the key may adopt from one, and that every held removal reaches the cleanup in the end: after
 * the materialization, on expiry, uncache, session end and application end. Nothing else is held.
 */
class SalvageTest
{
    private static final String SCHEMA = "{\"type\":\"struct\",\"fields\":[]}";
    private static final CacheKey KEY = new CacheKey("session-1", "cache-1");
    private static final long HOUR = 3_600_000_000_000L;

    private final ExecutorDirectory executors = new ExecutorDirectory();
    private final List<RemovedEntry> cleaned = new ArrayList<>();
    private final Salvage salvage = new Salvage(executors, cleaned::addAll, HOUR);

    SalvageTest()
    {
        executors.register(new Messages.Register("1", "host-a", "aeron:udp", 1, 101, "/tmp/x1"), 0);
        executors.register(new Messages.Register("2", "host-b", "aeron:udp", 1, 102, "/tmp/x2"), 0);
    }

    private static RemovedEntry removal(final CacheKey key, final String... executorOfPartition)
    {
        final List<PartitionLocation> locations = new ArrayList<>();
        for (int p = 0; p < executorOfPartition.length; p++)
        {
            locations.add(new PartitionLocation(executorOfPartition[p], "job-1", 0, p, "/data/" + p, 100, 7));
        }
        return new RemovedEntry(key, new Materialized("job-1", new DatasetSchema(SCHEMA), locations, 1L));
    }

    @Test
    void anEntryThatLostAnExecutorIsHeldAndItsLivePartitionsAreOfferedToTheNextMaterialization()
    {
        executors.remove("2");
        final RemovedEntry lost = removal(KEY, "1", "2", "1", "3");
        salvage.onRemoved(List.of(lost));
        assertEquals(List.of(), cleaned, "held, not deleted");
        assertEquals(1, salvage.held());

        final Salvage.Adoptable adoptable = salvage.take(KEY, SCHEMA, 4);
        assertEquals(0, salvage.held());
        assertEquals("host-a", adoptable.hosts()[0]);
        assertArrayEquals(new String[] {"host-a", null, "host-a", null}, adoptable.hosts());
        assertEquals("/data/2", adoptable.locations()[2].path());
        assertNull(adoptable.locations()[1], "on the lost executor");
        assertNull(adoptable.locations()[3], "on an executor never registered");
        assertNull(salvage.take(KEY, SCHEMA, 4), "taken once");

        salvage.release(adoptable, 2);
        assertEquals(List.of(lost), cleaned, "deleted once the materialization ended");
        assertEquals(2, salvage.adopted());
    }

    @Test
    void anotherSchemaOrPartitionCountAdoptsNothingButStillReleases()
    {
        executors.remove("2");
        salvage.onRemoved(List.of(removal(KEY, "1", "2")));
        final Salvage.Adoptable other = salvage.take(KEY, "{\"other\":1}", 2);
        assertArrayEquals(new PartitionLocation[2], other.locations());
        salvage.release(other, 0);

        salvage.onRemoved(List.of(removal(KEY, "1", "2")));
        assertArrayEquals(new PartitionLocation[3], salvage.take(KEY, SCHEMA, 3).locations());
        assertEquals(1, cleaned.size());
    }

    @Test
    void removalsWithNothingLostOrNothingLiveOrNotMaterializedGoStraightToTheCleanup()
    {
        final RemovedEntry allLive = removal(KEY, "1", "2");
        final RemovedEntry pending = new RemovedEntry(new CacheKey("session-1", "cache-2"), new Pending("job-2"));
        salvage.onRemoved(List.of(allLive, pending));
        executors.remove("1");
        executors.remove("2");
        final RemovedEntry allLost = removal(new CacheKey("session-1", "cache-3"), "1", "2");
        salvage.onRemoved(List.of(allLost));
        assertEquals(List.of(allLive, pending, allLost), cleaned);
        assertEquals(0, salvage.held());

        final Salvage noHold = new Salvage(executors, cleaned::addAll, 0);
        executors.register(new Messages.Register("1", "host-a", "aeron:udp", 1, 101, "/tmp/x1"), 0);
        final RemovedEntry lost = removal(KEY, "1", "2");
        noHold.onRemoved(List.of(lost));
        assertEquals(lost, cleaned.get(cleaned.size() - 1), "a hold of 0 deletes at once");
    }

    @Test
    void everyHeldRemovalReachesTheCleanupOnExpiryUncacheSessionOrApplicationEnd()
    {
        executors.remove("2");
        final RemovedEntry first = removal(KEY, "1", "2");
        final RemovedEntry replaced = removal(KEY, "2", "1");
        salvage.onRemoved(List.of(first));
        salvage.onRemoved(List.of(replaced));
        assertEquals(List.of(first), cleaned, "a newer removal of the key replaces the held one");

        salvage.expire(System.nanoTime());
        assertEquals(1, salvage.held(), "not expired yet");
        salvage.expire(System.nanoTime() + HOUR + 1);
        assertEquals(List.of(first, replaced), cleaned);

        final RemovedEntry uncached = removal(KEY, "1", "2");
        salvage.onRemoved(List.of(uncached));
        salvage.release(KEY);
        assertEquals(uncached, cleaned.get(2));

        final RemovedEntry mine = removal(new CacheKey("session-1", "a"), "1", "2");
        final RemovedEntry theirs = removal(new CacheKey("session-2", "a"), "1", "2");
        salvage.onRemoved(List.of(mine, theirs));
        salvage.releaseSession("session-1");
        assertEquals(mine, cleaned.get(3));
        assertEquals(1, salvage.held());
        salvage.releaseSession(null);
        assertEquals(theirs, cleaned.get(4));
        assertEquals(0, salvage.held());

        final RemovedEntry afterTheEnd = removal(new CacheKey("session-2", "b"), "1", "2");
        salvage.onRemoved(List.of(afterTheEnd));
        assertEquals(afterTheEnd, cleaned.get(5), "after the application's end nothing is held");
        assertEquals(0, salvage.held());
    }
}
