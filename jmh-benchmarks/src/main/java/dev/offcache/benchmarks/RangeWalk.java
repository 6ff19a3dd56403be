package dev.offcache.benchmarks;

/**
 * The ranges a read benchmark walks through one object: each op reads the next range, back to the start before a
 * range would pass the object's end, so every range of a warmed object is a hit.
 */
public final class RangeWalk
{
    private RangeWalk()
    {
    }

    /**
     * The offset of the range after the one at {@code offset}.
     *
     * @param offset      the current range's offset.
     * @param rangeBytes  bytes per range.
     * @param objectBytes the object's size.
     * @return the next offset: {@code offset + rangeBytes}, or 0 when that range would pass the end.
     */
    public static long next(final long offset, final int rangeBytes, final long objectBytes)
    {
        final long next = offset + rangeBytes;
        return next + rangeBytes > objectBytes ? 0 : next;
    }
}
