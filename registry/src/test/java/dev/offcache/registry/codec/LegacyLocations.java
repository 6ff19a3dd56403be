package dev.offcache.registry.codec;

import java.util.List;

import org.agrona.ExpandableArrayBuffer;

import dev.offcache.registry.state.PartitionLocation;

/**
 * Location lists as the version before CRCs wrote them (count, then locations without a CRC), for the tests that
 * check old journals, snapshots and cluster logs still read.
 */
public final class LegacyLocations
{
    private LegacyLocations()
    {
    }

    /**
     * Writes a list at offset 0.
     *
     * @param buffer    where.
     * @param locations the locations (their CRCs are not written).
     * @return the bytes written.
     */
    public static int encode(final ExpandableArrayBuffer buffer, final List<PartitionLocation> locations)
    {
        int position = 0;
        buffer.putInt(position, locations.size());
        position += Integer.BYTES;
        for (final PartitionLocation location : locations)
        {
            position += buffer.putStringUtf8(position, location.executorId());
            position += buffer.putStringUtf8(position, location.jobId());
            buffer.putInt(position, location.stageId());
            buffer.putInt(position + Integer.BYTES, location.partitionId());
            position += 2 * Integer.BYTES;
            position += buffer.putStringUtf8(position, location.path());
            buffer.putLong(position, location.length());
            position += Long.BYTES;
        }
        return position;
    }
}
