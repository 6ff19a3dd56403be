package dev.offcache.dataset;

import java.util.List;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import dev.offcache.core.region.MappedRegion;
import dev.offcache.core.shuffle.MappedPartition;
import dev.offcache.registry.state.PartitionLocation;

/**
 * Every partition of one read-back, each as a {@link DirectBuffer} view: a read-only mapping of the local file,
 * or an anonymous off-heap region the remote bytes were fetched into. Owns those mappings: {@link #close()} unmaps
 * the local ones and hands the fetch regions back to the read-back's pool; a view must not be used after that.
 */
public final class PartitionViews implements AutoCloseable
{
    private final List<PartitionLocation> locations;
    private final UnsafeBuffer[] views;
    private final AutoCloseable[] owners;
    private boolean closed;

    PartitionViews(final List<PartitionLocation> locations)
    {
        this.locations = locations;
        this.views = new UnsafeBuffer[locations.size()];
        this.owners = new AutoCloseable[locations.size()];
        for (int i = 0; i < views.length; i++)
        {
            views[i] = new UnsafeBuffer(0, 0);
        }
    }

    /**
     * How many partitions.
     *
     * @return the count.
     */
    public int count()
    {
        return views.length;
    }

    /**
     * Where partition {@code i} came from.
     *
     * @param i index in location order.
     * @return its location.
     */
    public PartitionLocation location(final int i)
    {
        return locations.get(i);
    }

    /**
     * The bytes of partition {@code i}, from offset 0 to its length.
     *
     * @param i index in location order.
     * @return a view valid until {@link #close()}.
     */
    public DirectBuffer buffer(final int i)
    {
        if (closed)
        {
            throw new IllegalStateException("partition views are closed");
        }
        return views[i];
    }

    void setLocal(final int i, final MappedPartition partition)
    {
        owners[i] = partition;
        partition.wrap(views[i], 0, (int) partition.length());
    }

    UnsafeBuffer setRemote(final int i, final MappedRegion region, final int length, final AutoCloseable release)
    {
        owners[i] = release;
        if (region != null)
        {
            region.wrap(views[i], 0, length);
        }
        return views[i];
    }

    /**
     * Unmaps every local partition and returns every fetch region. Idempotent.
     */
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        for (int i = 0; i < owners.length; i++)
        {
            views[i].wrap(0, 0);
            if (owners[i] != null)
            {
                try
                {
                    owners[i].close();
                }
                catch (final Exception ex)
                {
                    throw new IllegalStateException("cannot unmap partition " + locations.get(i), ex);
                }
                owners[i] = null;
            }
        }
    }
}
