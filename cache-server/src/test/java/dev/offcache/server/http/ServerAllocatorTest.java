package dev.offcache.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.internal.PlatformDependent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The server's buffer pool: its stated shape, what it holds after use, and the input it refuses. */
class ServerAllocatorTest
{
    @TempDir
    Path tmp;

    /**
     * A running server's connections allocate from its pool (two event loops: two arenas), which after a burst of
     * reads holds no more than its stated share, while the bytes served are the origin's.
     */
    @Test
    void aServerAllocatesFromItsOwnPoolWithinTheStatedShare() throws Exception
    {
        final int block = ServerHarness.BLOCK;
        final Path origin = Files.createDirectories(tmp.resolve("origin"));
        final byte[] object = new byte[8 * block];
        new Random(13).nextBytes(object);
        Files.write(origin.resolve("data.bin"), object);
        final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        try (ServerHarness harness = new ServerHarness(origin, tmp.resolve("ssd"), 16, 16L * block,
            TransportKind.AUTO))
        {
            for (int i = 0; i < 32; i++)
            {
                final int start = (i * 7919) % (object.length - block);
                final HttpResponse<byte[]> got = harness.get(client, "/obj/data.bin",
                    "bytes=" + start + "-" + (start + block - 1));
                assertEquals(206, got.statusCode());
                assertTrue(Arrays.equals(Arrays.copyOfRange(object, start, start + block), got.body()), "read " + i);
            }
            final HttpResponse<String> metrics = client.send(harness.request("/metrics").build(),
                HttpResponse.BodyHandlers.ofString());
            final long pool = metrics.body().lines()
                .filter(line -> line.startsWith("offcache_server_netty_pool_bytes "))
                .mapToLong(line -> (long) Double.parseDouble(line.substring(line.indexOf(' ') + 1)))
                .findFirst().orElseThrow();
            assertTrue(pool >= ServerAllocator.CHUNK_SIZE && pool <= 2L * ServerAllocator.CHUNK_SIZE,
                "pool holds " + pool + " bytes");
        }
    }

    @Test
    void oneDirectArenaPerEventLoopAndTwoMebibyteChunks()
    {
        final PooledByteBufAllocator pool = ServerAllocator.create(3);
        assertEquals(3, pool.metric().numDirectArenas());
        assertEquals(0, pool.metric().numHeapArenas());
        assertEquals(2 << 20, pool.metric().chunkSize());
        assertEquals(ServerAllocator.CHUNK_SIZE, pool.metric().chunkSize());
        assertTrue(pool.isDirectBufferPooled());
    }

    @Test
    void holdsOneChunkPerUsedArenaAndAllocatesLargerBuffersAlone()
    {
        final PooledByteBufAllocator pool = ServerAllocator.create(2);
        assertEquals(0, pool.metric().usedDirectMemory());
        // a 1 MiB block copy with its CRC trailer fits a chunk
        final ByteBuf copy = pool.directBuffer((1 << 20) + Integer.BYTES);
        assertTrue(copy.isDirect());
        assertEquals(ServerAllocator.CHUNK_SIZE, pool.metric().usedDirectMemory());
        final ByteBuf huge = pool.directBuffer(ServerAllocator.CHUNK_SIZE + 1);
        assertEquals(2L * ServerAllocator.CHUNK_SIZE + 1, pool.metric().usedDirectMemory());
        assertTrue(huge.release());
        assertEquals(ServerAllocator.CHUNK_SIZE, pool.metric().usedDirectMemory(), "a huge buffer is freed at once");
        assertTrue(copy.release());
        // heap buffers are not pooled: they take no direct memory
        final ByteBuf heap = pool.heapBuffer(4096);
        assertTrue(heap.hasArray());
        assertTrue(heap.release());
        assertTrue(pool.metric().usedDirectMemory() <= ServerAllocator.CHUNK_SIZE);
    }

    /**
     * Under the build's JVM flags ({@code -Dio.netty.maxDirectMemory=0}) the pool's chunks are JDK direct buffers:
     * they show in the JVM's direct pool and count against {@code -XX:MaxDirectMemorySize}, the limit the launcher
     * sizes, instead of under a second limit of Netty's own of the same size.
     */
    @Test
    void thePoolsChunksCountAgainstTheJvmsDirectMemoryLimit()
    {
        assertFalse(PlatformDependent.useDirectBufferNoCleaner(), "Netty takes no-cleaner buffers the JVM misses");
        final PooledByteBufAllocator pool = ServerAllocator.create(1);
        final long before = jvmDirectBytes();
        final ByteBuf copy = pool.directBuffer(1 << 20);
        try
        {
            // at least the chunk, give or take another thread's small buffer freed meanwhile (none without the flag)
            assertTrue(jvmDirectBytes() - before >= ServerAllocator.CHUNK_SIZE - 65536,
                "the JVM counts " + (jvmDirectBytes() - before) + " bytes of a " + ServerAllocator.CHUNK_SIZE +
                "-byte chunk");
            assertEquals(-1, PlatformDependent.usedDirectMemory(), "Netty keeps no limit of its own");
        }
        finally
        {
            copy.release();
        }
    }

    private static long jvmDirectBytes()
    {
        return ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
            .filter((pool) -> "direct".equals(pool.getName()))
            .mapToLong(BufferPoolMXBean::getMemoryUsed)
            .sum();
    }

    @Test
    void refusesNoEventLoops()
    {
        assertEquals("eventLoops must be at least 1, was 0",
            assertThrows(IllegalArgumentException.class, () -> ServerAllocator.create(0)).getMessage());
        assertEquals("eventLoops must be at least 1, was -2",
            assertThrows(IllegalArgumentException.class, () -> ServerAllocator.create(-2)).getMessage());
    }
}
