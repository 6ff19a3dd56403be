package dev.offcache.server.tier;

/**
 * Resolves the engine's process-local interned object id (the high bits of a packed block key) back to the
 * object's durable {@link ObjectName}, and back again. The engine's interning table implements it; the tiered
 * store uses it to name blocks on disk and to find them again after a restart, when ids are new.
 */
public interface ObjectNames
{
    /**
     * The name of an interned object id.
     *
     * @param objectId an id the engine handed out.
     * @return the name, or {@code null} when the id is unknown.
     */
    ObjectName nameOf(long objectId);

    /**
     * The size of an interned object, when known, to be recorded with its blocks.
     *
     * @param objectId an id the engine handed out.
     * @return the size, or -1 when it is not known.
     */
    default long objectSize(final long objectId)
    {
        return -1;
    }
}
