package dev.offcache.dataset.cluster;

import java.nio.ByteBuffer;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The toy input subplan: {@code partitions} partitions of {@code rowsPerPartition} little-endian longs, each a
 * deterministic function of the seed, the partition and the row. {@link #computeDirectly()} is the reference
 * answer (what running the input without any cache gives).
 *
 * @param seed             the seed.
 * @param partitions       number of output partitions.
 * @param rowsPerPartition rows in each partition.
 */
public record ToyDataset(long seed, int partitions, int rowsPerPartition)
{
    /**
     * Row {@code i} of partition {@code p}.
     *
     * @param seed the seed.
     * @param p    the partition.
     * @param i    the row.
     * @return the value.
     */
    public static long row(final long seed, final int p, final int i)
    {
        long z = seed * 0x9E3779B97F4A7C15L + ((long) p << 32) + i;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /**
     * Writes one partition's rows into an off-heap buffer.
     *
     * @param seed the seed.
     * @param p    the partition.
     * @param rows the row count.
     * @return the buffer.
     */
    public static UnsafeBuffer partition(final long seed, final int p, final int rows)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(Math.max(1, rows * Long.BYTES)), 0,
            rows * Long.BYTES);
        for (int i = 0; i < rows; i++)
        {
            buffer.putLong(i * Long.BYTES, row(seed, p, i));
        }
        return buffer;
    }

    /**
     * Every row, computed without any cache.
     *
     * @return rows in partition order.
     */
    public long[] computeDirectly()
    {
        final long[] rows = new long[partitions * rowsPerPartition];
        for (int p = 0; p < partitions; p++)
        {
            for (int i = 0; i < rowsPerPartition; i++)
            {
                rows[p * rowsPerPartition + i] = row(seed, p, i);
            }
        }
        return rows;
    }

    /**
     * Reads rows back from a partition buffer.
     *
     * @param buffer the partition's bytes.
     * @param into   where to put them.
     * @param at     first index.
     * @return index after the last row.
     */
    public static int readRows(final DirectBuffer buffer, final long[] into, final int at)
    {
        final int rows = buffer.capacity() / Long.BYTES;
        for (int i = 0; i < rows; i++)
        {
            into[at + i] = buffer.getLong(i * Long.BYTES);
        }
        return at + rows;
    }
}
