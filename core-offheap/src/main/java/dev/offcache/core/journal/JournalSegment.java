package dev.offcache.core.journal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

import dev.offcache.core.region.MappedRegion;

import static java.nio.ByteOrder.LITTLE_ENDIAN;

/**
 * One segment file: its base position, capacity, where its data ends, a file channel that every write goes through
 * ({@code pwrite}, and {@code fdatasync} to force) and a mapped view over the whole file that reads go through (the
 * page cache is one, so the view sees every write at once). Owned by the {@link Journal}; closing it closes the
 * channel, unmaps the file and frees its 8-byte checkpoint buffer.
 */
final class JournalSegment implements AutoCloseable
{
    final Path path;
    final long basePosition;
    final int capacity;
    final MappedRegion region;
    final FileChannel channel;
    final UnsafeBuffer buffer = new UnsafeBuffer(0, 0);
    private final UnsafeBuffer scratch = new UnsafeBuffer(new byte[Long.BYTES]);
    private final ByteBuffer checkpointBytes = ByteBuffer.allocateDirect(Long.BYTES);
    private final UnsafeBuffer checkpointView = new UnsafeBuffer(checkpointBytes);
    int limit;
    /** Offset up to which records are known durable (forced). */
    int durable;
    /** The checkpoint field as it stands in the header (offset and sealed bit), 0 for none. */
    int checkpoint;

    JournalSegment(
        final Path path, final long basePosition, final int capacity, final MappedRegion region,
        final FileChannel channel)
    {
        this.path = path;
        this.basePosition = basePosition;
        this.capacity = capacity;
        this.region = region;
        this.channel = channel;
        region.wrap(buffer, 0, capacity);
        this.limit = JournalFormat.HEADER_LENGTH;
        this.durable = JournalFormat.HEADER_LENGTH;
    }

    /**
     * Writes into the header that the records before {@code acknowledged} were acknowledged (and, when
     * {@code sealed}, that a successor segment exists), as one aligned 8-byte {@code pwrite}: a killed process
     * leaves all of it or none. Not forced here: it reaches the device with the segment's next force, or with the
     * kernel's writeback.
     */
    void checkpoint(final int acknowledged, final boolean sealed)
    {
        final int value = acknowledged | (sealed ? JournalFormat.SEALED : 0);
        if (value != checkpoint)
        {
            checkpointView.putLong(0, JournalFormat.checkpointWord(
                scratch, buffer.getInt(JournalFormat.HEADER_CRC_OFFSET, LITTLE_ENDIAN),
                acknowledged, sealed), LITTLE_ENDIAN);
            write(checkpointBytes.clear(), JournalFormat.CHECKPOINT_OFFSET);
            checkpoint = value;
        }
    }

    /**
     * Writes the bytes between the source's position and limit at {@code offset} in the segment.
     */
    void write(final ByteBuffer source, final long offset)
    {
        try
        {
            final int start = source.position();
            while (source.hasRemaining())
            {
                channel.write(source, offset + source.position() - start);
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot write journal segment " + path, ex);
        }
    }

    /**
     * Forces the segment's data to the device ({@code fdatasync}: the file's blocks were allocated when it was
     * created, so no metadata needs to follow).
     */
    void force()
    {
        try
        {
            channel.force(false);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot force journal segment " + path, ex);
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
        try
        {
            channel.close();
        }
        catch (final IOException ignore)
        {
            // Every write was already forced or is left to recovery, like a crash's.
        }
        finally
        {
            region.close();
            BufferUtil.free(checkpointBytes);
        }
    }
}
