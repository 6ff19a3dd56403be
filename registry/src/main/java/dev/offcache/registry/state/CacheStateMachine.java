package dev.offcache.registry.state;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;

import org.agrona.concurrent.EpochClock;

import dev.offcache.registry.persistent.HashTrie;

/**
 * The registry's state machine: plain single-threaded code, no locks, no threads. Exactly one thread may call it
 * (the Disruptor consumer, or a test); it owns every collection below.
 *
 * <p>Besides the key → entry map it keeps the indexes that make the bulk removals and the pin set cheap: keys per
 * session (with the session's last activity, for idle expiry), materialized keys per executor, a reference count
 * per pinned stage and the total bytes of materialized output. The pin counts are a persistent {@link HashTrie}, so
 * {@link #pinnedStages()} is an immutable set in O(1) that a front can publish to readers after every batch.
 *
 * <p>Every accepted change is reported to the {@link StateChangeListener} after it is applied; the {@code restore*}
 * methods apply journaled changes on recovery without validation, clock or listener.
 */
public final class CacheStateMachine implements CacheState
{
    private final Map<CacheKey, CacheEntry> entries = new HashMap<>();
    private final Map<String, SessionIndex> sessions = new HashMap<>();
    private final Map<String, Set<CacheKey>> keysByExecutor = new HashMap<>();
    private HashTrie<StageRef, Integer> pinCounts = HashTrie.empty();
    private Set<StageRef> pinned = pinCounts.keySet();
    private final EpochClock clock;
    private final LiveExecutors liveExecutors;
    private StateChangeListener listener;
    private long totalBytes;
    private long pinVersion;

    /**
     * A state machine with every executor live and no listener.
     *
     * @param clock source of materialization and activity times.
     */
    public CacheStateMachine(final EpochClock clock)
    {
        this(clock, LiveExecutors.ALL, StateChangeListener.NONE);
    }

    /**
     * A state machine.
     *
     * @param clock         source of materialization and activity times (epoch ms).
     * @param liveExecutors the view consulted when a materialized entry is read.
     * @param listener      receives every accepted change.
     */
    public CacheStateMachine(
        final EpochClock clock, final LiveExecutors liveExecutors, final StateChangeListener listener)
    {
        this.clock = Ids.requireNonNull(clock, "clock");
        this.liveExecutors = Ids.requireNonNull(liveExecutors, "liveExecutors");
        this.listener = Ids.requireNonNull(listener, "listener");
    }

