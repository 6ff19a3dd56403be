package dev.offcache.transport.source;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import dev.offcache.core.ref.AbstractRefCounted;
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
 * (see {@link #idOf(PartitionId)}), optionally followed by {@code @crc32c} (eight hex digits, see
 * {@link #idOf(PartitionId, int)}): the CRC32C the client expects, for example the one a registry recorded. Each
 * open maps the partition read-only, checks that the file holds that partition (its footer names it) and, when
 * the id carries one, that its CRC32C is the expected one, and unless switched off verifies the data's CRC32C
 * <em>before</em> the first byte is sent, so a corrupt or misplaced partition is answered with
 * {@link ErrorCode#CORRUPT} and none of its bytes reach the client. The mapping is owned by the handle and unmapped
 * on release (a partition deleted while being served stays readable until then). Not-found ids that this source
 * served before are answered {@link ErrorCode#DELETED}, others {@link ErrorCode#NOT_FOUND}.
 *
 * <p>{@link #open} is called from the server's duty-cycle thread only; it is not meant to be shared by servers.
 */
public final class ShufflePartitionSource implements PayloadSource
{
    private static final int REMEMBERED_SERVED_IDS = 4096;
    private static final char CRC_SEPARATOR = '@';
    private static final long NO_EXPECTED_CRC = -1;

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
     * The transport id of a partition whose data must have a given CRC32C: the server refuses
     * ({@link ErrorCode#CORRUPT}) a file with any other.
     *
     * @param id     the partition.
     * @param crc32c the CRC32C of its data the caller expects.
     * @return {@code jobId/stageId/partitionId@crc32c}, the CRC as eight lower-case hex digits.
     */
    public static String idOf(final PartitionId id, final int crc32c)
    {
        return idOf(id) + CRC_SEPARATOR + String.format("%08x", crc32c);
    }

    /**
     * Parse a transport id (the expected CRC32C, if any, is ignored).
     *
     * @param id {@code jobId/stageId/partitionId}, optionally followed by {@code @crc32c}.
     * @return the partition id.
     * @throws IllegalArgumentException naming what is wrong.
     */
    public static PartitionId parseId(final String id)
    {
        final int at = id.indexOf(CRC_SEPARATOR);
        return parsePartition(at < 0 ? id : id.substring(0, at), id);
    }

    private static PartitionId parsePartition(final String id, final String whole)
    {
        final int second = id.lastIndexOf('/');
        final int first = second > 0 ? id.lastIndexOf('/', second - 1) : -1;
        if (first <= 0)
        {
            throw new IllegalArgumentException("partition id must be jobId/stageId/partitionId[@crc32c]: '" + whole +
                "'");
        }
        try
        {
            return new PartitionId(id.substring(0, first), Integer.parseInt(id.substring(first + 1, second)),
                Integer.parseInt(id.substring(second + 1)));
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("partition id must be jobId/stageId/partitionId[@crc32c]: '" + whole +
                "'", ex);
        }
    }

    /**
     * The expected CRC32C an id carries.
     *
     * @return the CRC, or {@code NO_EXPECTED_CRC} when the id has none.
     */
    private static long expectedCrc(final String id)
    {
        final int at = id.indexOf(CRC_SEPARATOR);
        if (at < 0)
        {
            return NO_EXPECTED_CRC;
        }
        final String hex = id.substring(at + 1);
        if (hex.length() != 8)
        {
            throw new IllegalArgumentException("expected CRC32C must be 8 hex digits: '" + id + "'");
        }
        try
        {
            return Long.parseLong(hex, 16);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("expected CRC32C must be 8 hex digits: '" + id + "'", ex);
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
    public PayloadHandle open(final DirectBuffer idBuffer, final int idOffset, final int idLength)
        throws PayloadSourceException
    {
        final String request = idBuffer.getStringWithoutLengthAscii(idOffset, idLength);
        final PartitionId partitionId;
        final long expectedCrc;
        try
        {
            partitionId = parseId(request);
            expectedCrc = expectedCrc(request);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new PayloadSourceException(ErrorCode.BAD_REQUEST, ex.getMessage());
        }
        final String id = idOf(partitionId);

        final MappedPartition partition;
        try
        {
            partition = store.openPartition(partitionId);
        }
        catch (final PartitionNotFoundException ex)
        {
            if (served.containsKey(id))
            {
                throw new PayloadSourceException(ErrorCode.DELETED, "shuffle partition " + id + " was deleted");
            }
            throw new PayloadSourceException(ErrorCode.NOT_FOUND, "no shuffle partition " + id);
        }
        catch (final CorruptPartitionException ex)
        {
            throw new PayloadSourceException(ErrorCode.CORRUPT, "shuffle partition " + id + ": " + ex.getMessage());
        }

        try
        {
            if (expectedCrc != NO_EXPECTED_CRC && partition.crc32c() != (int) expectedCrc)
            {
                partition.close();
                throw new PayloadSourceException(ErrorCode.CORRUPT, String.format("shuffle partition %s holds data " +
                    "with CRC32C %08x, the client expects %08x (another write of the partition)", id,
                    partition.crc32c(), (int) expectedCrc));
            }
            if (verifyOnOpen)
            {
                partition.verify();
            }
        }
        catch (final CorruptPartitionException ex)
        {
            partition.close();
            throw new PayloadSourceException(ErrorCode.CORRUPT, "shuffle partition " + id + ": " + ex.getMessage());
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

    private final class Handle extends AbstractRefCounted implements PayloadHandle
    {
        private final MappedPartition partition;

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

        @Override
        protected void onLastRelease()
        {
            partition.close();
            openHandles.decrementAndGet();
        }

        @Override
        public String toString()
        {
            return "block handle of " + length() + " bytes";
        }
    }
}
