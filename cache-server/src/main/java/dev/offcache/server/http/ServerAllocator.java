package dev.offcache.server.http;

import io.netty.buffer.PooledByteBufAllocator;

/**
 * The Netty buffer pool of one {@link L2HttpServer}, sized from its event loops instead of Netty's process-wide
 * default (in 4.2 the adaptive allocator, whose chunks grow to 10 MiB each, two per magazine and up to 2 x cores
 * magazines plus a central queue). The pool holds socket reads, encoded response heads, CRC trailers and the copies
 * of bytes that cannot be sent from a slot or a file: cached bodies go out as slot views and file regions, not
 * through it.
 * <p>
 * One direct arena per event loop (each loop allocates from its own, uncontended), no heap arenas (heap buffers are
 * rare here and left unpooled), 2 MiB chunks (a 1 MiB block's copy with its trailer fits one; a larger one is
 * allocated alone and freed on release), and per-thread caches only on Netty's own threads. So the pool's direct
 * memory is at least one chunk per arena once used, and beyond that what is in flight, rounded up to chunks: the
 * stated share is {@code eventLoops x CHUNK_SIZE} ({@code offcache_server_netty_pool_bytes} shows the real value).
 * The memory is direct, outside the heap: under the build's JVM flags ({@code -Dio.netty.maxDirectMemory=0}) JDK
 * direct buffers, counted against {@code -XX:MaxDirectMemorySize} with the RAM tier (without that flag Netty takes
 * no-cleaner buffers the JVM does not count, under a second limit of its own). Netty has no call that frees a pool:
 * at close the event loops' thread caches go with their threads, and the chunks the arenas keep (one each once
 * used) are freed when the pool is collected.
 */
final class ServerAllocator
{
    /** Netty's page: the smallest run a normal-sized buffer takes. */
    static final int PAGE_SIZE = 8192;
    /** Chunk = page << order: 2 MiB. */
    static final int MAX_ORDER = 8;
    /** Bytes of one chunk, the unit the pool takes direct memory in. */
    static final int CHUNK_SIZE = PAGE_SIZE << MAX_ORDER;
    /** Cached small buffers (under a page) per size class and thread: Netty's default. */
    static final int SMALL_CACHE_SIZE = 256;
    /** Cached normal buffers (a page up to 32 KiB) per size class and thread: Netty's default. */
    static final int NORMAL_CACHE_SIZE = 64;

    private ServerAllocator()
    {
    }

    /**
     * A pool for a server with {@code eventLoops} event loops.
     *
     * @param eventLoops the worker group's threads, at least 1: one direct arena each.
     * @return a new pool; direct buffers preferred.
     */
    static PooledByteBufAllocator create(final int eventLoops)
    {
        if (eventLoops < 1)
        {
            throw new IllegalArgumentException("eventLoops must be at least 1, was " + eventLoops);
        }
        return new PooledByteBufAllocator(true, 0, eventLoops, PAGE_SIZE, MAX_ORDER, SMALL_CACHE_SIZE,
            NORMAL_CACHE_SIZE, false);
    }
}
