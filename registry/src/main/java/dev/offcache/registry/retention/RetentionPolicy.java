package dev.offcache.registry.retention;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.CacheStateMachine;
import dev.offcache.registry.state.Materialized;
import dev.offcache.registry.state.RemovedEntry;

/**
 * What the eviction sweep removes, read like a sentence:
 * {@code RetentionPolicy.none().expireAfterMaterialized(ttlMs).maxTotalBytes(cap).expireIdleSessionsAfter(idleMs)}.
 * A zero (or {@link Long#MAX_VALUE}) limit disables that rule. Immutable.
 *
 * <p>A sweep applies, in order: idle-session expiry (every entry of a session idle for longer than the limit, via
 * {@code removeSession}); TTL (materialized entries older than the limit, via {@code invalidate}); the byte cap
 * (oldest materialized entries first, via {@code invalidate}, until the total is within the cap). It never removes
 * any other way, so removed entries reach unpinning like any other removal.
 *
 * @param ttlMs                 time since materialization after which an entry is removed; 0 disables.
 * @param maxTotalBytes         cap on the total bytes of materialized output; 0 disables.
 * @param idleSessionTimeoutMs  time without activity after which a session's entries are removed; 0 disables.
 */
public record RetentionPolicy(long ttlMs, long maxTotalBytes, long idleSessionTimeoutMs)
{
    /**
     * Validates the limits.
     *
     * @throws IllegalArgumentException when a limit is negative.
     */
    public RetentionPolicy
    {
        requireNotNegative(ttlMs, "ttlMs");
        requireNotNegative(maxTotalBytes, "maxTotalBytes");
        requireNotNegative(idleSessionTimeoutMs, "idleSessionTimeoutMs");
    }

    /**
     * A policy that removes nothing.
     *
     * @return the empty policy.
     */
    public static RetentionPolicy none()
    {
        return new RetentionPolicy(0, 0, 0);
    }

    /**
     * This policy with a TTL.
     *
     * @param ttlMs time since materialization, ms; 0 disables.
     * @return a new policy.
     */
    public RetentionPolicy expireAfterMaterialized(final long ttlMs)
    {
        return new RetentionPolicy(ttlMs, maxTotalBytes, idleSessionTimeoutMs);
    }

    /**
     * This policy with a byte cap.
     *
     * @param maxTotalBytes cap on materialized bytes; 0 disables.
     * @return a new policy.
     */
    public RetentionPolicy maxTotalBytes(final long maxTotalBytes)
    {
        return new RetentionPolicy(ttlMs, maxTotalBytes, idleSessionTimeoutMs);
    }

    /**
     * This policy with idle-session expiry.
     *
     * @param idleSessionTimeoutMs time without activity, ms; 0 disables.
     * @return a new policy.
     */
    public RetentionPolicy expireIdleSessionsAfter(final long idleSessionTimeoutMs)
    {
        return new RetentionPolicy(ttlMs, maxTotalBytes, idleSessionTimeoutMs);
    }

    /**
     * Whether any rule is enabled.
     *
     * @return true when a sweep can remove something.
     */
    public boolean isEnabled()
    {
        return ttlMs > 0 || maxTotalBytes > 0 || idleSessionTimeoutMs > 0;
    }

    /**
     * Runs one sweep on the registry thread.
     *
     * @param state the state machine (only its {@code invalidate} and {@code removeSession} are used to remove).
     * @param nowMs the current time, epoch ms.
     * @return every entry removed, in removal order.
     */
    public List<RemovedEntry> sweep(final CacheStateMachine state, final long nowMs)
    {
        final List<RemovedEntry> removed = new ArrayList<>();
        if (idleSessionTimeoutMs > 0)
        {
            final List<String> idle = new ArrayList<>();
            state.forEachSession((sessionId, lastActivityMs) ->
            {
                if (nowMs - lastActivityMs >= idleSessionTimeoutMs)
                {
                    idle.add(sessionId);
                }
            });
            idle.sort(Comparator.naturalOrder());
            for (final String sessionId : idle)
            {
                removed.addAll(state.removeSession(sessionId));
            }
        }
        if (ttlMs > 0 || (maxTotalBytes > 0 && state.totalBytes() > maxTotalBytes))
        {
            final List<Candidate> candidates = new ArrayList<>();
            state.forEachEntry((key, entry) ->
            {
                if (entry instanceof Materialized materialized)
                {
                    candidates.add(new Candidate(key, materialized));
                }
            });
            // Oldest first, key order breaking ties, so a sweep is deterministic for a given state and time.
            candidates.sort(Comparator.comparingLong((Candidate c) -> c.entry.materializedAtMs())
                .thenComparing(c -> c.key.sessionId()).thenComparing(c -> c.key.cacheId()));
            for (final Candidate candidate : candidates)
            {
                final boolean expired = ttlMs > 0 && nowMs - candidate.entry.materializedAtMs() >= ttlMs;
                final boolean overCap = maxTotalBytes > 0 && state.totalBytes() > maxTotalBytes;
                if (!expired && !overCap)
                {
                    break;
                }
                removed.addAll(state.invalidate(candidate.key));
            }
        }
        return removed;
    }

    private static void requireNotNegative(final long value, final String name)
    {
        if (value < 0)
        {
            throw new IllegalArgumentException(name + " must not be negative: " + value);
        }
    }

    private record Candidate(CacheKey key, Materialized entry)
    {
    }
}
