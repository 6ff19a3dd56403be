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
    int limit;

    JournalSegment(final Path path, final long basePosition, final int capacity, final MappedRegion region)
    {
        this.path = path;
        this.basePosition = basePosition;
        this.capacity = capacity;
        this.region = region;
        region.wrap(buffer, 0, capacity);
        this.limit = JournalFormat.HEADER_LENGTH;
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
