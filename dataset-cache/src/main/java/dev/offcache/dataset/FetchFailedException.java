package dev.offcache.dataset;

import dev.offcache.registry.state.PartitionLocation;

/**
 * A partition of a cached dataset could not be read back: its file is gone or damaged, its executor is
 * unreachable or answered with an error frame. The coordinator invalidates the entry and re-materializes once.
 */
public final class FetchFailedException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    private final transient PartitionLocation location;

    /**
     * An exception naming the location.
     *
     * @param location the partition that could not be read.
     * @param cause    the underlying failure.
     */
    public FetchFailedException(final PartitionLocation location, final Throwable cause)
    {
        super("cannot read partition " + location.jobId() + "/" + location.stageId() + "/" +
            location.partitionId() + " on executor " + location.executorId() + ": " + cause, cause);
        this.location = location;
    }

    /**
     * The partition that could not be read.
     *
     * @return its location.
     */
    public PartitionLocation location()
    {
        return location;
    }
}
