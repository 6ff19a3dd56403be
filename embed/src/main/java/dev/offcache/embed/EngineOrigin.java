package dev.offcache.embed;

import java.net.URI;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * Where a shared cache reads the bytes it does not hold: an engine's own file system or {@code FileIO}, asked for
 * one byte range of one file. An adapter registers one per location prefix ({@link OriginRouter}).
 *
 * <p>Memory: {@code destination} belongs to the cache (a direct staging buffer); the source fills it from its
 * position to its limit and must not touch it after the returned future completes.
 */
public interface EngineOrigin
{
    /**
     * Reads {@code destination.remaining()} bytes of a file from {@code offset}.
     *
     * @param location    the file ({@code s3a://bucket/path}), as decoded from the key ({@link CacheKeys#locationOf}).
     * @param length      the file's length, as the key records it (no status call is needed to bound the read).
     * @param offset      the first byte.
     * @param destination where the bytes go.
     * @return the bytes read (the full remaining count unless the file ends first).
     */
    CompletableFuture<Integer> read(URI location, long length, long offset, ByteBuffer destination);
}
