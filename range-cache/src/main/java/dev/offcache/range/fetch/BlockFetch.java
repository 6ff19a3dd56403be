package dev.offcache.range.fetch;

import java.util.ArrayList;
import java.util.List;

import org.agrona.DirectBuffer;

import dev.offcache.range.store.FetchClass;

/**
 * One block being fetched from the origin, shared by every read that wants it (single flight, see
 * {@link BlockFetcher#claim}). Waiters join until the fetch completes; a waiter that arrives later finds it done and
 * looks in the store instead.
 *
 * <p>Memory: holds no bytes; the fetcher hands each waiter a view of its staging buffer during completion.
 */
public final class BlockFetch
{
    private static final int PENDING = 0;
    private static final int DONE = 1;

    final long blockKey;
    final long blockIndex;
    /** The expected length; see {@link #expectedLength()}. */
    final int length;
    final boolean admit;
    /** Whether a demand read waits for this block; written under the permits lock once a run exists. */
    volatile boolean demand;
    /** The run carrying this block; set under the permits lock, read without it only to tell "not sent yet". */
    volatile FetchRun run;
    /**
     * Asks the owner to send the run this block waits in, when the owner keeps runs open (a stream at its look-ahead's
     * edge); null otherwise. A reader that joins a block not sent yet calls it, so it never waits on a stranger's
     * open run.
     */
    private volatile Runnable sendRequest;

    private final List<BlockWaiter> waiters = new ArrayList<>(2);
    private int state = PENDING;

    /**
     * Creates an instance.
     *
     * @param blockKey   the store key.
     * @param blockIndex the index in its object.
     * @param length     bytes of the block.
     * @param fetchClass the class of the read that owns it.
     * @param admit      whether the fetched block should be offered to the store.
     */
    BlockFetch(
        final long blockKey, final long blockIndex, final int length, final FetchClass fetchClass, final boolean admit)
    {
        this.blockKey = blockKey;
        this.blockIndex = blockIndex;
        this.length = length;
        this.admit = admit;
        this.demand = fetchClass == FetchClass.DEMAND;
    }

    /**
     * Returns the store key.
     *
     * @return the store key.
     */
    public long blockKey()
    {
        return blockKey;
    }

    /**
     * Returns the index of the block in its object.
     *
     * @return the index of the block in its object.
     */
    public long blockIndex()
    {
        return blockIndex;
    }

    /**
     * Tells the fetch who to ask to send its run early (see {@link BlockFetcher#join}); set by an owner that may keep
     * the run open.
     *
     * @param request asks the owner to submit its open run now; runs quickly on the joiner's thread.
     */
    void sendRequest(final Runnable request)
    {
        this.sendRequest = request;
    }

    /** The owner's send request when the block's run has not been sent yet, else null. */
    Runnable pendingSendRequest()
    {
        return run == null ? sendRequest : null;
    }

    /**
     * Returns whether a demand read waits for it.
     *
     * @return whether a demand read waits for it.
     */
    public boolean isDemand()
    {
        return demand;
    }

    /**
     * Adds a waiter unless the fetch has already completed.
     *
     * @param waiter who to tell.
     * @return false when the fetch is over (look in the store, or fetch again).
     */
    public synchronized boolean join(final BlockWaiter waiter)
    {
        if (state != PENDING)
        {
            return false;
        }
        waiters.add(waiter);
        return true;
    }

    /**
     * Returns the length expected when the fetch began: the block's length, or the block size when the object's size
     * was not known yet (the fetched length may then be shorter, for the object's last block).
     *
     * @return bytes.
     */
    public int expectedLength()
    {
        return length;
    }

    /**
     * Hands the block to every waiter, then forgets them.
     *
     * @param source the bytes.
     * @param offset where the block starts.
     * @param length the block's length (shorter than {@link #expectedLength()} only for the last block of an object
     *               whose size was learned by this fetch).
     */
    void complete(final DirectBuffer source, final int offset, final int length)
    {
        final BlockWaiter[] toWake = finish();
        for (final BlockWaiter waiter : toWake)
        {
            try
            {
                waiter.onBlock(blockIndex, source, offset, length);
            }
            catch (final Throwable ignore)
            {
                // A waiter's failure is its own; the other waiters still get the block.
            }
        }
    }

    /**
     * Fails every waiter with the same error.
     *
     * @param cause the error.
     */
    void fail(final Throwable cause)
    {
        final BlockWaiter[] toWake = finish();
        for (final BlockWaiter waiter : toWake)
        {
            try
            {
                waiter.onBlockFailed(blockIndex, cause);
            }
            catch (final Throwable ignore)
            {
                // As above: one waiter cannot stop the others hearing of the failure.
            }
        }
    }

    /**
     * Completes the fetch of a block the answer showed to lie past the object's end: each waiter hears
     * {@link BlockWaiter#onBlockPastEnd}.
     *
     * @param objectSize the size the answer told, or -1.
     */
    void completePastEnd(final long objectSize)
    {
        final BlockWaiter[] toWake = finish();
        for (final BlockWaiter waiter : toWake)
        {
            try
            {
                waiter.onBlockPastEnd(blockIndex, objectSize);
            }
            catch (final Throwable ignore)
            {
                // As above.
            }
        }
    }

    private synchronized BlockWaiter[] finish()
    {
        state = DONE;
        final BlockWaiter[] toWake = waiters.toArray(new BlockWaiter[0]);
        waiters.clear();
        return toWake;
    }
}
