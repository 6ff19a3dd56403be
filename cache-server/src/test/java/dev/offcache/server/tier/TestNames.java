package dev.offcache.server.tier;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import dev.offcache.range.store.BlockKeys;

/** A stand-in for the engine's interning table: hands out ids from a base, so two "processes" differ. */
final class TestNames implements ObjectNames
{
    private final ConcurrentHashMap<Long, ObjectName> byId = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<ObjectName, Long> byName = new ConcurrentHashMap<>();
    private final AtomicLong next;

    TestNames(final long firstId)
    {
        next = new AtomicLong(firstId);
    }

    long idOf(final String key)
    {
        final ObjectName name = new ObjectName("ns", key);
        return byName.computeIfAbsent(name, (n) ->
        {
            final long id = next.getAndIncrement();
            byId.put(id, n);
            return id;
        });
    }

    long blockKey(final String key, final long blockIndex)
    {
        return BlockKeys.pack(idOf(key), blockIndex);
    }

    @Override
    public ObjectName nameOf(final long objectId)
    {
        return byId.get(objectId);
    }
}
