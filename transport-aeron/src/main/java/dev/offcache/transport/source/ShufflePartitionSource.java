package dev.offcache.transport.source;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import dev.offcache.core.region.MappedRegion;
import dev.offcache.core.shuffle.CorruptPartitionException;
import dev.offcache.core.shuffle.MappedPartition;
import dev.offcache.core.shuffle.PartitionId;
import dev.offcache.core.shuffle.PartitionNotFoundException;
import dev.offcache.core.shuffle.ShufflePartitionStore;
import dev.offcache.transport.wire.ErrorCode;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Serves committed shuffle partitions of a {@link ShufflePartitionStore}. Ids are {@code jobId/stageId/partitionId}
 * (see {@link #idOf(PartitionId)}). Each open maps the partition read-only and, unless switched off, verifies its
 * CRC32C <em>before</em> the first byte is sent, so a corrupt partition is answered with
 * {@link ErrorCode#CORRUPT} and none of its bytes reach the client. The mapping is owned by the handle and unmapped
 * on release (a partition deleted while being served stays readable until then). Not-found ids that this source
 * served before are answered {@link ErrorCode#DELETED}, others {@link ErrorCode#NOT_FOUND}.
 *
 * <p>{@link #open} is called from the server's duty-cycle thread only; it is not meant to be shared by servers.
 */
public final class ShufflePartitionSource implements BlockSource
{
    private static final int REMEMBERED_SERVED_IDS = 4096;

    private final ShufflePartitionStore store;
    private final boolean verifyOnOpen;
    private final AtomicInteger openHandles = new AtomicInteger();
    private final Map<String, Boolean> served = new LinkedHashMap<>(64, 0.75f, true)
    {
        private static final long serialVersionUID = 1L;

        protected boolean removeEldestEntry(final Map.Entry<String, Boolean> eldest)
        {
            return size() > REMEMBERED_SERVED_IDS;
        }
    };

    /**
     * A source that verifies every partition's CRC32C before serving it.
     *
     * @param store the store to serve from (not owned).
     */
    public ShufflePartitionSource(final ShufflePartitionStore store)
    {
        this(store, true);
    }

    /**
     * A source over a store.
     *
     * @param store        the store to serve from (not owned).
     * @param verifyOnOpen true to check the CRC32C of every partition before sending any of it.
     */
    public ShufflePartitionSource(final ShufflePartitionStore store, final boolean verifyOnOpen)
    {
        if (store == null)
        {
            throw new IllegalArgumentException("store must not be null");
        }
        this.store = store;
        this.verifyOnOpen = verifyOnOpen;
    }

    /**
     * The transport id of a partition.
     *
     * @param id the partition.
     * @return {@code jobId/stageId/partitionId}.
     */
    public static String idOf(final PartitionId id)
    {
        return id.jobId() + "/" + id.stageId() + "/" + id.partitionId();
    }

    /**
     * Parse a transport id.
     *
     * @param id {@code jobId/stageId/partitionId}.
     * @return the partition id.
     * @throws IllegalArgumentException naming what is wrong.
     */
    public static PartitionId parseId(final String id)
    {
        final int second = id.lastIndexOf('/');
        final int first = second > 0 ? id.lastIndexOf('/', second - 1) : -1;
        if (first <= 0)
        {
            throw new IllegalArgumentException("partition id must be jobId/stageId/partitionId: '" + id + "'");
        }
        try
        {
            return new PartitionId(id.substring(0, first), Integer.parseInt(id.substring(first + 1, second)),
                Integer.parseInt(id.substring(second + 1)));
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("partition id must be jobId/stageId/partitionId: '" + id + "'", ex);
        }
    }

    /**
     * Handles opened and not yet released (for leak checks).
     *
     * @return the count.
     */
    public int openHandles()
    {
        return openHandles.get();
    }

    /**
     * {@inheritDoc}
     */
    public BlockHandle open(final DirectBuffer idBuffer, final int idOffset, final int idLength)
        throws BlockSourceException
    {
        final String id = idBuffer.getStringWithoutLengthAscii(idOffset, idLength);
        final PartitionId partitionId;
        try
        {
            partitionId = parseId(id);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new BlockSourceException(ErrorCode.BAD_REQUEST, ex.getMessage());
        }

        final MappedPartition partition;
        try
        {
            partition = store.openPartition(partitionId);
        }
        catch (final PartitionNotFoundException ex)
        {
            if (served.containsKey(id))
            {
                throw new BlockSourceException(ErrorCode.DELETED, "shuffle partition " + id + " was deleted");
            }
            throw new BlockSourceException(ErrorCode.NOT_FOUND, "no shuffle partition " + id);
        }
        catch (final CorruptPartitionException ex)
        {
            throw new BlockSourceException(ErrorCode.CORRUPT, "shuffle partition " + id + ": " + ex.getMessage());
        }

        try
        {
            if (verifyOnOpen)
            {
                partition.verify();
            }
        }
        catch (final CorruptPartitionException ex)
        {
            partition.close();
            throw new BlockSourceException(ErrorCode.CORRUPT, "shuffle partition " + id + ": " + ex.getMessage());
        }
        catch (final RuntimeException ex)
        {
            partition.close();
            throw ex;
        }
        served.put(id, Boolean.TRUE);
        openHandles.incrementAndGet();
        return new Handle(partition);
    }

    private final class Handle implements BlockHandle
    {
        private final MappedPartition partition;
        private boolean released;

        Handle(final MappedPartition partition)
        {
            this.partition = partition;
        }

        public long length()
        {
            return partition.length();
        }

        public void wrap(final UnsafeBuffer target, final long offset, final int length)
        {
            partition.wrap(target, offset, length);
        }

        public int contiguousLength(final long offset, final int maxLength)
        {
            // a view never spans two of the region's 1 GiB mappings
            final long toBoundary = MappedRegion.MAPPING_SIZE - (offset & (MappedRegion.MAPPING_SIZE - 1));
            return (int) Math.min(maxLength, toBoundary);
        }

        public void release()
        {
            if (released)
            {
                throw new IllegalStateException("partition handle released twice");
            }
            released = true;
            partition.close();
            openHandles.decrementAndGet();
        }
    }
}
