package dev.offcache.range.store;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.concurrent.CompletableFuture;

import dev.offcache.core.ref.RefCounted;

/**
 * A stored block that lives in a file rather than in memory: {@link #length()} bytes at {@link #dataPosition()} of an
 * open {@link #channel()}, to be sent straight from the file (sendfile) without being read into memory. Handed out by
 * {@link BlockStore#openFile(long, int)}, for instance by the L2 server's SSD tier for blocks it has verified.
 *
 * <p>Ownership: reference-counted ({@link RefCounted}). Whoever receives a {@code BlockFile} from the store owns one
 * reference and calls {@link #release()} exactly once when it no longer reads the channel; the store closes the
 * channel only after every reference is gone (it may keep the file open for later readers). The channel is shared:
 * read it only with positional calls ({@code transferTo(position, ...)}, {@code read(dst, position)}), never through
 * its own position.
 */
public interface BlockFile extends RefCounted
{
    /**
     * The open file.
     *
     * @return the channel, valid until {@link #release()}.
     */
    FileChannel channel();

    /**
     * Where the block's bytes start in the file.
     *
     * @return the file offset.
     */
    long dataPosition();

    /**
     * The block's length.
     *
     * @return bytes.
     */
    int length();

    /**
     * The CRC32C of the whole block as the store recorded it when the block was written, so a reader can send it
     * along with the file's bytes and the receiver can tell whether the file still holds them.
     *
     * @return the CRC32C as an unsigned 32-bit value, or -1 when the store recorded none.
     */
    default long crc32c()
    {
        return -1;
    }

    /**
     * Reads {@code destination.remaining()} bytes of the block from {@code offsetInBlock} into {@code destination}
     * (from its position, which is left as it was), for a reader that needs the bytes rather than sendfile (a part of
     * a block, which the L2 server never sends from the file). A store with reader threads (the L2 server's SSD tier)
     * reads there, so an event loop never waits for the disk; the default reads on the calling thread. The caller
     * keeps its reference until the future completes. A store that records checksums of parts of its blocks checks
     * the bytes before it completes, and fails with {@link DamagedBlockException} (having dropped the block) when
     * they no longer match: the reader then fetches them again rather than use any of them.
     *
     * @param offsetInBlock the first byte, within the block.
     * @param destination   where the bytes go; the caller owns it and leaves it alone until completion.
     * @return completes when the bytes are in; fails with an {@link java.io.IOException} when the file ends early or
     *     cannot be read, or with {@link DamagedBlockException} when they fail the store's check.
     */
    default CompletableFuture<Void> readAsync(final int offsetInBlock, final ByteBuffer destination)
    {
        final ByteBuffer target = destination.duplicate();
        long at = dataPosition() + offsetInBlock;
        try
        {
            while (target.hasRemaining())
            {
                final int n = channel().read(target, at);
                if (n < 0)
                {
                    throw new EOFException("block file ended " + target.remaining() + " bytes early");
                }
                at += n;
            }
            return CompletableFuture.completedFuture(null);
        }
        catch (final IOException ex)
        {
            return CompletableFuture.failedFuture(ex);
        }
    }
}
