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
    private final AtomicLong open = new AtomicLong();

    private PartitionOpener(final Context ctx)
    {
        this.counters =
            ctx.countersManager == null ? new ReadBackCounters() : new ReadBackCounters(ctx.countersManager);
        this.placement = PartitionReadBack.placement(ctx.executorId, ctx.store);
        this.readBack = new PartitionReadBack(placement, ctx.remoteExecutors, ctx.fetchTimeoutNs, ctx.verifyLocal,
            counters, ctx.poolBytes, FetchFailureListener.NONE);
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
        counters.close();
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
        private CountersManager countersManager;

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
