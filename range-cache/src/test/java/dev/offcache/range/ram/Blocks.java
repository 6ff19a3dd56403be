package dev.offcache.range.ram;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Deterministic block contents for tests: the bytes and the length of a block are functions of its key, as in a
 * write-once lake where a block's bytes never change.
 */
final class Blocks
{
    private Blocks()
    {
    }

    static int lengthOf(final long key, final int blockSize)
    {
        // Every third block is a short "last block".
        return key % 3 == 2 ? 1 + (int) ((key * 977) % blockSize) : blockSize;
    }

    static byte byteAt(final long key, final int i)
    {
        return (byte) (key * 31 + i * 7 + (i >>> 8) + (key >>> 3));
    }

    static UnsafeBuffer contentOf(final long key, final int blockSize)
    {
        final int length = lengthOf(key, blockSize);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[length + 16]);
        for (int i = 0; i < length; i++)
        {
            buffer.putByte(8 + i, byteAt(key, i));
        }
        return buffer;
    }

    /**
     * The index of the first wrong byte, or -1 if the block holds exactly the key's bytes.
     */
    static int firstMismatch(final long key, final DirectBuffer buffer, final int length, final int blockSize)
    {
        if (length != lengthOf(key, blockSize))
        {
            return Integer.MAX_VALUE;
        }
        for (int i = 0; i < length; i++)
        {
            if (buffer.getByte(i) != byteAt(key, i))
            {
                return i;
            }
        }
        return -1;
    }
}
