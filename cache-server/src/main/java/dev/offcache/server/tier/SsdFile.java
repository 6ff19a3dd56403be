package dev.offcache.server.tier;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

import dev.offcache.core.ref.AbstractRefCounted;
import dev.offcache.range.store.BlockFile;
import org.agrona.IoUtil;

/**
 * A verified SSD block file held open to be sent with sendfile: the {@link BlockFile} the SSD tier hands out. The
 * tier's descriptor cache holds one reference while the file is cached; each reader holds one until its file region
 * is written. The channel closes when the last reference goes, so a file the tier evicts or drops (and unlinks) stays
 * readable for the regions still being sent, and its disk space comes back when they are done.
 *
 * <p>A file the tier keeps open is also mapped (read-only, the block's bytes): a part whose
 * pages are resident goes out from that memory ({@link #residentBytes}), with one copy into the socket, as a RAM
 * block does; a part that is not resident is read on the tier's reader threads, so an event loop never waits for the
 * disk. The mapping goes with the descriptor, at the last release, when no view of it is being sent any more.
 */
public final class SsdFile extends AbstractRefCounted implements BlockFile
{
    private final FileChannel channel;
    private final int length;
    private final int crc;
    private final Executor readers;
    /** The block's bytes mapped (never written), or null: not mapped, sent with sendfile. */
    private final MappedByteBuffer mapping;
    private final TierMetrics metrics;

    SsdFile(
        final FileChannel channel,
        final int length,
        final int crc,
        final Executor readers,
        final MappedByteBuffer mapping,
        final TierMetrics metrics)
    {
        this.channel = channel;
        this.length = length;
        this.crc = crc;
        this.readers = readers;
        this.mapping = mapping;
        this.metrics = metrics;
    }

    /**
     * Maps a block file's data, read-only, for {@link #residentBytes}. Null when mapping fails; the file is then sent
     * with sendfile.
     */
    static MappedByteBuffer map(final FileChannel channel, final int length)
    {
        try
        {
            return channel.map(FileChannel.MapMode.READ_ONLY, BlockFileFormat.HEADER_LENGTH, length);
        }
        catch (final IOException | RuntimeException ex)
        {
            return null;
        }
    }

    /**
     * A view of the mapping when every page of the part is resident ({@link MappedByteBuffer#isLoaded()}, one
     * {@code mincore} call); counted as a send from memory, or, when not resident, as a cold read.
     */
    @Override
    public ByteBuffer residentBytes(final int offsetInBlock, final int partLength)
    {
        if (null == mapping)
        {
            return null;
        }
        final MappedByteBuffer view = mapping.slice(offsetInBlock, partLength);
        if (!view.isLoaded())
        {
            metrics.ssdColdReads.increment();
            return null;
        }
        metrics.ssdMappedSends.increment();
        return view;
    }

    @Override
    public boolean mapped()
    {
        return null != mapping;
    }

    /** On the SSD tier's reader threads when it has them (never on the caller's event loop). */
    @Override
    public CompletableFuture<Void> readAsync(final int offsetInBlock, final ByteBuffer destination)
    {
        if (null == readers)
        {
            return readHere(offsetInBlock, destination);
        }
        try
        {
            return CompletableFuture.supplyAsync(() -> readHere(offsetInBlock, destination), readers)
                .thenCompose((read) -> read);
        }
        catch (final RejectedExecutionException ex)
        {
            // the tier is closing: read here rather than fail a reader that holds its reference
            return readHere(offsetInBlock, destination);
        }
    }

    private CompletableFuture<Void> readHere(final int offsetInBlock, final ByteBuffer destination)
    {
        return BlockFile.super.readAsync(offsetInBlock, destination);
    }

    /** The data CRC32C from the block's header, as written with the block. */
    @Override
    public long crc32c()
    {
        return crc & 0xFFFF_FFFFL;
    }

    @Override
    public FileChannel channel()
    {
        return channel;
    }

    @Override
    public long dataPosition()
    {
        return BlockFileFormat.HEADER_LENGTH;
    }

    @Override
    public int length()
    {
        return length;
    }

    /** Unmaps and closes the descriptor once neither the tier's cache nor a reader holds it. */
    @Override
    protected void onLastRelease()
    {
        if (null != mapping)
        {
            IoUtil.unmap(mapping);
        }
        try
        {
            channel.close();
        }
        catch (final IOException ignore)
        {
            // a read-only descriptor: nothing was written that a failed close could lose
        }
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public String toString()
    {
        return "SSD block file of " + length + " bytes";
    }
}
