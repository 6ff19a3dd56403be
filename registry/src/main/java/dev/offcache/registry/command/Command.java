package dev.offcache.registry.command;

import java.util.List;

import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.PartitionLocation;

/**
 * One command and its arguments, in a reusable holder: the in-process front's ring slot extends it, and the clustered
 * service decodes each command from the log into one. Which arguments a command takes: {@link CommandType}; those
 * it does not take are null. Not thread-safe: whoever fills it hands it over (ring publication) or uses it alone.
 */
public class Command
{
    private CommandType type;
    private CacheKey key;
    private String jobId;
    private String id;
    private DatasetSchema schema;
    private List<PartitionLocation> locations;

    /**
     * Sets every argument.
     *
     * @param type      the command.
     * @param key       its key, or null.
     * @param jobId     its job, or null.
     * @param id        its executor or session id, or null.
     * @param schema    its schema, or null.
     * @param locations its locations, or null.
     */
    protected final void arguments(
        final CommandType type, final CacheKey key, final String jobId, final String id,
        final DatasetSchema schema, final List<PartitionLocation> locations)
    {
        this.type = type;
        this.key = key;
        this.jobId = jobId;
        this.id = id;
        this.schema = schema;
        this.locations = locations;
    }

    /**
     * The command.
     *
     * @return the type, or null when cleared.
     */
    public final CommandType type()
    {
        return type;
    }

    /**
     * The key.
     *
     * @return the key, or null.
     */
    public final CacheKey key()
    {
        return key;
    }

    /**
     * The job.
     *
     * @return the job id, or null.
     */
    public final String jobId()
    {
        return jobId;
    }

    /**
     * The executor or session id.
     *
     * @return the id, or null.
     */
    public final String id()
    {
        return id;
    }

    /**
     * The schema of a COMPLETE.
     *
     * @return the schema, or null.
     */
    public final DatasetSchema schema()
    {
        return schema;
    }

    /**
     * The locations of a COMPLETE.
     *
     * @return the locations, or null.
     */
    public final List<PartitionLocation> locations()
    {
        return locations;
    }
}
