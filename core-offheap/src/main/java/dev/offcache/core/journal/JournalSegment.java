package dev.offcache.core.journal;

import java.nio.file.Path;

import org.agrona.concurrent.UnsafeBuffer;

import dev.offcache.core.region.MappedRegion;

/**
 * One mapped segment file: its base position, capacity, where its data ends, and a view over the whole file.
 * Owned by the {@link Journal}; closing it unmaps the file.
 */
final class JournalSegment implements AutoCloseable
{
    final Path path;
    final long basePosition;
    final int capacity;
    final MappedRegion region;
    final UnsafeBuffer buffer = new UnsafeBuffer(0, 0);
    private final UnsafeBuffer scratch = new UnsafeBuffer(new byte[Long.BYTES]);
    int limit;
    /** Offset up to which records are known durable (forced). */
    int durable;
    /** The checkpoint field as it stands in the mapped header (offset and sealed bit), 0 for none. */
    int checkpoint;

    JournalSegment(final Path path, final long basePosition, final int capacity, final MappedRegion region)
    {
        this.path = path;
        this.basePosition = basePosition;
        this.capacity = capacity;
        this.region = region;
        region.wrap(buffer, 0, capacity);
        this.limit = JournalFormat.HEADER_LENGTH;
        this.durable = JournalFormat.HEADER_LENGTH;
    }

    /**
     * Records in the mapped header that the records before {@code acknowledged} were acknowledged (and, when
     * {@code sealed}, that a successor segment exists); written out with the segment's next force.
     */
    void checkpoint(final int acknowledged, final boolean sealed)
    {
        final int value = acknowledged | (sealed ? JournalFormat.SEALED : 0);
        if (value != checkpoint)
        {
            JournalFormat.encodeCheckpoint(buffer, scratch, acknowledged, sealed);
            checkpoint = value;
        }
    }

    long endPosition()
    {
        return basePosition + capacity;
    }

    boolean isEmpty()
    {
        return limit == JournalFormat.HEADER_LENGTH;
    }

    @Override
    public void close()
    {
        region.close();
    }
}
