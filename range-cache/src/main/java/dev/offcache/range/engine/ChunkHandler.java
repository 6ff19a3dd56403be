package dev.offcache.range.engine;

import java.util.concurrent.CompletionStage;

import org.agrona.DirectBuffer;

/**
 * Receives a streaming read in order, one window at a time. The bytes belong to the stream and are valid until
 * the returned stage completes; then the stream reuses the buffer for a later window.
 */
@FunctionalInterface
public interface ChunkHandler
{
    /**
     * One window of the stream.
     *
     * @param buffer   the bytes.
     * @param offset   where they start in {@code buffer}.
     * @param length   how many.
     * @param position their position in the object.
     * @return completes when the handler is done with the bytes (backpressure).
     */
    CompletionStage<?> onChunk(DirectBuffer buffer, int offset, int length, long position);
}
