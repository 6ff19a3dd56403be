package dev.offcache.dataset;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.offcache.core.region.MappedRegion;
import dev.offcache.core.shuffle.MappedPartition;
import dev.offcache.core.shuffle.PartitionId;
import dev.offcache.core.shuffle.ShufflePartitionStore;
import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.transport.client.PayloadClient;
import dev.offcache.transport.source.ShufflePartitionSource;

/**
 * Reads a dataset's partitions with locality: a partition on an executor the {@link ReadPlacement} reads locally is
 * mapped read-only from the file its location names (zero copy, checked to hold that partition and the CRC32C the
 * registry recorded, and by default its data CRC32C verified); any other is fetched over Aeron from its executor's
 * payload server (which checks the same before sending) into an anonymous off-heap region. Either every partition is
 * read or a {@link FetchFailedException} names the first one that could not be, and nothing stays mapped; every
 * partition that could not be read is told to the {@link FetchFailureListener}.
 *
 * <p>The regions remote partitions land in are kept for reuse once a read-back is closed (power-of-two sizes, at
 * most {@code poolBytes} idle in total), so a warm action maps nothing new; {@link #close()} unmaps them.
 */
public final class PartitionReadBack implements AutoCloseable
{
    /**
     * Default cap on the bytes of idle fetch regions kept for reuse.
     */
    public static final long DEFAULT_POOL_BYTES = 256L * 1024 * 1024;

    private static final Logger LOG = LoggerFactory.getLogger(PartitionReadBack.class);

    private final ReadPlacement defaultPlacement;
    private final RemoteExecutors remote;
    private final long fetchTimeoutNs;
    private final boolean verifyLocal;
    private final ReadBackCounters counters;
    private final long poolBytes;
    private final FetchFailureListener failureListener;
    private final ConcurrentLinkedQueue<MappedRegion> pool = new ConcurrentLinkedQueue<>();
    private final AtomicLong pooled = new AtomicLong();
    private volatile boolean closed;

    /**
     * A read-back for a reader running on {@code localExecutorId} (or on no executor, when null).
     *
     * @param localExecutorId the executor the reader runs on, or null: every partition is then remote.
     * @param localStore      that executor's store (not owned), or null.
     * @param remote          clients of the other executors (not owned).
     * @param fetchTimeoutNs  deadline of one remote fetch.
     * @param verifyLocal     whether to check a local partition's CRC32C before handing it out.
     * @param counters        where local and remote reads are counted.
     */
    public PartitionReadBack(
        final String localExecutorId,
        final ShufflePartitionStore localStore,
        final RemoteExecutors remote,
        final long fetchTimeoutNs,
        final boolean verifyLocal,
        final ReadBackCounters counters)
    {
        this(placement(localExecutorId, localStore), remote, fetchTimeoutNs, verifyLocal, counters,
            DEFAULT_POOL_BYTES, FetchFailureListener.NONE);
    }

    /**
     * A read-back.
     *
     * @param defaultPlacement where {@link #readAll(List)} reads (per-call placements go to
     *                         {@link #readAll(List, ReadPlacement)}).
     * @param remote           clients of the executors (not owned).
     * @param fetchTimeoutNs   deadline of one remote fetch.
     * @param verifyLocal      whether to check a local partition's data CRC32C before handing it out.
     * @param counters         where local and remote reads are counted.
     * @param poolBytes        idle fetch regions kept for reuse, in bytes; 0 unmaps each after use.
     * @param failureListener  told of every partition that could not be read.
     */
    public PartitionReadBack(
        final ReadPlacement defaultPlacement,
        final RemoteExecutors remote,
        final long fetchTimeoutNs,
        final boolean verifyLocal,
        final ReadBackCounters counters,
        final long poolBytes,
        final FetchFailureListener failureListener)
    {
        if (poolBytes < 0)
        {
            throw new IllegalArgumentException("poolBytes must not be negative: " + poolBytes);
        }
        if (defaultPlacement == null || remote == null || counters == null || failureListener == null)
        {
            throw new IllegalArgumentException(
                "placement, remote executors, counters and failure listener must not be null");
        }
        if (fetchTimeoutNs <= 0)
        {
            throw new IllegalArgumentException("fetchTimeoutNs must be positive: " + fetchTimeoutNs);
        }
        this.poolBytes = poolBytes;
        this.defaultPlacement = defaultPlacement;
        this.remote = remote;
        this.fetchTimeoutNs = fetchTimeoutNs;
        this.verifyLocal = verifyLocal;
        this.counters = counters;
        this.failureListener = failureListener;
    }

