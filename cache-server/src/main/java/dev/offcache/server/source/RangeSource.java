package dev.offcache.server.source;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import dev.offcache.range.engine.BlockStream;
import dev.offcache.range.engine.SizeProbe;
import dev.offcache.range.engine.StreamCredit;
import dev.offcache.range.engine.StreamSink;

/**
 * What the HTTP layer reads from: object sizes, and response bodies as one {@link BlockStream} per request (the
 * ranges of one object, in body order, handed to a {@link StreamSink} on the connection's event loop). The
 * range-cache engine sits behind it; the HTTP layer never talks to tiers or origins itself, and every request shape
 * (a whole object, one range, {@code POST /ranges}, and later the S3 API) is one stream, so they share coalescing,
 * the fetch permits and the metrics.
 */
public interface RangeSource
{
    /**
     * The block size: no chunk of a stream spans two blocks.
     *
     * @return bytes.
     */
    int blockSize();

    /**
     * The size of an object.
     *
     * @param key a validated object key.
     * @return the size; fails with {@link dev.offcache.range.origin.ObjectNotFoundException} when the origin has
     *     no such object.
     */
    CompletableFuture<Long> size(String key);

    /**
     * The object's size when it is known without asking the origin.
     *
     * @param key a validated object key.
     * @return the size, or -1 when it is not known yet.
     */
    long sizeNow(String key);

    /**
     * The size of an object a response body is about to read, learned if need be from the origin's answer to the
     * fetch of the body's first blocks, which this starts (see {@link SizeProbe}): a new object then costs no HEAD
     * before its GETs. Never throws.
     *
     * @param key      a validated object key.
     * @param position the body's first byte, or -1 for a range counted from the end (the size is asked first).
     * @param length   the bytes it reads from there, or -1 when the end is not known yet.
     * @return the probe; pass it to {@link #openStream(String, long[], long[], SizeProbe, StreamCredit, Executor,
     *     StreamSink)} once its size is known.
     */
    SizeProbe sizeForStream(String key, long position, long length);

    /**
     * Opens the body of a response: the given ranges of an object whose size {@link #size} has returned.
     *
     * @param key      a validated object key.
     * @param starts   the first byte of each range, in body order.
     * @param lengths  each range's length (inside the object).
     * @param credit   the response memory budget.
     * @param executor the connection's event loop.
     * @param sink     writes the chunks to the connection.
     * @return the stream, not started.
     */
    default BlockStream openStream(
        String key, long[] starts, long[] lengths, StreamCredit credit, Executor executor, StreamSink sink)
    {
        return openStream(key, starts, lengths, null, credit, executor, sink);
    }

    /**
     * Opens the body of a response after a {@link SizeProbe} told the object's size: the blocks it fetched are taken
     * from its fetches.
     *
     * @param key      a validated object key.
     * @param starts   the first byte of each range, in body order.
     * @param lengths  each range's length (inside the object).
     * @param probe    the probe from {@link #sizeForStream}, or null.
     * @param credit   the response memory budget.
     * @param executor the connection's event loop.
     * @param sink     writes the chunks to the connection.
     * @return the stream, not started.
     */
    BlockStream openStream(
        String key, long[] starts, long[] lengths, SizeProbe probe, StreamCredit credit, Executor executor,
        StreamSink sink);

    /**
     * Warms the blocks of a range at prefetch priority (they land on the SSD tier).
     *
     * @param key    a validated object key.
     * @param offset where the range starts.
     * @param length how many bytes.
     * @return completes when the blocks are stored or failed.
     */
    CompletableFuture<Void> prefetch(String key, long offset, long length);
}