    /**
     * Replaces the change listener (used once, by the front, after recovery).
     *
     * @param listener the new listener.
     */
    public void listener(final StateChangeListener listener)
    {
        this.listener = Ids.requireNonNull(listener, "listener");
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public CacheEntry lookup(final CacheKey key)
    {
        Ids.requireNonNull(key, "key");
        final CacheEntry entry = validated(key);
        if (entry != null)
        {
            touch(key.sessionId());
        }
        return entry;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public BeginOutcome beginMaterialization(final CacheKey key, final String jobId)
    {
        Ids.requireNonNull(key, "key");
        Ids.requireId(jobId, "jobId");
        final CacheEntry existing = validated(key);
        if (existing instanceof Pending pending)
        {
            touch(key.sessionId());
            return new BeginOutcome.AlreadyPending(pending.jobId());
        }
        if (existing instanceof Materialized materialized)
        {
            touch(key.sessionId());
            return new BeginOutcome.AlreadyMaterialized(materialized);
        }
        final Pending pending = new Pending(jobId);
        putClaim(key, pending, clock.time());
        listener.onClaimed(key, pending);
        return BeginOutcome.CLAIMED;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public CompletionOutcome completeMaterialization(
        final CacheKey key, final String jobId, final DatasetSchema schema, final List<PartitionLocation> locations)
    {
        Ids.requireNonNull(key, "key");
        Ids.requireId(jobId, "jobId");
        Ids.requireNonNull(schema, "schema");
        Materialized.validateLocations(jobId, locations);

        final CacheEntry existing = entries.get(key);
        if (existing instanceof Materialized materialized && materialized.jobId().equals(jobId))
        {
            return CompletionOutcome.DUPLICATE;
        }
        if (!(existing instanceof Pending pending) || !pending.jobId().equals(jobId))
        {
            return CompletionOutcome.STALE;
        }
        final long now = clock.time();
        final Materialized materialized = new Materialized(jobId, schema, locations, now);
        putMaterialized(key, materialized, now);
        listener.onPromoted(key, materialized);
        return CompletionOutcome.PROMOTED;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public AbortOutcome abortMaterialization(final CacheKey key, final String jobId)
    {
        Ids.requireNonNull(key, "key");
        Ids.requireId(jobId, "jobId");
        final CacheEntry existing = entries.get(key);
        if (existing instanceof Pending pending && pending.jobId().equals(jobId))
        {
            remove(key);
            return AbortOutcome.ABORTED;
        }
        return AbortOutcome.STALE;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public List<RemovedEntry> invalidate(final CacheKey key)
    {
        Ids.requireNonNull(key, "key");
        final CacheEntry removed = remove(key);
        return removed == null ? List.of() : List.of(new RemovedEntry(key, removed));
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public List<RemovedEntry> invalidate(final CacheKey key, final String jobId)
    {
        Ids.requireNonNull(key, "key");
        Ids.requireId(jobId, "jobId");
        final CacheEntry existing = entries.get(key);
        if (existing == null || !existing.jobId().equals(jobId))
        {
            return List.of();
        }
        return List.of(new RemovedEntry(key, remove(key)));
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public List<RemovedEntry> invalidateExecutor(final String executorId)
    {
        Ids.requireId(executorId, "executorId");
        final Set<CacheKey> keys = keysByExecutor.get(executorId);
        if (keys == null)
        {
            return List.of();
        }
        return removeAll(new ArrayList<>(keys));
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public List<RemovedEntry> removeSession(final String sessionId)
    {
        Ids.requireId(sessionId, "sessionId");
        final SessionIndex session = sessions.get(sessionId);
        if (session == null)
        {
            return List.of();
        }
        return removeAll(new ArrayList<>(session.keys));
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public Set<StageRef> pinnedStages()
    {
        return pinned;
    }

    /**
     * Whether a materialized entry uses a stage.
     *
     * @param stage the stage.
     * @return true when it is pinned.
     */
    public boolean isPinned(final StageRef stage)
    {
        return pinCounts.containsKey(stage);
    }

    /**
     * Records that a session was active at a time (a read served outside the state machine, for example), so idle
     * expiry counts it; an earlier time than the session's last activity changes nothing, nor does an unknown
     * session.
     *
     * @param sessionId the session.
     * @param atMs      when it was active, epoch ms.
     */
    public void recordActivity(final String sessionId, final long atMs)
    {
        final SessionIndex session = sessions.get(sessionId);
        if (session != null)
        {
            session.lastActivityMs = Math.max(session.lastActivityMs, atMs);
        }
    }

    /**
     * A counter that changes whenever the pinned set changes, so a publisher can skip rebuilding an unchanged set.
     *
     * @return the pin-set version.
     */
    public long pinVersion()
    {
        return pinVersion;
    }

    /**
     * Number of entries, pending and materialized.
     *
     * @return the entry count.
     */
    public int size()
    {
        return entries.size();
    }

    /**
     * Total bytes of all materialized output (what the eviction byte cap limits).
     *
     * @return the byte total.
     */
    public long totalBytes()
    {
        return totalBytes;
    }

    /**
     * An immutable copy of every entry (for diagnostics, tests and snapshots).
     *
     * @return a copy of the key → entry map.
     */
    public Map<CacheKey, CacheEntry> entries()
    {
        return Map.copyOf(entries);
    }

    /**
     * Visits every entry without copying.
     *
     * @param visitor receives each key and entry; must not modify this state machine.
     */
    public void forEachEntry(final BiConsumer<CacheKey, CacheEntry> visitor)
    {
        entries.forEach(visitor);
    }

    /**
     * Visits every session that has at least one entry, with its last activity time.
     *
     * @param visitor receives the session id and its last activity (epoch ms); must not modify this state machine.
     */
    public void forEachSession(final SessionVisitor visitor)
    {
        for (final Map.Entry<String, SessionIndex> session : sessions.entrySet())
        {
            visitor.visit(session.getKey(), session.getValue().lastActivityMs);
        }
    }

    /**
     * Receives sessions from {@link #forEachSession}.
     */
    @FunctionalInterface
    public interface SessionVisitor
    {
        /**
         * One session.
         *
         * @param sessionId      the session id.
         * @param lastActivityMs its last activity, epoch ms.
         */
        void visit(String sessionId, long lastActivityMs);
    }

    /**
     * Recovery: re-applies a journaled claim.
     *
     * @param key   the key.
     * @param jobId the claiming job.
     */
    public void restoreClaim(final CacheKey key, final String jobId)
    {
        remove(key, false);
        putClaim(key, new Pending(jobId), clock.time());
    }

    /**
     * Recovery: re-applies a journaled promotion.
     *
     * @param key   the key.
     * @param entry the materialized entry, with its original materialization time.
     */
    public void restorePromotion(final CacheKey key, final Materialized entry)
    {
        remove(key, false);
        putMaterialized(key, entry, clock.time());
    }

    /**
     * Recovery: re-applies a journaled removal.
     *
     * @param key the key.
     */
    public void restoreRemoval(final CacheKey key)
    {
        remove(key, false);
    }

    private CacheEntry validated(final CacheKey key)
    {
        final CacheEntry entry = entries.get(key);
        if (entry instanceof Materialized materialized)
        {
            for (int i = 0, n = materialized.locations().size(); i < n; i++)
            {
                final PartitionLocation location = materialized.locations().get(i);
                if (!liveExecutors.isLive(location.executorId()))
                {
                    remove(key);
                    return null;
                }
            }
        }
        return entry;
    }

    private void touch(final String sessionId)
    {
        final SessionIndex session = sessions.get(sessionId);
        if (session != null)
        {
            session.lastActivityMs = Math.max(session.lastActivityMs, clock.time());
        }
    }

    private void putClaim(final CacheKey key, final Pending pending, final long now)
    {
        entries.put(key, pending);
        sessionFor(key.sessionId(), now).keys.add(key);
    }

    private void putMaterialized(final CacheKey key, final Materialized materialized, final long now)
    {
        final CacheEntry previous = entries.put(key, materialized);
        if (previous instanceof Materialized)
        {
            throw new IllegalStateException("promotion over a materialized entry for " + key);
        }
        sessionFor(key.sessionId(), now).keys.add(key);
        for (int i = 0, n = materialized.locations().size(); i < n; i++)
        {
            final PartitionLocation location = materialized.locations().get(i);
            keysByExecutor.computeIfAbsent(location.executorId(), id -> new HashSet<>()).add(key);
        }
        for (final StageRef stage : materialized.stages())
        {
            final Integer count = pinCounts.get(stage);
            pinCounts = pinCounts.put(stage, count == null ? 1 : count + 1);
        }
        totalBytes += materialized.totalBytes();
        pinned = pinCounts.keySet();
        pinVersion++;
    }

    private SessionIndex sessionFor(final String sessionId, final long now)
    {
        SessionIndex session = sessions.get(sessionId);
        if (session == null)
        {
            session = new SessionIndex(now);
            sessions.put(sessionId, session);
        }
        session.lastActivityMs = Math.max(session.lastActivityMs, now);
        return session;
    }

    private List<RemovedEntry> removeAll(final List<CacheKey> keys)
    {
        final List<RemovedEntry> removed = new ArrayList<>(keys.size());
        for (final CacheKey key : keys)
        {
            final CacheEntry entry = remove(key);
            if (entry != null)
            {
                removed.add(new RemovedEntry(key, entry));
            }
        }
        return removed;
    }

    private CacheEntry remove(final CacheKey key)
    {
        return remove(key, true);
    }

    private CacheEntry remove(final CacheKey key, final boolean notify)
    {
        final CacheEntry removed = entries.remove(key);
        if (removed == null)
        {
            return null;
        }
        final SessionIndex session = sessions.get(key.sessionId());
        session.keys.remove(key);
        if (session.keys.isEmpty())
        {
            sessions.remove(key.sessionId());
        }
        if (removed instanceof Materialized materialized)
        {
            // Indexed loops here: no iterator to allocate where the JIT does not inline this method.
            for (int i = 0, n = materialized.locations().size(); i < n; i++)
            {
                final PartitionLocation location = materialized.locations().get(i);
                final Set<CacheKey> keys = keysByExecutor.get(location.executorId());
                if (keys != null && keys.remove(key) && keys.isEmpty())
                {
                    keysByExecutor.remove(location.executorId());
                }
            }
            for (final StageRef stage : materialized.stages())
            {
                final Integer count = pinCounts.get(stage);
                pinCounts = count == null || count <= 1 ? pinCounts.remove(stage) : pinCounts.put(stage, count - 1);
            }
            totalBytes -= materialized.totalBytes();
            pinned = pinCounts.keySet();
            pinVersion++;
        }
        if (notify)
        {
            listener.onRemoved(key, removed);
        }
        return removed;
    }

    private static final class SessionIndex
    {
        private final Set<CacheKey> keys = new HashSet<>();
        private long lastActivityMs;

        private SessionIndex(final long now)
        {
            lastActivityMs = now;
        }
    }
}
