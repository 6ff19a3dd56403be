package dev.offcache.range.l2;

import java.nio.ByteBuffer;

import io.netty.buffer.ByteBuf;

import dev.offcache.core.checksum.Crc32c;

/**
 * The CRC32C check of a checksummed L2 body ({@code Offcache-Checksum: crc32c}), shared by the ranged GET and the
 * {@code POST /ranges} exchanges: the body's chunks are cut by the server's block grid, and each is followed by its
 * CRC32C, 4 bytes big-endian, which may arrive split across Netty buffers. The check runs over the chunk's bytes
 * where they landed in the caller's buffer, in place: no copy, no view, no allocation per chunk. One per exchange,
 * used on its event loop only.
 */
final class ChunkChecksum
{
    private int trailerBytes;
    private int trailer;

    /**
     * The length of the chunk that starts at an object offset: to the end of its block of the grid, or of what is
     * left.
     *
     * @param position  the chunk's first byte in the object.
     * @param blockSize the server's block size.
     * @param left      bytes left in the range.
     * @return the chunk's length.
     */
    static int chunkLength(final long position, final long blockSize, final long left)
    {
        return (int) Math.min(blockSize - position % blockSize, left);
    }

    /**
     * Takes the next byte of the current chunk's trailer.
     *
     * @param bytes the body, at least one byte readable; one is read.
     * @return whether the trailer is complete (then {@link #matches} checks it).
     */
    boolean takeTrailerByte(final ByteBuf bytes)
    {
        trailer = (trailer << 8) | bytes.readUnsignedByte();
        return ++trailerBytes == Integer.BYTES;
    }

    /**
     * Checks the complete trailer against a chunk's bytes and gets ready for the next trailer.
     *
     * @param buffer where the chunk landed.
     * @param index  the chunk's first byte in {@code buffer} (absolute).
     * @param length the chunk's length.
     * @return whether its CRC32C is the one the server sent.
     */
    boolean matches(final ByteBuffer buffer, final int index, final int length)
    {
        final boolean same = Crc32c.compute(buffer, index, length) == trailer;
        trailerBytes = 0;
        trailer = 0;
        return same;
    }
}
