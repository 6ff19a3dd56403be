package dev.offcache.registry.command;

import java.util.List;

import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.Ids;
import dev.offcache.registry.state.Materialized;
import dev.offcache.registry.state.PartitionLocation;

/**
 * The argument checks of every {@link CommandType} (which arguments it takes: the type says). Both fronts run them in
 * the caller's thread before a command is published to the ring or sent to the cluster, so a bad call throws from
 * the call itself and nothing is published; the clustered service runs them again on each command it reads from the
 * log. The same checks, in the same order, with the same messages, whichever front is called.
 */
public final class CommandChecks
{
    private CommandChecks()
    {
    }

    /**
     * Checks a command's arguments; those a command does not take are ignored.
     *
     * @param type      the command.
     * @param key       the key (LOOKUP, BEGIN, COMPLETE, ABORT, INVALIDATE, INVALIDATE_JOB, ACQUIRE, AWAIT).
     * @param jobId     the job (BEGIN, COMPLETE, ABORT, INVALIDATE_JOB, ACQUIRE).
     * @param id        the executor (INVALIDATE_EXECUTOR, EXECUTOR_LIVE) or the session (REMOVE_SESSION).
     * @param schema    the schema (COMPLETE).
     * @param locations the locations (COMPLETE): see {@link Materialized#validateLocations}.
     * @throws IllegalArgumentException naming the first bad argument.
     */
    public static void check(
        final CommandType type, final CacheKey key, final String jobId, final String id,
        final DatasetSchema schema, final List<PartitionLocation> locations)
    {
        if (type.takesKey())
        {
            Ids.requireNonNull(key, "key");
        }
        if (type.takesJob())
        {
            Ids.requireId(jobId, "jobId");
        }
        if (type == CommandType.COMPLETE)
        {
            Ids.requireNonNull(schema, "schema");
            Materialized.validateLocations(jobId, locations);
        }
        else if (type.idName() != null)
        {
            Ids.requireId(id, type.idName());
        }
    }
}
