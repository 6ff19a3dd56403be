package dev.offcache.dataset;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.status.CountersManager;

import dev.offcache.core.config.ConcludeOnce;
import dev.offcache.core.shuffle.ShufflePartitionStore;
import dev.offcache.registry.state.Ids;
import dev.offcache.registry.state.PartitionLocation;

/**
 * The executor's half of the {@code df.cache()} flow: opens one partition of a materialization inside the task that
 * reads it. A partition this executor holds is mapped read-only from the file its location names (zero copy; the
 * footer must name that partition, the data CRC32C must be the one the registry recorded and, by default, the bytes
 * are verified against it); any other is fetched from its executor's payload server into an off-heap region (the
 * server checks the same before the first byte). Both are counted, local and remote apart. A partition that cannot
 * be opened is a {@link FetchFailedException}: the task tells the driver ({@link DatasetResolver#readFailed}) and
 * recomputes it from the lineage.
 *
 * <p>Each {@link Opened} owns its mapping or region until {@link Opened#close()} (a task's completion); fetch
 * regions go back to a pool for the next task. {@link #openCount()} counts partitions opened and not yet closed.
 * Owns the pool only; the store and the payload clients belong to the executor.
 */
public final class PartitionOpener implements AutoCloseable
{
    private final PartitionReadBack readBack;
    private final ReadPlacement placement;
    private final ReadBackCounters counters;
    private final boolean ownsCounters;
    private final AtomicLong open = new AtomicLong();

    private PartitionOpener(final Context ctx)
    {
        this.ownsCounters = ctx.counters == null;
        this.counters = ctx.counters != null ? ctx.counters :
            ctx.countersManager == null ? new ReadBackCounters() : new ReadBackCounters(ctx.countersManager);
        this.placement = PartitionReadBack.placement(ctx.executorId, ctx.store);
        this.readBack = new PartitionReadBack(placement, ctx.remoteExecutors, ctx.fetchTimeoutNs, ctx.verifyLocal,
            counters, ctx.poolBytes, ctx.fetchFailureListener);
    }

    /**
     * Starts an opener.
     *
     * @param ctx the configuration; concluded here.
     * @return the opener.
     */
    public static PartitionOpener launch(final Context ctx)
    {
        return new PartitionOpener(ctx.conclude());
    }

    /**
     * Opens one partition: mapped when this executor holds it, fetched otherwise.
     *
     * @param location where the registry recorded it.
     * @return the partition's bytes, owned by the caller until closed.
     * @throws FetchFailedException when it cannot be read whole and checked.
     */
    public Opened open(final PartitionLocation location)
    {
        Ids.requireNonNull(location, "location");
        final PartitionViews views = readBack.readAll(List.of(location), placement);
        open.incrementAndGet();
        return new Opened(views, placement.localStore(location.executorId()) != null);
    }

    /**
     * Opens every partition of a materialization at once, for a reader that needs all of them in one process (a
     * single-process engine's query): those of the executors {@code placement} reads locally are mapped, the others
     * fetched concurrently. Either all open or none stays open. Not counted by {@link #openCount()}.
     *
     * @param locations the materialization's locations, in partition order.
     * @param placement where the reader runs ({@link #placement()} for this opener's own executor).
     * @return the partitions' bytes, owned by the caller until closed.
     * @throws FetchFailedException naming the first partition that could not be read.
     */
    public PartitionViews openAll(final List<PartitionLocation> locations, final ReadPlacement placement)
    {
        Ids.requireNonNull(locations, "locations");
        Ids.requireNonNull(placement, "placement");
        return readBack.readAll(locations, placement);
    }

    /**
     * Where this opener reads locally: its executor ({@link Context#on}), or nowhere.
     *
     * @return the placement.
     */
    public ReadPlacement placement()
    {
        return placement;
    }

    /**
     * Partitions opened and not closed yet (a leak when the executor is idle).
     *
     * @return the count.
     */
    public long openCount()
    {
        return open.get();
    }

    /**
     * Local and remote reads (and their bytes) so far.
     *
     * @return the live counters.
     */
    public ReadBackCounters counters()
    {
        return counters;
    }

    /**
     * Unmaps the pooled fetch regions and frees the counters; partitions still open are unmapped when they close.
     */
    public void close()
    {
        readBack.close();
        if (ownsCounters)
        {
            counters.close();
        }
    }

    /**
     * One open partition. Not thread-safe; {@link #close()} is idempotent.
     */
    public final class Opened implements AutoCloseable
    {
        private final PartitionViews views;
        private final boolean local;
        private boolean closed;

