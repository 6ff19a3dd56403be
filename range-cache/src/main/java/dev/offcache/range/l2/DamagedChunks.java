package dev.offcache.range.l2;

import java.util.Arrays;

/**
 * The chunks of a vectored read whose bytes did not match the CRC32C the L2 server sent after them: per chunk, the
 * range it belongs to, its first byte within the range and its length. The origin reads exactly these again. Owned by
 * one exchange (its event loop), then handed to the origin fallback; grows only when a chunk is damaged.
 */
final class DamagedChunks
{
    /** No damage: the shared empty list (never added to). */
    static final DamagedChunks NONE = new DamagedChunks();

    private int[] entries = new int[0];
    private int count;
    private long bytes;

    void add(final int range, final int start, final int length)
    {
        if (this == NONE)
        {
            throw new IllegalStateException("NONE is immutable");
        }
        if (3 * count == entries.length)
        {
            entries = Arrays.copyOf(entries, Math.max(12, 2 * entries.length));
        }
        entries[3 * count] = range;
        entries[3 * count + 1] = start;
        entries[3 * count + 2] = length;
        count++;
        bytes += length;
    }

    int count()
    {
        return count;
    }

    /** The damaged bytes, summed. */
    long bytes()
    {
        return bytes;
    }

    int range(final int index)
    {
        return entries[3 * index];
    }

    int start(final int index)
    {
        return entries[3 * index + 1];
    }

    int length(final int index)
    {
        return entries[3 * index + 2];
    }
}
