package dev.offcache.range.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.offcache.range.origin.ObjectInfo;
import dev.offcache.range.origin.ObjectNotFoundException;
import dev.offcache.range.testing.EngineFixture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@link RangeCache#statAsync}: one HEAD per object version, shared by concurrent callers, remembered with the size
 * (so reads need no HEAD of their own); a size the engine knew that the origin now contradicts makes the key a new
 * object; failures are not remembered.
 */
class ObjectMetadataTest
{
    private static final int BLOCK = 4096;

    @Test
    void oneHeadDescribesTheObjectForStatsAndReads() throws Exception
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 16L * BLOCK, (b) -> b))
        {
            final byte[] data = f.object("m/a", 3 * BLOCK + 5, 1);
            final List<CompletableFuture<ObjectInfo>> concurrent = new ArrayList<>();
            final CompletableFuture<Void> gate = f.origin.gateHeads();
            for (int i = 0; i < 8; i++)
            {
                concurrent.add(f.cache.statAsync("m/a"));
            }
            gate.complete(null);
            for (final CompletableFuture<ObjectInfo> stat : concurrent)
            {
                final ObjectInfo info = stat.get(10, TimeUnit.SECONDS);
                assertEquals(data.length, info.size());
                assertNotNull(info.etag());
            }
            assertEquals(1, f.origin.heads(), "concurrent stats share one HEAD");
            assertEquals(data.length, f.cache.sizeNow("m/a"), "the HEAD's size is the entry's size");
            assertArrayEquals(data, f.read("m/a", 0, data.length));
            f.cache.statAsync("m/a").get(10, TimeUnit.SECONDS);
            assertEquals(1, f.origin.heads(), "neither the read nor a second stat asked again");
        }
    }

    @Test
    void aSizeTheOriginContradictsMakesTheKeyANewObject() throws Exception
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 16L * BLOCK, (b) -> b))
        {
            f.object("m/b", 2 * BLOCK, 2);
            f.cache.rememberSize("m/b", 5 * BLOCK);
            final long oldId = f.cache.directory().entry("m/b").id;
            final ObjectInfo info = f.cache.statAsync("m/b").get(10, TimeUnit.SECONDS);
            assertEquals(2 * BLOCK, info.size());
            assertNull(f.cache.objectKey(oldId), "the old id is forgotten");
            assertNotEquals(oldId, f.cache.directory().entry("m/b").id);
            assertEquals(2 * BLOCK, f.cache.sizeNow("m/b"));
            assertEquals(info, f.cache.statAsync("m/b").get(10, TimeUnit.SECONDS));
            assertEquals(1, f.origin.heads());
        }
    }

    @Test
    void aMissingObjectIsNotRemembered() throws Exception
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 16L * BLOCK, (b) -> b))
        {
            final CompletionException missing = assertThrows(CompletionException.class,
                () -> f.cache.statAsync("m/none").join());
            assertInstanceOf(ObjectNotFoundException.class, missing.getCause());
            f.object("m/none", 7, 3);
            assertEquals(7, f.cache.statAsync("m/none").get(10, TimeUnit.SECONDS).size());
            assertEquals(2, f.origin.heads());
        }
    }
}
