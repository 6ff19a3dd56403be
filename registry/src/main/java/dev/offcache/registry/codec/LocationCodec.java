package dev.offcache.registry.codec;

import java.util.ArrayList;
import java.util.List;

import org.agrona.MutableDirectBuffer;

import dev.offcache.registry.state.PartitionLocation;

/**
 * The bytes of a list of partition locations, the same in every registry format (journal records, snapshots,
 * cluster commands, replies and snapshots), little-endian, strings as {@code length:int32 utf8}:
 *
 * <pre>
 *   locations := WITH_CRC:int32 count:int32 location*        (written)
 *              | count:int32 legacyLocation*                 (read: records written before CRCs were recorded)
 *   location  := executorId jobId stageId:int32 partitionId:int32 path length:int64 crc32c:int64
 *   legacyLocation := executorId jobId stageId:int32 partitionId:int32 path length:int64
 * </pre>
 *
 * {@link #WITH_CRC} is negative, where the legacy format had its (never negative) count, so both decode from the
 * same place; a legacy location reads with {@link PartitionLocation#NO_CRC}, and an older reader refuses the new
 * format as an implausible count. Holds nothing: writes into and reads from its callers' buffers.
 */
public final class LocationCodec
{
    /**
     * The format tag that starts a location list with CRCs.
     */
    public static final int WITH_CRC = -2;

    /**
     * The bytes a list's header takes (format tag and count).
     */
    public static final int HEADER_BYTES = 2 * Integer.BYTES;

    private LocationCodec()
    {
    }

    /**
     * Writes a location list.
     *
     * @param buffer    where (an expandable buffer grows as needed).
     * @param offset    first byte written.
     * @param locations the locations.
     * @return the number of bytes written.
     */
    public static int encode(
        final MutableDirectBuffer buffer, final int offset, final List<PartitionLocation> locations)
    {
        int position = offset;
        buffer.putInt(position, WITH_CRC);
        buffer.putInt(position + Integer.BYTES, locations.size());
        position += 2 * Integer.BYTES;
        for (final PartitionLocation location : locations)
        {
            position += buffer.putStringUtf8(position, location.executorId());
            position += buffer.putStringUtf8(position, location.jobId());
            buffer.putInt(position, location.stageId());
            buffer.putInt(position + Integer.BYTES, location.partitionId());
            position += 2 * Integer.BYTES;
            position += buffer.putStringUtf8(position, location.path());
            buffer.putLong(position, location.length());
            buffer.putLong(position + Long.BYTES, location.crc32c());
            position += 2 * Long.BYTES;
        }
        return position - offset;
    }

    /**
     * Reads a location list in either format.
     *
     * @param reader positioned at the list.
     * @return the locations.
     * @throws IllegalArgumentException when the bytes are not a location list (or a location is invalid).
     */
    public static List<PartitionLocation> decode(final FieldReader reader)
    {
        final boolean withCrc = reader.peekInt() == WITH_CRC;
        if (withCrc)
        {
            reader.skip(Integer.BYTES);
        }
        final int count = reader.count();
        final List<PartitionLocation> locations = new ArrayList<>(count);
        for (int i = 0; i < count; i++)
        {
            final String executorId = reader.getString();
            final String jobId = reader.getString();
            final int stageId = reader.getInt();
            final int partitionId = reader.getInt();
            final String path = reader.getString();
            final long length = reader.getLong();
            final long crc32c = withCrc ? reader.getLong() : PartitionLocation.NO_CRC;
            locations.add(new PartitionLocation(executorId, jobId, stageId, partitionId, path, length, crc32c));
        }
        return locations;
    }

    /**
     * An upper bound of the encoded size of one location, without encoding it.
     *
     * @param location the location.
     * @return the bound in bytes.
     */
    public static long maxBytes(final PartitionLocation location)
    {
        return maxStringBytes(location.executorId()) + maxStringBytes(location.jobId()) +
            maxStringBytes(location.path()) + 2L * Integer.BYTES + 2L * Long.BYTES;
    }

    private static long maxStringBytes(final String value)
    {
        return Integer.BYTES + 3L * value.length();
    }
}