    /**
     * The placement of a reader on {@code executorId} with that executor's store, or on no executor.
     *
     * @param executorId the executor, or null.
     * @param store      its store, or null.
     * @return the placement.
     */
    static ReadPlacement placement(final String executorId, final ShufflePartitionStore store)
    {
        if ((executorId == null) != (store == null))
        {
            throw new IllegalArgumentException("localExecutorId and localStore must both be set or both be null");
        }
        return executorId == null ? ReadPlacement.remoteOnly() : ReadPlacement.onExecutor(executorId, store);
    }

    /**
     * Reads every partition where the default placement says.
     *
     * @param locations the dataset's locations.
     * @return the views, owned by the caller (close them).
     * @throws FetchFailedException naming the first partition that could not be read.
     */
    public PartitionViews readAll(final List<PartitionLocation> locations)
    {
        return readAll(locations, defaultPlacement);
    }

    /**
     * Reads every partition: locally those of the executors the placement names, the others over Aeron.
     *
     * @param locations the dataset's locations.
     * @param placement where this read runs.
     * @return the views, owned by the caller (close them).
     * @throws FetchFailedException naming the first partition that could not be read.
     */
    public PartitionViews readAll(final List<PartitionLocation> locations, final ReadPlacement placement)
    {
        final PartitionViews views = new PartitionViews(locations);
        @SuppressWarnings({"unchecked", "rawtypes"})
        final CompletableFuture<Long>[] fetches = new CompletableFuture[locations.size()];
        FetchFailedException failure = null;
        try
        {
            // Remote fetches first, so they run while local partitions are mapped and verified.
            for (int i = 0; i < locations.size() && failure == null; i++)
            {
                final PartitionLocation location = locations.get(i);
                if (placement.localStore(location.executorId()) == null)
                {
                    fetches[i] = fetchRemote(views, i, location);
                }
            }
            for (int i = 0; i < locations.size() && failure == null; i++)
            {
                final PartitionLocation location = locations.get(i);
                final ShufflePartitionStore store = placement.localStore(location.executorId());
                if (store != null)
                {
                    readLocal(views, i, location, store);
                }
            }
        }
        catch (final FetchFailedException ex)
        {
            failure = ex;
            tell(ex);
        }
        // Every fetch in flight writes into a region of the views: wait for all of them (they end by their
        // deadline at the latest) before anything is unmapped.
        for (int i = 0; i < fetches.length; i++)
        {
            if (fetches[i] != null)
            {
                try
                {
                    awaitFetch(fetches[i], locations.get(i));
                }
                catch (final FetchFailedException ex)
                {
                    tell(ex);
                    if (failure == null)
                    {
                        failure = ex;
                    }
                }
            }
        }
        if (failure != null)
        {
            views.close();
            throw failure;
        }
        return views;
    }

    private void tell(final FetchFailedException failure)
    {
        try
        {
            failureListener.onFetchFailure(failure.location(), failure.getCause());
        }
        catch (final RuntimeException ex)
        {
            LOG.warn("fetch failure listener failed on {}", failure.location(), ex);
        }
    }

