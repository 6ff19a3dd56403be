package dev.offcache.range.l2;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongConsumer;

import dev.offcache.range.origin.ForwardingObjectStore;
import dev.offcache.range.origin.ObjectKeys;
import dev.offcache.range.origin.ObjectStore;
import dev.offcache.range.store.FetchClass;

/**
 * What the two L2 clients (one server, {@link L2Client}; several, {@code ShardedL2Client}) share as
 * {@link ObjectStore}s in front of the real origin: the real origin's namespace (L2 is a cache of it, so blocks cached
 * through either share keys), answers that carry the object's size ({@code Content-Range} of a 206,
 * {@code Offcache-Object-Size} of {@code POST /ranges}, so the engine reads a new object without a HEAD first),
 * several ranges in one request, and the checks of a read before it goes anywhere. Everything else not overridden
 * (puts, deletes, lists, versions, conditional reads) goes straight to the real origin.
 *
 * <p>Memory and ownership: as {@link ForwardingObjectStore}, it owns the real origin.
 */
public abstract class L2ObjectStore extends ForwardingObjectStore
{
    /**
     * Wraps the real origin.
     *
     * @param origin the real origin, which every fallback reads; owned.
     */
    protected L2ObjectStore(final ObjectStore origin)
    {
        super(origin);
    }

    /** L2's answers carry the object's size, so the engine reads a new object without a HEAD first. */
    @Override
    public final boolean readsReportSize()
    {
        return true;
    }

    /** Several ranges are one {@code POST /ranges}. */
    @Override
    public final boolean readsVectored()
    {
        return true;
    }

    /**
     * Checks the key and offset, answers an empty read with 0 at once, and sends any other read through L2
     * ({@link #readThroughL2}).
     *
     * @param key         the object key.
     * @param offset      the first byte.
     * @param destination where the bytes go, from its position to its limit; the caller owns it.
     * @param fetchClass  demand or prefetch.
     * @param objectSize  told the size from L2's answer, or null.
     * @return the number of bytes read (fewer only where the object ends; 0 from its end on).
     */
    @Override
    public final CompletableFuture<Integer> read(
        final String key, final long offset, final ByteBuffer destination, final FetchClass fetchClass,
        final LongConsumer objectSize)
    {
        ObjectKeys.validateRead(key, offset);
        if (!destination.hasRemaining())
        {
            return CompletableFuture.completedFuture(0);
        }
        return readThroughL2(key, offset, destination, fetchClass, objectSize);
    }

    /**
     * A checked, non-empty read through L2, falling back to the real origin on any failure.
     *
     * @param key         the object key, valid.
     * @param offset      the first byte, not negative.
     * @param destination where the bytes go, with bytes remaining; the caller owns it.
     * @param fetchClass  demand or prefetch.
     * @param objectSize  told the size from L2's answer, or null.
     * @return the number of bytes read.
     */
    protected abstract CompletableFuture<Integer> readThroughL2(
        String key, long offset, ByteBuffer destination, FetchClass fetchClass, LongConsumer objectSize);
}
