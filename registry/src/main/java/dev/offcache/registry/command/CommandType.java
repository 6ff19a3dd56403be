package dev.offcache.registry.command;

/**
 * The registry's command set, shared by both fronts: the in-process {@link dev.offcache.registry.front.CacheRegistry}
 * puts these on its ring, the clustered client sends them on the wire
 * ({@link dev.offcache.registry.clustered.WireCodec} gives each its byte). {@link CommandChecks} says which arguments
 * each takes and {@link CommandDispatcher} applies each to the state machine.
 */
public enum CommandType
{
    /** Read a key's entry (validate-on-read). */
    LOOKUP(true, false, null),
    /** Claim a key for a job. */
    BEGIN(true, true, null),
    /** Promote a job's claim: also a schema and the locations. */
    COMPLETE(true, true, null),
    /** Clear a job's claim. */
    ABORT(true, true, null),
    /** Remove one entry. */
    INVALIDATE(true, false, null),
    /** Remove one entry if it is still the given job's. */
    INVALIDATE_JOB(true, true, null),
    /** Remove an executor's entries. */
    INVALIDATE_EXECUTOR(false, false, "executorId"),
    /** Remove a session's entries. */
    REMOVE_SESSION(false, false, "sessionId"),
    /** Hit, claim or wait. */
    ACQUIRE(true, true, null),
    /** Wait for a pending key. */
    AWAIT(true, false, null),
    /** One eviction sweep with the front's policy at its clock's time. */
    SWEEP(false, false, null),
    /** A copy of every entry (diagnostics, tests). */
    ENTRIES(false, false, null),
    /** The pinned stages (the clustered front's command; the in-process front reads them from its view). */
    PINNED(false, false, null),
    /** An executor reported live or dead (the clustered front's replicated live-executor view): also a flag. */
    EXECUTOR_LIVE(false, false, "executorId"),
    /** Release every waiter and stop (the in-process front's close; never on the wire). */
    SHUTDOWN(false, false, null);

    private final boolean takesKey;
    private final boolean takesJob;
    private final String idName;

    CommandType(final boolean takesKey, final boolean takesJob, final String idName)
    {
        this.takesKey = takesKey;
        this.takesJob = takesJob;
        this.idName = idName;
    }

    /**
     * Whether the command names a key (the first argument, on the wire too).
     *
     * @return true when it does.
     */
    public boolean takesKey()
    {
        return takesKey;
    }

    /**
     * Whether the command names a job (after the key).
     *
     * @return true when it does.
     */
    public boolean takesJob()
    {
        return takesJob;
    }

    /**
     * What the command's id argument is ({@code executorId} or {@code sessionId}), for messages.
     *
     * @return the name, or null when the command takes no id.
     */
    public String idName()
    {
        return idName;
    }
}
