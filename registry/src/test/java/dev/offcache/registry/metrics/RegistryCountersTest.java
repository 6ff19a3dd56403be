package dev.offcache.registry.metrics;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.Test;

import dev.offcache.core.counters.CounterTypes;
import dev.offcache.registry.front.CacheRegistry;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.PartitionLocation;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The counters another process would read: found by their metric names through a plain {@link CountersReader} over
 * the same buffers, with the values of the registry's state after each acknowledged batch.
 */
class RegistryCountersTest
{
    @Test
    void countersFollowTheStateAndAreReadableByName() throws Exception
    {
        final UnsafeBuffer metadata = new UnsafeBuffer(ByteBuffer.allocateDirect(64 * CountersReader.METADATA_LENGTH));
        final UnsafeBuffer values = new UnsafeBuffer(ByteBuffer.allocateDirect(64 * CountersReader.COUNTER_LENGTH));
        final CountersManager manager = new CountersManager(metadata, values);
        final CacheKey key = new CacheKey("s", "c");
        try (CacheRegistry registry = CacheRegistry.launch(new CacheRegistry.Context().countersManager(manager)))
        {
            registry.beginMaterialization(key, "j").get(5, TimeUnit.SECONDS);
            registry.acquire(key, "j2").get(5, TimeUnit.SECONDS);
            assertEquals(1, read(metadata, values).get("offcache_registry_waiters"));
            registry.completeMaterialization(key, "j", new DatasetSchema("x"), List.of(
                new PartitionLocation("e1", "j", 0, 0, "/a", 300), new PartitionLocation("e1", "j", 1, 0, "/b", 200)))
                .get(5, TimeUnit.SECONDS);
            Map<String, Long> counters = read(metadata, values);
            assertEquals(3, counters.get("offcache_registry_commands_total"));
            assertEquals(1, counters.get("offcache_registry_entries"));
            assertEquals(500, counters.get("offcache_registry_materialized_bytes"));
            assertEquals(2, counters.get("offcache_registry_pinned_stages"));
            assertEquals(0, counters.get("offcache_registry_waiters"));
            assertEquals(0, counters.get("offcache_registry_removed_entries_total"));

            registry.removeSession("s").get(5, TimeUnit.SECONDS);
            counters = read(metadata, values);
            assertEquals(0, counters.get("offcache_registry_entries"));
            assertEquals(0, counters.get("offcache_registry_materialized_bytes"));
            assertEquals(1, counters.get("offcache_registry_removed_entries_total"));
            assertEquals(registry.counters().batches(), counters.get("offcache_registry_batches_total"));
        }
        assertEquals(Map.of(), read(metadata, values), "close frees the counters");
    }

    private static Map<String, Long> read(final UnsafeBuffer metadata, final UnsafeBuffer values)
    {
        final CountersReader reader = new CountersReader(metadata, values);
        final Map<String, Long> out = new HashMap<>();
        reader.forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (typeId == CounterTypes.REGISTRY)
            {
                out.put(label, reader.getCounterValue(counterId));
            }
        });
        return out;
    }
}
