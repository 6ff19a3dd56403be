package dev.offcache.server.source;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import dev.offcache.range.store.BlockKeys;
import dev.offcache.server.tier.ObjectName;
import dev.offcache.server.tier.ObjectNames;

/**
 * INTERIM: interns object names to process-local ids for packed block keys, and resolves them back for the SSD
 * tier. The range-cache engine has its own interning table; once it lands, the tiered store is given that one.
 * Entries are never removed (bounded by the number of distinct objects seen).
 */
public final class ObjectIdTable implements ObjectNames
{
    private final ConcurrentHashMap<ObjectName, Long> ids = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, ObjectName> names = new ConcurrentHashMap<>();
    private final AtomicLong nextId = new AtomicLong();

    /**
     * The id of a name, interning it on first sight.
     *
     * @param name the object's name.
     * @return its id.
     */
    public long idOf(final ObjectName name)
    {
        final Long known = ids.get(name);
        if (null != known)
        {
            return known;
        }
        return ids.computeIfAbsent(name, (n) ->
        {
            final long id = nextId.getAndIncrement();
            if (id >= BlockKeys.MAX_OBJECT_ID)
            {
                throw new IllegalStateException("object id space exhausted");
            }
            names.put(id, n);
            return id;
        });
    }

    @Override
    public ObjectName nameOf(final long objectId)
    {
        return names.get(objectId);
    }
}
