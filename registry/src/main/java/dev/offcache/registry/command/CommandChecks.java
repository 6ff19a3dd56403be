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
        if (type == CommandType.COMPLETE)
        {
            completion(key, jobId, schema, locations);
        }
        else if (type.takesJob())
        {
            keyAndJob(key, jobId);
        }
        else if (type.takesKey())
        {
            key(key);
        }
        else if (type.idName() != null)
        {
            Ids.requireId(id, type.idName());
        }
    }

    /**
     * The checks of a command that takes a key only (LOOKUP, INVALIDATE, AWAIT): the in-process front calls these
     * directly on its read path, so a check costs what the bare test costs.
     *
     * @param key the key.
     * @throws IllegalArgumentException when it is null.
     */
    public static void key(final CacheKey key)
    {
        Ids.requireNonNull(key, "key");
    }

    /**
     * The checks of a command that takes a key and a job (BEGIN, ABORT, INVALIDATE_JOB, ACQUIRE).
     *
     * @param key   the key.
     * @param jobId the job.
     * @throws IllegalArgumentException naming the first bad argument.
     */
    public static void keyAndJob(final CacheKey key, final String jobId)
    {
        Ids.requireNonNull(key, "key");
        Ids.requireId(jobId, "jobId");
    }

    /**
     * The checks of a COMPLETE.
     *
     * @param key       the key.
     * @param jobId     the completing job.
     * @param schema    the schema.
     * @param locations the locations: see {@link Materialized#validateLocations}.
     * @throws IllegalArgumentException naming the first bad argument.
     */
    public static void completion(
        final CacheKey key, final String jobId, final DatasetSchema schema, final List<PartitionLocation> locations)
    {
        keyAndJob(key, jobId);
        Ids.requireNonNull(schema, "schema");
        Materialized.validateLocations(jobId, locations);
    }

    /**
     * The checks of a command that takes an executor id (INVALIDATE_EXECUTOR, EXECUTOR_LIVE).
     *
     * @param executorId the executor.
     * @throws IllegalArgumentException when it is null or empty.
     */
    public static void executorId(final String executorId)
    {
        Ids.requireId(executorId, CommandType.INVALIDATE_EXECUTOR.idName());
    }

    /**
     * The checks of a REMOVE_SESSION.
     *
     * @param sessionId the session.
     * @throws IllegalArgumentException when it is null or empty.
     */
    public static void sessionId(final String sessionId)
    {
        Ids.requireId(sessionId, CommandType.REMOVE_SESSION.idName());
    }
}