    private void readLocal(
        final PartitionViews views, final int i, final PartitionLocation location, final ShufflePartitionStore store)
    {
        final MappedPartition partition;
        try
        {
            // The recorded path, checked (by the footer) to hold this partition, whatever the reader's store root.
            partition = store.openPartition(location.partition(), Path.of(location.path()));
        }
        catch (final RuntimeException ex)
        {
            throw new FetchFailedException(location, ex);
        }
        try
        {
            if (partition.length() > MappedRegion.MAPPING_SIZE)
            {
                throw new IllegalStateException("partitions larger than " + MappedRegion.MAPPING_SIZE +
                    " bytes are not supported");
            }
            if (partition.length() != location.length())
            {
                throw new IllegalStateException("local file holds " + partition.length() + " bytes, the registry " +
                    "recorded " + location.length());
            }
            if (location.hasCrc() && Integer.toUnsignedLong(partition.crc32c()) != location.crc32c())
            {
                throw new IllegalStateException(String.format("local file's data CRC32C is %08x, the registry " +
                    "recorded %08x (another write of the partition)", partition.crc32c(), location.crc32c()));
            }
            if (verifyLocal)
            {
                partition.verify();
            }
            views.setLocal(i, partition);
        }
        catch (final RuntimeException ex)
        {
            partition.close();
            throw new FetchFailedException(location, ex);
        }
        counters.localPartitionReads.increment();
        counters.localBytes.getAndAdd(location.length());
    }

    private CompletableFuture<Long> fetchRemote(
        final PartitionViews views, final int i, final PartitionLocation location)
    {
        final PayloadClient client = remote.clientFor(location.executorId());
        if (client == null)
        {
            throw new FetchFailedException(location, new IllegalStateException("no client for the executor"));
        }
        if (location.length() > MappedRegion.MAPPING_SIZE)
        {
            throw new FetchFailedException(location, new IllegalStateException(
                "remote partitions larger than " + MappedRegion.MAPPING_SIZE + " bytes are not supported"));
        }
        final int length = (int) location.length();
        final MappedRegion region = length == 0 ? null : takeRegion(length);
        final UnsafeBuffer destination = views.setRemote(i, region, length, region == null ? null :
            () -> giveBack(region));
        try
        {
            final PartitionId id = location.partition();
            // The server refuses a file whose data CRC is not the one the registry recorded.
            final String transportId = location.hasCrc() ?
                ShufflePartitionSource.idOf(id, (int) location.crc32c()) : ShufflePartitionSource.idOf(id);
            return client.fetch(transportId, 0, length, destination, 0, fetchTimeoutNs);
        }
        catch (final RuntimeException ex)
        {
            throw new FetchFailedException(location, ex);
        }
    }

    private void awaitFetch(final CompletableFuture<Long> fetch, final PartitionLocation location)
    {
        final long received;
        try
        {
            // Not interruptible on purpose: the destination must not be unmapped while the fetch may write to it.
            received = fetch.join();
        }
        catch (final CompletionException | CancellationException ex)
        {
            throw new FetchFailedException(location, ex.getCause() != null ? ex.getCause() : ex);
        }
        if (received != location.length())
        {
            throw new FetchFailedException(location, new IllegalStateException(
                "received " + received + " bytes, the registry recorded " + location.length()));
        }
        counters.remotePartitionReads.increment();
        counters.remoteBytes.getAndAdd(received);
    }

    /**
     * Unmaps the pooled regions; regions of read-backs still open are unmapped when those close.
     */
    public void close()
    {
        closed = true;
        MappedRegion region;
        while ((region = pool.poll()) != null)
        {
            pooled.addAndGet(-region.capacity());
            region.close();
        }
    }

    private MappedRegion takeRegion(final int length)
    {
        for (final MappedRegion region : pool)
        {
            if (region.capacity() >= length && pool.remove(region))
            {
                pooled.addAndGet(-region.capacity());
                return region;
            }
        }
        final long size = Math.max(MappedRegion.PAGE_ALIGNMENT, Long.highestOneBit(length - 1L) << 1);
        return MappedRegion.anonymous(Math.min(size, MappedRegion.MAPPING_SIZE));
    }

    private void giveBack(final MappedRegion region)
    {
        if (!closed && pooled.addAndGet(region.capacity()) <= poolBytes)
        {
            pool.add(region);
            if (closed && pool.remove(region))
            {
                pooled.addAndGet(-region.capacity());
                region.close();
            }
            return;
        }
        if (!closed)
        {
            pooled.addAndGet(-region.capacity());
        }
        region.close();
    }
}
