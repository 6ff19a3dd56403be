package dev.offcache.range.engine;

import java.nio.ByteBuffer;

import dev.offcache.core.slab.BlockRef;
import dev.offcache.range.store.BlockFile;

/**
 * Receives a {@link BlockStream} in body order: each chunk (a part of one range that lies in one block) exactly once,
 * as a zero-copy view of the store's memory, as a region of a file the store keeps, or as a copy when the store did
 * not keep the block. Every method runs on the stream's executor (the consumer's event loop), never two at once.
 *
 * <p>Ownership: each chunk method hands the sink one resource that it must let go of exactly once when it is done
 * with the bytes ({@link BlockRef#release()}, {@link BlockFile#release()}, {@link org.agrona.BufferUtil#free}), and
 * the chunk's {@code length} bytes of the stream's {@link StreamCredit}, which it returns with
 * {@link StreamCredit#release(long)}. The stream never touches a chunk again after handing it over.
 */
public interface StreamSink
{
    /**
     * A chunk in the store's memory.
     *
     * @param range    the index of the range this chunk belongs to.
     * @param position the chunk's first byte in the object.
     * @param ref      the block, retained for the sink.
     * @param offset   where the chunk starts in {@link BlockRef#buffer()}.
     * @param length   the chunk's length.
     * @return whether the sink can take another chunk now; false pauses the stream until {@link BlockStream#resume()}.
     */
    boolean onMemory(int range, long position, BlockRef ref, int offset, int length);

    /**
     * A chunk in a file the store keeps, to be sent from the file.
     *
     * @param range    the index of the range this chunk belongs to.
     * @param position the chunk's first byte in the object.
     * @param file     the open block file, one reference for the sink.
     * @param offset   where the chunk starts in the block (add {@link BlockFile#dataPosition()} for the file offset).
     * @param length   the chunk's length.
     * @return as {@link #onMemory}.
     */
    boolean onFile(int range, long position, BlockFile file, int offset, int length);

    /**
     * A chunk copied for the sink, because the store did not keep its block.
     *
     * @param range    the index of the range this chunk belongs to.
     * @param position the chunk's first byte in the object.
     * @param copy     direct memory holding exactly the chunk (position 0, limit = length), freed by the sink.
     * @return as {@link #onMemory}.
     */
    boolean onCopy(int range, long position, ByteBuffer copy);

    /**
     * The stream handed over what it had ready and now waits (for a fetch, for credit, or for the sink): a good time
     * to flush.
     */
    void onIdle();

    /**
     * Every chunk was handed over.
     */
    void onComplete();

    /**
     * The stream failed (a fetch failed, or the engine closed); no chunk follows. Chunks already handed over stay
     * the sink's.
     *
     * @param error why.
     */
    void onError(Throwable error);
}
