package dev.offcache.server.s3;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;

import dev.offcache.range.origin.FileSystemOrigin;
import dev.offcache.range.origin.ForwardingObjectStore;
import dev.offcache.range.origin.ObjectNotFoundException;
import dev.offcache.range.origin.ObjectStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The several-bucket origin over real local directories: {@code BUCKET/KEY} reaches that bucket's object only, a key
 * of no served bucket is missing, listings keep S3's byte order across buckets, the namespace changes with the
 * mapping, and closing closes every origin and then what they share.
 */
class BucketOriginsTest
{
    @TempDir
    Path tmp;

    private final AtomicInteger closed = new AtomicInteger();

    private ObjectStore dir(final String name, final String content) throws Exception
    {
        final Path root = Files.createDirectories(tmp.resolve(name));
        Files.writeString(root.resolve("k"), content);
        return new ForwardingObjectStore(new FileSystemOrigin(root, 1))
        {
            @Override
            public void close()
            {
                closed.incrementAndGet();
                super.close();
            }
        };
    }

    private BucketOrigins origins(final Map<String, String> contents) throws Exception
    {
        final Map<String, ObjectStore> map = new LinkedHashMap<>();
        for (final Map.Entry<String, String> entry : contents.entrySet())
        {
            map.put(entry.getKey(), dir(entry.getKey() + "-dir", entry.getValue()));
        }
        return new BucketOrigins(map, closed::incrementAndGet);
    }

    private static String read(final ObjectStore origin, final String key)
    {
        final ByteBuffer buffer = ByteBuffer.allocate(64);
        final int n = origin.read(key, 0, buffer).join();
        return new String(buffer.array(), 0, n, StandardCharsets.UTF_8);
    }

    private static Throwable failure(final Runnable call)
    {
        final CompletionException error = assertThrows(CompletionException.class, call::run);
        return error.getCause();
    }

    @Test
    void eachKeyReachesItsOwnBucketOnly() throws Exception
    {
        try (BucketOrigins origins = origins(Map.of("aaa", "in aaa", "aaa-b", "in aaa-b")))
        {
            assertEquals("in aaa", read(origins, "aaa/k"));
            assertEquals("in aaa-b", read(origins, "aaa-b/k"));
            assertEquals(6L, origins.size("aaa/k").join());
            assertEquals("aaa-b/k", origins.stat("aaa-b/k").join().key(), "metadata under the engine's key");
            for (final String missing : List.of("zzz/k", "k", "aaa/", "/aaa/k", "aaa/none"))
            {
                assertInstanceOf(ObjectNotFoundException.class, failure(() -> origins.size(missing).join()),
                    missing);
            }
            assertEquals(List.of("aaa-b/k", "aaa/k"), origins.list("").join(), "S3's byte order: '-' before '/'");
            assertEquals(List.of("aaa-b/k", "aaa/k"), origins.list("aaa").join());
            assertEquals(List.of("aaa/k"), origins.list("aaa/").join());
            assertEquals(List.of("aaa", "aaa-b"), origins.names());

            origins.put("aaa/new", ByteBuffer.wrap("new".getBytes(StandardCharsets.UTF_8))).join();
            assertEquals("new", Files.readString(tmp.resolve("aaa-dir/new")));
            assertInstanceOf(IllegalArgumentException.class, failure(() -> origins.put("zzz/new",
                ByteBuffer.allocate(1)).join()));
            origins.delete("aaa/new").join();
            assertEquals(List.of("k"), origins.origin("aaa").list("").join());
        }
        assertEquals(3, closed.get(), "both origins and the shared client");
    }

    @Test
    void theNamespaceIsTheWholeMapping() throws Exception
    {
        try (BucketOrigins one = origins(Map.of("lake", "a", "logs", "b"));
            BucketOrigins same = origins(Map.of("logs", "b", "lake", "a"));
            BucketOrigins renamed = origins(Map.of("lake", "a", "logz", "b")))
        {
            assertEquals(one.namespace(), same.namespace(), "the order given does not matter");
            assertNotEquals(one.namespace(), renamed.namespace());
        }
        final Map<String, ObjectStore> other = new LinkedHashMap<>();
        other.put("lake", dir("elsewhere", "a"));
        other.put("logs", dir("logs-dir-2", "b"));
        try (BucketOrigins moved = new BucketOrigins(other, null);
            BucketOrigins one = origins(Map.of("lake", "a", "logs", "b")))
        {
            assertNotEquals(one.namespace(), moved.namespace(), "a bucket moved to another directory");
        }
        final ObjectStore x = dir("x", "x");
        final ObjectStore y = dir("y", "y");
        try
        {
            assertThrows(IllegalArgumentException.class, () -> new BucketOrigins(Map.of("lake", x), null),
                "one bucket needs no routing");
            assertThrows(IllegalArgumentException.class, () -> new BucketOrigins(Map.of("lake", x, "Bad_Name", y),
                null));
        }
        finally
        {
            x.close();
            y.close();
        }
    }
}
