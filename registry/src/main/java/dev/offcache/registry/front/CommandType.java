package dev.offcache.registry.front;

/**
 * The commands that travel through the registry's ring.
 */
enum CommandType
{
    LOOKUP,
    BEGIN,
    COMPLETE,
    ABORT,
    INVALIDATE,
    INVALIDATE_JOB,
    INVALIDATE_EXECUTOR,
    REMOVE_SESSION,
    ACQUIRE,
    AWAIT,
    SWEEP,
    ENTRIES,
    SHUTDOWN
}
