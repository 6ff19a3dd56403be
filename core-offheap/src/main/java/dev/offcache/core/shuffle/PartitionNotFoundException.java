package dev.offcache.core.shuffle;

import java.nio.file.Path;

/**
 * Thrown when a partition asked for has no committed file (never written, still being written, aborted or
 * deleted). The reader's recovery is to re-materialise the partition.
 */
public final class PartitionNotFoundException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    private final transient PartitionId id;
    private final transient Path path;

    /**
     * Describes a missing partition.
     *
     * @param id   of the missing partition.
     * @param path where its file would be.
     */
    public PartitionNotFoundException(final PartitionId id, final Path path)
    {
        super("shuffle partition " + id + " not found: no committed file at " + path);
        this.id = id;
        this.path = path;
    }

    /**
     * Returns the missing partition.
     *
     * @return the missing partition.
     */
    public PartitionId id()
    {
        return id;
    }

    /**
     * Returns where its file would be.
     *
     * @return where its file would be.
     */
    public Path path()
    {
        return path;
    }
}
