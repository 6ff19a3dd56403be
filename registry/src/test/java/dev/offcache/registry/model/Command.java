package dev.offcache.registry.model;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import dev.offcache.registry.api.Acquisition;
import dev.offcache.registry.front.CacheRegistry;
import dev.offcache.registry.state.CacheEntry;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.CacheState;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.Materialized;
import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.registry.state.Pending;

/**
 * One generated registry command, applicable to the real state machine, the reference model and the Disruptor
 * front. Outcomes are normalised (removal lists become sets, refused input becomes {@link #REFUSED}) so the three
 * can be compared with {@code equals}.
 */
public sealed interface Command
{
    /**
     * The normalised outcome of a call refused with IllegalArgumentException.
     */
    String REFUSED = "refused";

    Object apply(CacheState state);

    Object apply(ReferenceModel model);

    /**
     * Publishes the command; null for commands that act outside the registry (executor deaths, clock).
     */
    CompletableFuture<?> publish(CacheRegistry registry);

    static Object normalise(final Object outcome)
    {
        if (outcome instanceof List<?> list)
        {
            return new HashSet<>(list);
        }
        if (outcome instanceof Acquisition.Hit hit)
        {
            return "hit:" + hit.entry();
        }
        if (outcome instanceof Acquisition.Wait wait)
        {
            return "wait:" + wait.pendingJobId();
        }
        if (outcome instanceof Acquisition.Claimed)
        {
            return "claimed";
        }
        return outcome;
    }

    record Lookup(CacheKey key) implements Command
    {
        public Object apply(final CacheState state)
        {
            return state.lookup(key);
        }

        public Object apply(final ReferenceModel model)
        {
            return model.lookup(key);
        }

        public CompletableFuture<?> publish(final CacheRegistry registry)
        {
            return registry.lookup(key);
        }
    }

    record Begin(CacheKey key, String job) implements Command
    {
        public Object apply(final CacheState state)
        {
            return state.beginMaterialization(key, job);
        }

        public Object apply(final ReferenceModel model)
        {
            return model.begin(key, job);
        }

        public CompletableFuture<?> publish(final CacheRegistry registry)
        {
            return registry.beginMaterialization(key, job);
        }
    }

    /**
     * The front's action entry point; on the bare state machine it is emulated as lookup, then claim on a miss.
     * Normalised to {@code hit:<entry>}, {@code claimed} or {@code wait:<job>}.
     */
    record Acquire(CacheKey key, String job) implements Command
    {
        public Object apply(final CacheState state)
        {
            final CacheEntry entry = state.lookup(key);
            if (entry == null)
            {
                state.beginMaterialization(key, job);
            }
            return normaliseEntry(entry);
        }

        public Object apply(final ReferenceModel model)
        {
            return model.acquire(key, job);
        }

        public CompletableFuture<?> publish(final CacheRegistry registry)
        {
            return registry.acquire(key, job);
        }

        static Object normaliseEntry(final CacheEntry entry)
        {
            if (entry instanceof Materialized)
            {
                return "hit:" + entry;
            }
            return entry instanceof Pending ? "wait:" + entry.jobId() : "claimed";
        }
    }

    record Complete(CacheKey key, String job, DatasetSchema schema, List<PartitionLocation> locations)
        implements Command
    {
        public Object apply(final CacheState state)
        {
            return state.completeMaterialization(key, job, schema, locations);
        }

        public Object apply(final ReferenceModel model)
        {
            return model.complete(key, job, schema, locations);
        }

        public CompletableFuture<?> publish(final CacheRegistry registry)
        {
            return registry.completeMaterialization(key, job, schema, locations);
        }
    }

    /**
     * A completion whose locations are empty, name another job, or repeat a partition: always refused.
     */
    record BadComplete(CacheKey key, String job, List<PartitionLocation> locations) implements Command
    {
        public Object apply(final CacheState state)
        {
            try
            {
                state.completeMaterialization(key, job, new DatasetSchema("bad"), locations);
                return "accepted?!";
            }
            catch (final IllegalArgumentException expected)
            {
                return REFUSED;
            }
        }

