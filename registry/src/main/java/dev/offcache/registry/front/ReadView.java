package dev.offcache.registry.front;

import java.util.Set;
import java.util.concurrent.CompletableFuture;

import dev.offcache.registry.api.Acquisition;
import dev.offcache.registry.api.Resolution;
import dev.offcache.registry.persistent.HashTrie;
import dev.offcache.registry.state.CacheEntry;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.CacheStateMachine;
import dev.offcache.registry.state.LiveExecutors;
import dev.offcache.registry.state.Materialized;
import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.registry.state.StageRef;

/**
 * An immutable picture of the registry after one batch: every entry and the pinned stages, as the writer left them
 * once the batch was durable. The writer publishes a new one through a volatile reference at the end of every batch,
 * before it completes the batch's futures, so reads ({@code lookup}, a hit through {@code acquire},
 * {@code isPinned}) never wait behind the ring and a caller whose change was acknowledged reads a view that holds
 * it. Both maps are persistent tries: a new view shares every untouched node with the one before, and a read
 * allocates nothing (each entry carries the completed futures every reader of it gets).
 */
final class ReadView
{
    static final CompletableFuture<CacheEntry> MISS = new CompletedFuture<>(null);
    static final CompletableFuture<Resolution> NOT_PENDING =
        new CompletedFuture<>(new Resolution.Released(Resolution.Reason.NOT_PENDING));

    final HashTrie<CacheKey, Entry> entries;
    final Set<StageRef> pins;
    /** The last ring sequence applied into this view (-1: only what recovery restored). */
    final long through;

    private ReadView(final HashTrie<CacheKey, Entry> entries, final Set<StageRef> pins, final long through)
    {
        this.entries = entries;
        this.pins = pins;
        this.through = through;
    }

    static Builder builder(final CacheStateMachine state)
    {
        final Builder builder = new Builder();
        state.forEachEntry(builder::put);
        return builder;
    }

    /**
     * One entry as readers get it, with the futures they are handed.
     */
    static final class Entry
    {
        final CacheEntry entry;
        final CompletableFuture<CacheEntry> lookup;
        /** The hit an {@code acquire} gets; null for a Pending entry. */
        final CompletableFuture<Acquisition> hit;
        /** Last time (epoch ms) a read was served from a view, for idle-session expiry; 0 for none. */
        private volatile long readAtMs;

        Entry(final CacheEntry entry)
        {
            this.entry = entry;
            this.lookup = new CompletedFuture<>(entry);
            this.hit = entry instanceof Materialized materialized ?
                new CompletedFuture<>(new Acquisition.Hit(materialized)) : null;
        }

        /**
         * Whether the entry may be handed out as it is: Pending, or materialized on live executors only (a dead one
         * is the writer's to invalidate).
         */
        boolean isLive(final LiveExecutors live)
        {
            if (entry instanceof Materialized materialized)
            {
                for (final PartitionLocation location : materialized.locations())
                {
                    if (!live.isLive(location.executorId()))
                    {
                        return false;
                    }
                }
            }
            return true;
        }

        void recordRead(final long nowMs)
        {
            if (nowMs > readAtMs)
            {
                readAtMs = nowMs;
            }
        }
    }

    /**
     * The writer's side: follows every change as it is applied and builds the next view at the end of the batch.
     * Single-threaded (the writer's).
     */
    static final class Builder
    {
        private HashTrie<CacheKey, Entry> entries = HashTrie.empty();

        void put(final CacheKey key, final CacheEntry entry)
        {
            entries = entries.put(key, new Entry(entry));
        }

        void remove(final CacheKey key)
        {
            entries = entries.remove(key);
        }

        ReadView build(final Set<StageRef> pins, final long through)
        {
            return new ReadView(entries, pins, through);
        }

        /**
         * Hands the times of reads served from views to the state machine's session activity (before a sweep
         * decides which sessions are idle).
         */
        void foldReadActivity(final CacheStateMachine state)
        {
            entries.forEach((key, entry) ->
            {
                final long readAtMs = entry.readAtMs;
                if (readAtMs > 0)
                {
                    state.recordActivity(key.sessionId(), readAtMs);
                }
            });
        }
    }
}