        private Opened(final PartitionViews views, final boolean local)
        {
            this.views = views;
            this.local = local;
        }

        /**
         * The partition's bytes, from offset 0 to its length; off-heap ({@link DirectBuffer#addressOffset()} is an
         * address).
         *
         * @return a view valid until {@link #close()}.
         */
        public DirectBuffer buffer()
        {
            return views.buffer(0);
        }

        /**
         * Whether it was mapped from this executor's file (else fetched).
         *
         * @return true when local.
         */
        public boolean isLocal()
        {
            return local;
        }

        /**
         * Unmaps the file or returns the fetch region.
         */
        public void close()
        {
            if (!closed)
            {
                closed = true;
                views.close();
                open.decrementAndGet();
            }
        }
    }

    /**
     * Configuration of a {@link PartitionOpener}: {@code new Context().on(executorId, store).remoteExecutors(c)}.
     */
    public static final class Context
    {
        private final ConcludeOnce concluded = new ConcludeOnce();
        private String executorId;
        private ShufflePartitionStore store;
        private RemoteExecutors remoteExecutors;
        private long fetchTimeoutNs = TimeUnit.SECONDS.toNanos(10);
        private boolean verifyLocal = true;
        private long poolBytes = PartitionReadBack.DEFAULT_POOL_BYTES;
        private FetchFailureListener fetchFailureListener = FetchFailureListener.NONE;
        private CountersManager countersManager;
        private ReadBackCounters counters;

        /**
         * The executor the tasks run on and its store; its partitions are mapped. Default none: every partition is
         * fetched.
         *
         * @param executorId the executor.
         * @param store      its shuffle store (not owned).
         * @return this.
         */
        public Context on(final String executorId, final ShufflePartitionStore store)
        {
            this.executorId = executorId;
            this.store = store;
            return this;
        }

        /**
         * Clients of the other executors' payload servers.
         *
         * @param remoteExecutors the clients (not owned).
         * @return this.
         */
        public Context remoteExecutors(final RemoteExecutors remoteExecutors)
        {
            this.remoteExecutors = remoteExecutors;
            return this;
        }

        /**
         * Deadline of one remote fetch. Default 10 s.
         *
         * @param fetchTimeoutNs the deadline.
         * @return this.
         */
        public Context fetchTimeoutNs(final long fetchTimeoutNs)
        {
            this.fetchTimeoutNs = fetchTimeoutNs;
            return this;
        }

        /**
         * Whether a local partition's bytes are checked against its CRC32C before it is handed out. Default true.
         *
         * @param verifyLocal the switch.
         * @return this.
         */
        public Context verifyLocal(final boolean verifyLocal)
        {
            this.verifyLocal = verifyLocal;
            return this;
        }

        /**
         * Idle fetch regions kept for reuse, in bytes; 0 unmaps each after use. Default 256 MiB.
         *
         * @param poolBytes the cap.
         * @return this.
         */
        public Context poolBytes(final long poolBytes)
        {
            this.poolBytes = poolBytes;
            return this;
        }

        /**
         * Told of every partition that could not be opened (for example, to mark its executor suspect). Default:
         * nothing.
         *
         * @param listener the listener.
         * @return this.
         */
        public Context fetchFailureListener(final FetchFailureListener listener)
        {
            this.fetchFailureListener = listener;
            return this;
        }

        /**
         * Counts into counters another component shares (not owned): the coordinator's one set.
         */
        Context counters(final ReadBackCounters counters)
        {
            this.counters = counters;
            return this;
        }

        /**
         * Where to allocate the read counters. Default: a private manager.
         *
         * @param countersManager the manager (not owned).
         * @return this.
         */
        public Context countersManager(final CountersManager countersManager)
        {
            this.countersManager = countersManager;
            return this;
        }

        /**
         * Validates the configuration.
         *
         * @return this.
         * @throws IllegalArgumentException naming the first missing or bad setting.
         */
        public Context conclude()
        {
            concluded.conclude(this);
            Ids.requireNonNull(remoteExecutors, "remoteExecutors");
            Ids.requireNonNull(fetchFailureListener, "fetchFailureListener");
            if ((executorId == null) != (store == null))
            {
                throw new IllegalArgumentException("executorId and store must both be set or both be null");
            }
            if (fetchTimeoutNs <= 0)
            {
                throw new IllegalArgumentException("fetchTimeoutNs must be positive: " + fetchTimeoutNs);
            }
            if (poolBytes < 0)
            {
                throw new IllegalArgumentException("poolBytes must not be negative: " + poolBytes);
            }
            return this;
        }
    }
}
