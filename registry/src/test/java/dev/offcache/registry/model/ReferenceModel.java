package dev.offcache.registry.model;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.offcache.registry.state.AbortOutcome;
import dev.offcache.registry.state.BeginOutcome;
import dev.offcache.registry.state.CacheEntry;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.CompletionOutcome;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.Materialized;
import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.registry.state.Pending;
import dev.offcache.registry.state.RemovedEntry;
import dev.offcache.registry.state.StageRef;

/**
 * The registry contract written as plainly as possible (a map and linear scans), to check the real state machine
 * against, step by step.
 */
public final class ReferenceModel
{
    public final Map<CacheKey, CacheEntry> map = new HashMap<>();
    public final Set<String> deadExecutors = new HashSet<>();
    public final List<RemovedEntry> removals = new ArrayList<>();
    public long now;

    public CacheEntry lookup(final CacheKey key)
    {
        final CacheEntry entry = map.get(key);
        if (entry instanceof Materialized m)
        {
            for (final PartitionLocation l : m.locations())
            {
                if (deadExecutors.contains(l.executorId()))
                {
                    remove(key);
                    return null;
                }
            }
        }
        return entry;
    }

    public BeginOutcome begin(final CacheKey key, final String job)
    {
        final CacheEntry entry = lookup(key);
        if (entry instanceof Pending p)
        {
            return new BeginOutcome.AlreadyPending(p.jobId());
        }
        if (entry instanceof Materialized m)
        {
            return new BeginOutcome.AlreadyMaterialized(m);
        }
        map.put(key, new Pending(job));
        return BeginOutcome.CLAIMED;
    }

    public Object acquire(final CacheKey key, final String job)
    {
        final CacheEntry entry = lookup(key);
        if (entry instanceof Materialized)
        {
            return "hit:" + entry;
        }
        if (entry instanceof Pending p)
        {
            return "wait:" + p.jobId();
        }
        map.put(key, new Pending(job));
        return "claimed";
    }

    public CompletionOutcome complete(
        final CacheKey key, final String job, final DatasetSchema schema, final List<PartitionLocation> locations)
    {
        final CacheEntry entry = map.get(key);
        if (entry == null || !entry.jobId().equals(job))
        {
            return CompletionOutcome.STALE;
        }
        if (entry instanceof Materialized)
        {
            return CompletionOutcome.DUPLICATE;
        }
        map.put(key, new Materialized(job, schema, locations, now));
        return CompletionOutcome.PROMOTED;
    }

    public AbortOutcome abort(final CacheKey key, final String job)
    {
        final CacheEntry entry = map.get(key);
        if (entry instanceof Pending && entry.jobId().equals(job))
        {
            remove(key);
            return AbortOutcome.ABORTED;
        }
        return AbortOutcome.STALE;
    }

    public Set<RemovedEntry> invalidate(final CacheKey key)
    {
        final Set<RemovedEntry> out = new HashSet<>();
        if (map.containsKey(key))
        {
            out.add(remove(key));
        }
        return out;
    }

    public Set<RemovedEntry> invalidate(final CacheKey key, final String job)
    {
        final Set<RemovedEntry> out = new HashSet<>();
        if (map.containsKey(key) && map.get(key).jobId().equals(job))
        {
            out.add(remove(key));
        }
        return out;
    }

    public Set<RemovedEntry> invalidateExecutor(final String executor)
    {
        final Set<RemovedEntry> out = new HashSet<>();
        for (final CacheKey key : new ArrayList<>(map.keySet()))
        {
            if (map.get(key) instanceof Materialized m &&
                m.locations().stream().anyMatch(l -> l.executorId().equals(executor)))
            {
                out.add(remove(key));
            }
        }
        return out;
    }

    public Set<RemovedEntry> removeSession(final String session)
    {
        final Set<RemovedEntry> out = new HashSet<>();
        for (final CacheKey key : new ArrayList<>(map.keySet()))
        {
            if (key.sessionId().equals(session))
            {
                out.add(remove(key));
            }
        }
        return out;
    }

    public Set<StageRef> pinnedStages()
    {
        final Set<StageRef> out = new HashSet<>();
        for (final CacheEntry entry : map.values())
        {
            if (entry instanceof Materialized m)
            {
                for (final PartitionLocation l : m.locations())
                {
                    out.add(new StageRef(l.jobId(), l.stageId()));
                }
            }
        }
        return out;
    }

    public long totalBytes()
    {
        long total = 0;
        for (final CacheEntry entry : map.values())
        {
            if (entry instanceof Materialized m)
            {
                for (final PartitionLocation l : m.locations())
                {
                    total += l.length();
                }
            }
        }
        return total;
    }

    private RemovedEntry remove(final CacheKey key)
    {
        final RemovedEntry removed = new RemovedEntry(key, map.remove(key));
        removals.add(removed);
        return removed;
    }
}
