package dev.offcache.range.origin;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongConsumer;

import dev.offcache.range.store.FetchClass;

/**
 * An origin whose every read is one ranged GET, plain or conditional ({@code If-Match}), and whose answer carries the
 * object's size as a rule (an HTTP or S3 {@code 206}'s {@code Content-Range}, a local file's length): the object
 * store itself (S3, an HTTP server, a local directory), not a tier in front of one, so the fetch class means nothing
 * to it. It writes the one {@link #get}; the read forms of {@link ObjectStore} come from it.
 *
 * <p>Memory: as {@link ObjectStore}: the caller owns the destination; the GET fills it from its position.
 */
public abstract class RangedGetOrigin implements ObjectStore
{
    /** One {@link #get}, unconditional. */
    @Override
    public final CompletableFuture<Integer> read(
        final String key, final long offset, final ByteBuffer destination, final FetchClass fetchClass,
        final LongConsumer objectSize)
    {
        return get(key, offset, destination, null, objectSize);
    }

    /** One {@link #get} that must match the tag; no size is reported. */
    @Override
    public final CompletableFuture<Integer> readIfMatch(
        final String key, final long offset, final ByteBuffer destination, final String ifMatch)
    {
        return get(key, offset, destination, ifMatch, null);
    }

    /** A GET's answer carries the object's size. */
    @Override
    public final boolean readAnswersCarrySize()
    {
        return true;
    }

    /** The origin's namespace, which names it in logs. */
    @Override
    public String toString()
    {
        return namespace();
    }

    /**
     * One ranged GET of {@code destination.remaining()} bytes from {@code offset} into {@code destination}.
     *
     * @param key         the object key.
     * @param offset      the first byte to read; may lie past the end (then 0 bytes are read).
     * @param destination where the bytes go, from its position; the caller owns it.
     * @param ifMatch     the entity tag or version the object must have, or null for a plain read.
     * @param objectSize  told the object's size when the answer carries it, or null.
     * @return the number of bytes read, fewer only where the object ends; fails with
     *     {@link ObjectNotFoundException} when there is no such object, with {@link PreconditionFailedException}
     *     when the tag differs.
     */
    protected abstract CompletableFuture<Integer> get(
        String key, long offset, ByteBuffer destination, String ifMatch, LongConsumer objectSize);
}
