package dev.offcache.server.tier;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

import dev.offcache.core.ref.AbstractRefCounted;
import dev.offcache.range.store.BlockFile;

/**
 * A verified SSD block file held open to be sent with sendfile: the {@link BlockFile} the SSD tier hands out. The
 * tier's descriptor cache holds one reference while the file is cached; each reader holds one until its file region
 * is written. The channel closes when the last reference goes, so a file the tier evicts or drops (and unlinks) stays
 * readable for the regions still being sent, and its disk space comes back when they are done.
 *
 * <p>A whole block goes out with sendfile, with the CRC32C recorded when it was written ({@link #crc32c()}); a part of
 * one is read with {@link #readAsync}, which checks the chunks it touches against their recorded CRCs first.
 */
public final class SsdFile extends AbstractRefCounted implements BlockFile
{
    private final SsdTier tier;
    private final SsdTier.Entry entry;
    private final FileChannel channel;
    private final Executor readers;

    SsdFile(final SsdTier tier, final SsdTier.Entry entry, final FileChannel channel, final Executor readers)
    {
        this.tier = tier;
        this.entry = entry;
        this.channel = channel;
        this.readers = readers;
    }

    /**
     * On the SSD tier's reader threads when it has them (never on the caller's event loop), each chunk the part
     * touches checked against the CRC32C recorded for it ({@link SsdTier#readPart}): a damaged one fails the read with
     * {@link dev.offcache.range.store.DamagedBlockException} and the block is dropped.
     */
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
        try
        {
            tier.readPart(entry, channel, offsetInBlock, destination);
            return CompletableFuture.completedFuture(null);
        }
        catch (final IOException ex)
        {
            return CompletableFuture.failedFuture(ex);
        }
    }

    /** The data CRC32C from the block's header, as written with the block. */
    @Override
    public long crc32c()
    {
        return entry.crc() & 0xFFFF_FFFFL;
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
        return entry.length();
    }

    /** Closes the descriptor once neither the tier's cache nor a reader holds it. */
    @Override
    protected void onLastRelease()
    {
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
        return "SSD block file of " + entry.length() + " bytes";
    }
}
