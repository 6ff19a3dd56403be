package dev.offcache.spark;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import dev.offcache.registry.api.RemovalListener;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.Materialized;
import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.registry.state.RemovedEntry;

/**
 * What an executor loss leaves behind: an entry invalidated because one of its executors was lost still has its
 * other partitions on live executors. Instead of deleting those at once, the removal is held here (at most
 * {@code holdNs}) so the key's next materialization can adopt them: the task for such a partition runs on the
 * executor that holds it and copies the file, checked against its CRC, instead of computing the partition. When that
 * materialization ends, or the hold expires, or the key is uncached, or its session or the application ends, the
 * removal goes on to the stage cleanup, which deletes the old files. Every other removal goes straight through.
 * Thread-safe: removals arrive on the registry's thread, takes on the resolver's.
 */
public final class Salvage implements RemovalListener
{
    private final ExecutorDirectory executors;
    private final RemovalListener cleanup;
    private final long holdNs;
    private final Map<CacheKey, Held> held = new ConcurrentHashMap<>();
    private final AtomicLong adopted = new AtomicLong();
    private volatile boolean ended;

    private record Held(RemovedEntry removed, long sinceNs)
    {
    }

    /**
     * What a materialization may adopt from a held entry.
     *
     * @param removed   the held removal, released by {@link #release} once the materialization ended.
     * @param locations by partition index, the old partition on a live executor, or null (compute it).
     * @param hosts     by partition index, that executor's host, or null.
     */
    public record Adoptable(RemovedEntry removed, PartitionLocation[] locations, String[] hosts)
    {
    }

    Salvage(final ExecutorDirectory executors, final RemovalListener cleanup, final long holdNs)
    {
        this.executors = executors;
        this.cleanup = cleanup;
        this.holdNs = holdNs;
    }

    @Override
    public void onRemoved(final List<RemovedEntry> removed)
    {
        final List<RemovedEntry> forward = new ArrayList<>(removed.size());
        for (final RemovedEntry entry : removed)
        {
            if (holdNs > 0 && !ended && entry.entry() instanceof Materialized materialized &&
                lostAndLive(materialized))
            {
                final Held previous = held.put(entry.key(), new Held(entry, System.nanoTime()));
                if (previous != null)
                {
                    forward.add(previous.removed());
                }
                if (ended)
                {
                    // The application's end released everything while this was being held: nothing would again.
                    release(entry.key());
                }
            }
            else
            {
                forward.add(entry);
            }
        }
        if (!forward.isEmpty())
        {
            cleanup.onRemoved(forward);
        }
    }

    private boolean lostAndLive(final Materialized materialized)
    {
        boolean lost = false;
        boolean live = false;
        for (final PartitionLocation location : materialized.locations())
        {
            if (executors.isLive(location.executorId()))
            {
                live = true;
            }
            else
            {
                lost = true;
            }
        }
        return lost && live;
    }

    /**
     * Takes what is held for a key whose materialization starts: the partitions still on live executors, if the
     * held entry has the same schema and partition count.
     *
     * @param key        the key being materialized.
     * @param schemaJson the materialization's schema (its {@code DatasetSchema} description).
     * @param partitions its partition count.
     * @return what it may adopt (release it when the materialization ends), or null when nothing is held.
     */
    public Adoptable take(final CacheKey key, final String schemaJson, final int partitions)
    {
        final Held taken = held.remove(key);
        if (taken == null)
        {
            return null;
        }
        final Materialized old = (Materialized) taken.removed().entry();
        final PartitionLocation[] locations = new PartitionLocation[partitions];
        final String[] hosts = new String[partitions];
        if (old.schema().description().equals(schemaJson) && old.locations().size() == partitions)
        {
            for (final PartitionLocation location : old.locations())
            {
                final String host = executors.hostOf(location.executorId());
                final int index = location.partitionId();
                if (host != null && index >= 0 && index < partitions)
                {
                    locations[index] = location;
                    hosts[index] = host;
                }
            }
        }
        return new Adoptable(taken.removed(), locations, hosts);
    }

    /**
     * Lets the old files go (to the cleanup) once the materialization that took them ended.
     *
     * @param adoptable   what {@link #take} returned.
     * @param adoptedNow  partitions the materialization adopted.
     */
    public void release(final Adoptable adoptable, final int adoptedNow)
    {
        adopted.addAndGet(adoptedNow);
        cleanup.onRemoved(List.of(adoptable.removed()));
    }

    /**
     * Releases a key's held removal, if any (uncached).
     *
     * @param key the key.
     */
    void release(final CacheKey key)
    {
        final Held taken = held.remove(key);
        if (taken != null)
        {
            cleanup.onRemoved(List.of(taken.removed()));
        }
    }

    /**
     * Releases every held removal of a session, or every one (null: the application ends, and from then on no
     * removal is held).
     *
     * @param sessionId the session, or null for all.
     */
    void releaseSession(final String sessionId)
    {
        if (sessionId == null)
        {
            ended = true;
        }
        for (final CacheKey key : List.copyOf(held.keySet()))
        {
            if (sessionId == null || key.sessionId().equals(sessionId))
            {
                release(key);
            }
        }
    }

    /**
     * Releases the removals held longer than the hold.
     *
     * @param nowNs {@link System#nanoTime()}.
     */
    void expire(final long nowNs)
    {
        held.forEach((key, h) ->
        {
            if (nowNs - h.sinceNs() > holdNs && held.remove(key, h))
            {
                cleanup.onRemoved(List.of(h.removed()));
            }
        });
    }

    /**
     * Removals held now.
     *
     * @return the count.
     */
    int held()
    {
        return held.size();
    }

    /**
     * Partitions adopted by materializations so far.
     *
     * @return the count.
     */
    long adopted()
    {
        return adopted.get();
    }
}