        public Object apply(final ReferenceModel model)
        {
            return REFUSED;
        }

        public CompletableFuture<?> publish(final CacheRegistry registry)
        {
            try
            {
                registry.completeMaterialization(key, job, new DatasetSchema("bad"), locations);
                return CompletableFuture.completedFuture("accepted?!");
            }
            catch (final IllegalArgumentException expected)
            {
                return CompletableFuture.completedFuture(REFUSED);
            }
        }
    }

    record Abort(CacheKey key, String job) implements Command
    {
        public Object apply(final CacheState state)
        {
            return state.abortMaterialization(key, job);
        }

        public Object apply(final ReferenceModel model)
        {
            return model.abort(key, job);
        }

        public CompletableFuture<?> publish(final CacheRegistry registry)
        {
            return registry.abortMaterialization(key, job);
        }
    }

    record Invalidate(CacheKey key) implements Command
    {
        public Object apply(final CacheState state)
        {
            return state.invalidate(key);
        }

        public Object apply(final ReferenceModel model)
        {
            return model.invalidate(key);
        }

        public CompletableFuture<?> publish(final CacheRegistry registry)
        {
            return registry.invalidate(key);
        }
    }

    /**
     * The conditional invalidation a reader sends after a fetch failure: only that job's entry goes.
     */
    record InvalidateJob(CacheKey key, String job) implements Command
    {
        public Object apply(final CacheState state)
        {
            return state.invalidate(key, job);
        }

        public Object apply(final ReferenceModel model)
        {
            return model.invalidate(key, job);
        }

        public CompletableFuture<?> publish(final CacheRegistry registry)
        {
            return registry.invalidate(key, job);
        }
    }

    record InvalidateExecutor(String executor) implements Command
    {
        public Object apply(final CacheState state)
        {
            return state.invalidateExecutor(executor);
        }

        public Object apply(final ReferenceModel model)
        {
            return model.invalidateExecutor(executor);
        }

        public CompletableFuture<?> publish(final CacheRegistry registry)
        {
            return registry.invalidateExecutor(executor);
        }
    }

    record RemoveSession(String session) implements Command
    {
        public Object apply(final CacheState state)
        {
            return state.removeSession(session);
        }

        public Object apply(final ReferenceModel model)
        {
            return model.removeSession(session);
        }

        public CompletableFuture<?> publish(final CacheRegistry registry)
        {
            return registry.removeSession(session);
        }
    }

    /**
     * An executor dies (or comes back) in the live-executor view without an invalidateExecutor call: only reads
     * notice, through validate-on-read. The harness applies it to its own view with {@link #applyTo(Set)}.
     */
    record SetExecutorLive(String executor, boolean live) implements Command
    {
        public void applyTo(final Set<String> deadExecutors)
        {
            if (live)
            {
                deadExecutors.remove(executor);
            }
            else
            {
                deadExecutors.add(executor);
            }
        }

        public Object apply(final CacheState state)
        {
            throw new UnsupportedOperationException("the harness applies " + this);
        }

        public Object apply(final ReferenceModel model)
        {
            applyTo(model.deadExecutors);
            return null;
        }

        public CompletableFuture<?> publish(final CacheRegistry registry)
        {
            throw new UnsupportedOperationException("the harness applies " + this);
        }
    }

    /**
     * Time passes (materialization times differ).
     */
    record AdvanceClock(long millis) implements Command
    {
        public Object apply(final CacheState state)
        {
            throw new UnsupportedOperationException("the harness applies " + this);
        }

        public Object apply(final ReferenceModel model)
        {
            model.now += millis;
            return null;
        }

        public CompletableFuture<?> publish(final CacheRegistry registry)
        {
            throw new UnsupportedOperationException("the harness applies " + this);
        }
    }
}
