package dev.offcache.range.origin;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.offcache.range.engine.RangeCache;
import dev.offcache.range.metrics.MetricNames;
import dev.offcache.range.store.FetchClass;
import dev.offcache.range.testing.SlabBlockStore;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What every origin must do, run against each real origin (local files, S3Proxy, an HTTP server on loopback).
 */
public abstract class ObjectStoreContract
{
    protected ObjectStore origin;

    protected abstract void startServer() throws Exception;

    protected abstract ObjectStore newOrigin() throws Exception;

    protected abstract void stopServer() throws Exception;

    protected boolean canList()
    {
        return true;
    }

    @BeforeEach
    void open() throws Exception
    {
        startServer();
        origin = newOrigin();
    }

    @AfterEach
    void close() throws Exception
    {
        origin.close();
        stopServer();
    }

    static byte[] random(final int size, final long seed)
    {
        final byte[] bytes = new byte[size];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    protected static <T> T get(final CompletableFuture<T> future) throws Exception
    {
        return future.get(20, TimeUnit.SECONDS);
    }

    protected static Throwable failure(final CompletableFuture<?> future)
    {
        final ExecutionException error = assertThrows(ExecutionException.class,
            () -> future.get(20, TimeUnit.SECONDS));
        return error.getCause();
    }

    @Test
    void putSizeAndRangedReadsIntoDirectMemory() throws Exception
    {
        final byte[] data = random(300_000, 1);
        get(origin.put("dir/obj one.bin", ByteBuffer.wrap(data)));
        assertEquals(data.length, get(origin.size("dir/obj one.bin")));

        final ByteBuffer target = ByteBuffer.allocateDirect(70_000);
        target.position(5).limit(5 + 65_536);
        assertEquals(65_536, get(origin.read("dir/obj one.bin", 100_000, target)));
        final byte[] got = new byte[65_536];
        target.duplicate().position(5).get(got);
        assertArrayEquals(Arrays.copyOfRange(data, 100_000, 165_536), got);

        final ByteBuffer tail = ByteBuffer.allocateDirect(1000);
        assertEquals(100, get(origin.read("dir/obj one.bin", data.length - 100, tail)), "stops at the end");
        final byte[] tailBytes = new byte[100];
        tail.duplicate().position(0).get(tailBytes);
        assertArrayEquals(Arrays.copyOfRange(data, data.length - 100, data.length), tailBytes);
    }

    /**
     * Reads into block buffers land the bytes in order and tell each buffer once it holds them, stopping where the
     * object ends; the size is reported where the origin's answers carry it (its own one-request read, or the default
     * of one read per buffer).
     */
    @Test
    void blockReadsFillEachBufferInOrderUpToTheEnd() throws Exception
    {
        final byte[] data = random(10_000, 7);
        get(origin.put("blocks.bin", ByteBuffer.wrap(data)));
        final ByteBuffer[] blocks = {ByteBuffer.allocateDirect(4096), ByteBuffer.allocateDirect(4096),
            ByteBuffer.allocateDirect(4096), ByteBuffer.allocateDirect(4096)};
        final List<String> told = new CopyOnWriteArrayList<>();
        final AtomicLong size = new AtomicLong(-1);
        assertEquals(10_000 - 1000, get(origin.readBlocks("blocks.bin", 1000, blocks, FetchClass.DEMAND, size::set,
            (index, bytes) -> told.add(index + ":" + bytes))));
        assertEquals(List.of("0:4096", "1:4096", "2:" + (10_000 - 1000 - 8192)), told);
        for (int i = 0; i < 3; i++)
        {
            final int length = Math.min(4096, 10_000 - 1000 - i * 4096);
            final byte[] got = new byte[length];
            blocks[i].duplicate().position(0).get(got);
            assertArrayEquals(Arrays.copyOfRange(data, 1000 + i * 4096, 1000 + i * 4096 + length), got, "block " + i);
        }
        if (origin.readAnswersCarrySize())
        {
            assertEquals(data.length, size.get());
        }
    }

    @Test
    void missingObjectsAreNotFound()
    {
        assertInstanceOf(ObjectNotFoundException.class, failure(origin.size("no/such")));
        assertInstanceOf(ObjectNotFoundException.class,
            failure(origin.read("no/such", 0, ByteBuffer.allocateDirect(10))));
    }

    @Test
    void conditionalReadsCheckTheVersion() throws Exception
    {
        final byte[] data = random(5000, 2);
        get(origin.put("cond", ByteBuffer.wrap(data)));
        final String version = get(origin.version("cond"));
        final ByteBuffer target = ByteBuffer.allocateDirect(100);
        assertEquals(100, get(origin.readIfMatch("cond", 10, target, version)));
        assertInstanceOf(PreconditionFailedException.class,
            failure(origin.readIfMatch("cond", 10, ByteBuffer.allocateDirect(100), "\"not-" + version + "\"")));
    }

    @Test
    void deleteAndListPassThrough() throws Exception
    {
        get(origin.put("l/a", ByteBuffer.wrap(random(10, 3))));
        get(origin.put("l/b", ByteBuffer.wrap(random(10, 4))));
        get(origin.put("m/c", ByteBuffer.wrap(random(10, 5))));
        if (canList())
        {
            assertEquals(List.of("l/a", "l/b"), get(origin.list("l/")));
        }
        else
        {
            assertInstanceOf(UnsupportedOperationException.class, failure(origin.list("l/")));
        }
        get(origin.delete("l/a"));
        assertInstanceOf(ObjectNotFoundException.class, failure(origin.size("l/a")));
        get(origin.delete("l/never-there"));
    }

    @Test
    void statGivesTheSizeATimeAndATagThatChangesWithTheObject() throws Exception
    {
        final long before = System.currentTimeMillis();
        get(origin.put("stat/a", ByteBuffer.wrap(random(1000, 7))));
        final ObjectInfo info = get(origin.stat("stat/a"));
        assertEquals("stat/a", info.key());
        assertEquals(1000, info.size());
        assertNotNull(info.etag(), "every origin here gives entity tags");
        assertTrue(info.etag().startsWith("\"") && info.etag().endsWith("\""), info.etag());
        if (hasTimes())
        {
            assertTrue(info.lastModifiedMillis() >= before - 120_000 &&
                info.lastModifiedMillis() <= System.currentTimeMillis() + 120_000, "time " + info);
        }
        get(origin.put("stat/a", ByteBuffer.wrap(random(1001, 8))));
        final ObjectInfo rewritten = get(origin.stat("stat/a"));
        assertEquals(1001, rewritten.size());
        assertNotEquals(info.etag(), rewritten.etag(), "a new version has a new tag");
        assertInstanceOf(ObjectNotFoundException.class, failure(origin.stat("stat/none")));
    }

    @Test
    void listPagesGroupByTheDelimiterCarryMetadataAndContinue() throws Exception
    {
        for (final String key : List.of("p/a", "p/b/1", "p/b/2", "p/c", "p/d/x/y", "q/z"))
        {
            get(origin.put(key, ByteBuffer.wrap(random(10 + key.length(), key.hashCode()))));
        }
        if (!canList())
        {
            assertInstanceOf(UnsupportedOperationException.class,
                failure(origin.listPage(ListPage.Request.of("p/"))));
            return;
        }
        final ListPage first = get(origin.listPage(new ListPage.Request("p/", "/", null, null, 2)));
        assertEquals(List.of("p/a"), keysOf(first));
        assertEquals(List.of("p/b/"), first.commonPrefixes());
        assertTrue(first.truncated());
        final ListPage second = get(origin.listPage(
            new ListPage.Request("p/", "/", first.nextContinuationToken(), null, 2)));
        assertEquals(List.of("p/c"), keysOf(second));
        assertEquals(List.of("p/d/"), second.commonPrefixes());
        assertFalse(second.truncated(), "nothing is left after p/d/");

        final ListPage flat = get(origin.listPage(new ListPage.Request("p/", null, null, "p/b/1", 1000)));
        assertEquals(List.of("p/b/2", "p/c", "p/d/x/y"), keysOf(flat));
        assertFalse(flat.truncated());
        for (final ObjectInfo listed : flat.objects())
        {
            final ObjectInfo headed = get(origin.stat(listed.key()));
            assertEquals(headed.size(), listed.size(), listed.key());
            assertEquals(10 + listed.key().length(), listed.size(), listed.key());
            assertEquals(headed.etag(), listed.etag(), "a listing and a HEAD agree on the tag of " + listed.key());
            if (hasTimes())
            {
                assertEquals(headed.lastModifiedMillis() / 1000, listed.lastModifiedMillis() / 1000, listed.key());
            }
        }
        assertEquals(List.of(), keysOf(get(origin.listPage(ListPage.Request.of("nothing/")))));
    }

    @Test
    void probeFindsTheContainer() throws Exception
    {
        get(origin.probe());
    }

    /** Whether the origin reports last-modified times. */
    protected boolean hasTimes()
    {
        return true;
    }

    private static List<String> keysOf(final ListPage page)
    {
        final List<String> keys = new ArrayList<>();
        for (final ObjectInfo info : page.objects())
        {
            keys.add(info.key());
        }
        return keys;
    }

    @Test
    void engineReadsThroughThisOrigin() throws Exception
    {
        final byte[] data = random(5 * 65_536 + 17, 6);
        get(origin.put("engine/obj", ByteBuffer.wrap(data)));
        try (RangeCache cache = RangeCache.newBuilder().origin(newOrigin()).blockSize(65_536)
            .maxCoalescedGetBytes(2 * 65_536).store(new SlabBlockStore(16 * 65_536, 65_536)).build())
        {
            final UnsafeBuffer buffer = new UnsafeBuffer(new byte[data.length]);
            cache.read("engine/obj", 0, buffer, 0, data.length);
            assertArrayEquals(data, buffer.byteArray());
            assertEquals(3, cache.metrics().value(MetricNames.ORIGIN_GETS + MetricNames.DEMAND), "6 blocks, cap 2");
            final UnsafeBuffer again = new UnsafeBuffer(new byte[1000]);
            cache.read("engine/obj", 65_000, again, 0, 1000);
            assertArrayEquals(Arrays.copyOfRange(data, 65_000, 66_000), again.byteArray());
            assertEquals(3, cache.metrics().value(MetricNames.ORIGIN_GETS + MetricNames.DEMAND), "served from L1");
            assertTrue(cache.namespace().length() > 0);
            assertNotEquals("", cache.namespace());
        }
    }
}
