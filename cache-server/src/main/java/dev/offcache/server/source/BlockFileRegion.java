package dev.offcache.server.source;

import dev.offcache.range.store.BlockFile;
import io.netty.channel.DefaultFileRegion;

/**
 * A Netty file region over part of a stored block file ({@link BlockFile}, an SSD block kept open by the tier's
 * descriptor cache), sent with sendfile (splice on io_uring). A {@code DefaultFileRegion} because that is the type
 * the native transports send with sendfile; unlike its parent it does not close the shared channel when released,
 * it releases its one reference to the block file instead.
 */
public final class BlockFileRegion extends DefaultFileRegion
{
    private final BlockFile file;

    /**
     * Takes over the caller's reference to {@code file}.
     *
     * @param file   the open block, one reference for this region.
     * @param offset where the chunk starts in the block.
     * @param length the chunk's length.
     */
    public BlockFileRegion(final BlockFile file, final int offset, final int length)
    {
        super(file.channel(), file.dataPosition() + offset, length);
        this.file = file;
    }

    @Override
    protected void deallocate()
    {
        file.release();
    }
}
