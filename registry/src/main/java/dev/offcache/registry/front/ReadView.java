package dev.offcache.registry.front;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

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
 * allocates nothing (each entry carries the completed futures every reader of it gets, made once).
 */
final class ReadView
{
    static final CompletableFuture<CacheEntry> MISS = new CompletedFuture<>(null);
    static final CompletableFuture<Resolution> NOT_PENDING =
        new CompletedFuture<>(new Resolution.Released(Resolution.Reason.NOT_PENDING));

    final HashTrie<CacheKey, Entry> entries;
    final Set<StageRef> pins;
    /** The ring sequence up to which every published command is applied in this view (-1 for none). */
    final long through;
    /** The position of the last command applied into this view in the writer's order (-1 for none). */
    final long lastApplied;

    private ReadView(
        final HashTrie<CacheKey, Entry> entries, final Set<StageRef> pins, final long through, final long lastApplied)
    {
        this.entries = entries;
        this.pins = pins;
        this.through = through;
        this.lastApplied = lastApplied;
    }

    static Builder builder(final CacheStateMachine state)
    {
        final Builder builder = new Builder();
        state.forEachEntry(builder::put);
        return builder;
    }

    /**
     * One entry as readers get it, with the futures they are handed: made by the first reader that needs one and
     * published with a CAS, so every later reader of the entry gets the same instance and allocates nothing.
     */
    static final class Entry
    {
        private static final VarHandle LOOKUP;
        private static final VarHandle HIT;
        private static final VarHandle READY;

        static
        {
            try
            {
                final MethodHandles.Lookup lookup = MethodHandles.lookup();
                LOOKUP = lookup.findVarHandle(Entry.class, "lookup", CompletableFuture.class);
                HIT = lookup.findVarHandle(Entry.class, "hit", CompletableFuture.class);
                READY = lookup.findVarHandle(Entry.class, "ready", CompletableFuture.class);
            }
            catch (final ReflectiveOperationException ex)
            {
                throw new ExceptionInInitializerError(ex);
            }
        }

        final CacheEntry entry;
        /** The materialized entry, or null for a Pending one. */
        final Materialized materialized;
        private volatile CompletableFuture<CacheEntry> lookup;
        private volatile CompletableFuture<Acquisition> hit;
        private volatile CompletableFuture<Resolution> ready;
        /** Last time (epoch ms) a read was served from a view, for idle-session expiry; 0 for none. */
        private volatile long readAtMs;

        Entry(final CacheEntry entry)
        {
            this.entry = entry;
            this.materialized = entry instanceof Materialized m ? m : null;
        }

        /**
         * What a lookup of the entry returns.
         */
        CompletableFuture<CacheEntry> lookup()
        {
            final CompletableFuture<CacheEntry> made = lookup;
            return made != null ? made : once(LOOKUP, (e) -> e.entry);
        }

        /**
         * What an acquire of the (materialized) entry returns.
         */
        CompletableFuture<Acquisition> hit()
        {
            final CompletableFuture<Acquisition> made = hit;
            return made != null ? made : once(HIT, (e) -> new Acquisition.Hit(e.materialized));
        }

        /**
         * What an await of the (materialized) entry returns.
         */
        CompletableFuture<Resolution> ready()
        {
            final CompletableFuture<Resolution> made = ready;
            return made != null ? made : once(READY, (e) -> new Resolution.Ready(e.materialized));
        }

        /** Makes the future a field holds and publishes it with a CAS; a racing reader's wins, so one is handed out. */
        @SuppressWarnings("unchecked")
        private <T> CompletableFuture<T> once(final VarHandle field, final Function<Entry, T> answer)
        {
            final CompletableFuture<T> mine = new CompletedFuture<>(answer.apply(this));
            final Object witness = field.compareAndExchange(this, null, mine);
            return witness == null ? mine : (CompletableFuture<T>) witness;
        }

        /**
         * Whether the entry may be handed out as it is: Pending, or materialized on live executors only (a dead one
         * is the writer's to invalidate).
         */
        boolean isLive(final LiveExecutors live)
        {
            if (materialized != null)
            {
                // indexed: an iterator would be the one object a hit allocates (the list is an immutable copy)
                final List<PartitionLocation> locations = materialized.locations();
                for (int i = 0, n = locations.size(); i < n; i++)
                {
                    if (!live.isLive(locations.get(i).executorId()))
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

        ReadView build(final Set<StageRef> pins, final long through, final long lastApplied)
        {
            return new ReadView(entries, pins, through, lastApplied);
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
