package dev.offcache.range.engine;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.offcache.range.origin.ObjectNotFoundException;
import dev.offcache.range.testing.EngineFixture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link RangeCache#objectKey(long)}: every id the engine hands out resolves to its key while the engine remembers
 * it, and to nothing once forgotten (eviction past {@code maxObjects}, a put or delete, a failed HEAD) — never to
 * another key.
 */
class ObjectKeyResolutionTest
{
    private static final int BLOCK = 4096;

    @Test
    void internedIdsResolveToTheirKeysAndUnknownIdsToNothing()
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 16L * BLOCK, (b) -> b))
        {
            f.object("a/one", 2 * BLOCK, 1);
            f.object("a/two", BLOCK, 2);
            f.read("a/one", 0, 2 * BLOCK);
            f.read("a/two", 0, BLOCK);
            final long one = f.cache.directory().entry("a/one").id;
            final long two = f.cache.directory().entry("a/two").id;
            assertNotEquals(one, two);
            assertEquals("a/one", f.cache.objectKey(one));
            assertEquals("a/two", f.cache.objectKey(two));
            assertNull(f.cache.objectKey(Math.max(one, two) + 1_000_000));
            assertNull(f.cache.objectKey(-1));
        }
    }

    @Test
    void putDeleteAndFailedHeadForgetTheId()
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 16L * BLOCK, (b) -> b))
        {
            f.object("k", BLOCK, 1);
            f.read("k", 0, BLOCK);
            final long first = f.cache.directory().entry("k").id;
            f.cache.put("k", ByteBuffer.wrap(new byte[BLOCK])).join();
            assertNull(f.cache.objectKey(first));
            f.read("k", 0, BLOCK);
            final long second = f.cache.directory().entry("k").id;
            assertNotEquals(first, second);
            assertEquals("k", f.cache.objectKey(second));

            f.cache.delete("k").join();
            assertNull(f.cache.objectKey(second));

            final long missing = f.cache.directory().entry("missing").id;
            assertEquals("missing", f.cache.objectKey(missing));
            final Exception ex = assertThrows(Exception.class, () -> f.cache.size("missing"));
            assertTrue(ex instanceof ObjectNotFoundException || ex.getCause() instanceof ObjectNotFoundException,
                ex.toString());
            assertNull(f.cache.objectKey(missing));
            assertEquals(0, f.cache.directory().reverseIndexSize());
        }
    }

    @Test
    void evictionPastMaxObjectsKeepsTheReverseIndexInStep()
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 16L * BLOCK, (b) -> b.maxObjects(4)))
        {
            final List<Long> ids = new ArrayList<>();
            for (int i = 0; i < 50; i++)
            {
                ids.add(f.cache.directory().entry("obj/" + i).id);
            }
            final ObjectDirectory directory = f.cache.directory();
            directory.cleanUp();
            assertTrue(directory.estimatedSize() <= 4, "directory size " + directory.estimatedSize());
            assertEquals(directory.estimatedSize(), directory.reverseIndexSize());
            int resolved = 0;
            for (int i = 0; i < ids.size(); i++)
            {
                final String key = f.cache.objectKey(ids.get(i));
                if (null != key)
                {
                    assertEquals("obj/" + i, key);
                    resolved++;
                }
            }
            assertEquals(directory.reverseIndexSize(), resolved);
        }
    }

    @Test
    void concurrentInterningAndEvictionNeverResolveAnIdToAnotherKey() throws Exception
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 16L * BLOCK, (b) -> b.maxObjects(64)))
        {
            final ObjectDirectory directory = f.cache.directory();
            final ExecutorService pool = Executors.newFixedThreadPool(4);
            try
            {
                final List<Future<Integer>> results = new ArrayList<>();
                for (int t = 0; t < 4; t++)
                {
                    final int thread = t;
                    results.add(pool.submit(() ->
                    {
                        int checked = 0;
                        for (int i = 0; i < 20_000; i++)
                        {
                            final String key = "obj/" + ((i * 7 + thread * 13) % 500);
                            final long id = directory.entry(key).id;
                            final String resolved = f.cache.objectKey(id);
                            if (null != resolved)
                            {
                                if (!key.equals(resolved))
                                {
                                    throw new AssertionError(id + " resolved to " + resolved + ", not " + key);
                                }
                                checked++;
                            }
                        }
                        return checked;
                    }));
                }
                int checked = 0;
                for (final Future<Integer> result : results)
                {
                    checked += result.get(60, TimeUnit.SECONDS);
                }
                assertTrue(checked > 0, "no id resolved while it was interned");
            }
            finally
            {
                pool.shutdownNow();
            }
            directory.cleanUp();
            assertTrue(directory.estimatedSize() <= 64, "directory size " + directory.estimatedSize());
            assertEquals(directory.estimatedSize(), directory.reverseIndexSize());
        }
    }
}
