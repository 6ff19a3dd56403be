package dev.offcache.range.engine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import org.agrona.DirectBuffer;

import dev.offcache.range.fetch.BlockFetch;
import dev.offcache.range.fetch.BlockFetcher;
import dev.offcache.range.fetch.BlockWaiter;
import dev.offcache.range.fetch.RunAssembler;
import dev.offcache.range.store.BlockKeys;
import dev.offcache.range.store.FetchClass;

/**
 * How a stream learns its object's size before the first byte goes out (the L2 server sends its headers first):
 * known already, or learned from the origin ({@link RangeCache#sizeForStream}).
 *
 * <p>For an object the engine has not seen, over an origin whose read answers carry the size
 * ({@link dev.offcache.range.origin.ObjectStore#readAnswersCarrySize}), the probe starts the demand fetch of the
 * blocks the stream reads first, as whole blocks: those of its first range, at most the stream's look-ahead, or one
 * coalesced GET's worth when the range's end is not known yet (an open range, a whole object). The size comes with
 * the first answer, so a new object costs no HEAD before its GETs. Concurrent probes and reads of the same blocks
 * share their fetches (single flight), and every probe of the object completes when its size is known by any means.
 * The stream opened with the probe takes those blocks from the probe's fetches, each chunk counted once, as the miss
 * it is. Otherwise (the origin cannot tell, the key bypasses the store, a suffix range, no bytes) the size is one
 * HEAD shared by concurrent callers, as for {@link RangeCache#sizeAsync}. When the answers told nothing (a range past
 * the end at an origin that cannot say where the object ends), the probe asks with a HEAD after them.
 *
 * <p>Memory: holds the fetches it started or joined, never bytes: there is nothing to release. A probe whose caller
 * went away lets its fetches complete and fill the store.
 */
public final class SizeProbe implements BlockWaiter
{
    private final RangeCache cache;
    private final ObjectEntry entry;
    private final long firstBlock;
    /** Per probed block: the fetch the probe started or joined, null when the block was cached already. */
    private final BlockFetch[] fetches;
    private final CompletableFuture<Long> size;
    /** Fetches not done yet, plus one while the probe is starting them. */
    private final AtomicInteger pending = new AtomicInteger(1);
    private volatile Throwable failure;

    private SizeProbe(
        final RangeCache cache, final ObjectEntry entry, final long firstBlock, final int blocks,
        final CompletableFuture<Long> size)
    {
        this.cache = cache;
        this.entry = entry;
        this.firstBlock = firstBlock;
        this.fetches = blocks > 0 ? new BlockFetch[blocks] : null;
        this.size = size;
    }

    /** The size is known: made once per entry and shared, so a stream of a known object allocates nothing here. */
    static SizeProbe known(final ObjectEntry entry, final long size)
    {
        SizeProbe probe = entry.knownProbe;
        if (probe == null)
        {
            probe = new SizeProbe(null, entry, 0, 0, CompletableFuture.completedFuture(size));
            entry.knownProbe = probe;
        }
        return probe;
    }

    /** The size from a (shared) HEAD, or the failure before it. */
    static SizeProbe of(final ObjectEntry entry, final CompletableFuture<Long> size)
    {
        return new SizeProbe(null, entry, 0, 0, size);
    }

    /** Starts the demand fetch of {@code blocks} blocks from {@code firstBlock}; the size comes with the answers. */
    static SizeProbe fetching(final RangeCache cache, final ObjectEntry entry, final long firstBlock, final int blocks)
    {
        final SizeProbe probe = new SizeProbe(cache, entry, firstBlock, blocks, new CompletableFuture<>());
        probe.start();
        return probe;
    }

    /**
     * The object's size, once known; fails as the GET or HEAD that should have told it did
     * ({@link dev.offcache.range.origin.ObjectNotFoundException} for a missing object).
     *
     * @return the size future of this probe (cancelling it only stops this caller listening).
     */
    public CompletableFuture<Long> size()
    {
        return size;
    }

    /**
     * The fetch this probe started or joined for a block, so the stream of the same object takes the block from it.
     *
     * @param streamEntry the entry of the stream asking (a probe of a forgotten entry serves no other).
     * @param blockIndex  the block.
     * @return the fetch (perhaps done by now), or null when the probe did not fetch that block.
     */
    BlockFetch fetchOf(final ObjectEntry streamEntry, final long blockIndex)
    {
        if (fetches == null || streamEntry != entry)
        {
            return null;
        }
        final long at = blockIndex - firstBlock;
        return at >= 0 && at < fetches.length ? fetches[(int) at] : null;
    }

    @Override
    public void onBlock(final long blockIndex, final DirectBuffer source, final int offset, final int length)
    {
        arrive();
    }

    /** A probed block past the end: the answer told what the probe wanted; nothing to record. */
    @Override
    public void onBlockPastEnd(final long blockIndex, final long objectSize)
    {
        arrive();
    }

    @Override
    public void onBlockFailed(final long blockIndex, final Throwable cause)
    {
        if (failure == null)
        {
            failure = cause;
        }
        arrive();
    }

    /** The fetch a probed block waits on, when it joins another reader's (an owned one is recorded by start). */
    @Override
    public void waitsOn(final long blockIndex, final BlockFetch fetch, final boolean owner)
    {
        fetches[(int) (blockIndex - firstBlock)] = owner ? null : fetch;
    }

    private void start()
    {
        cache.directory().sizeKnown(entry).thenAccept(size::complete);
        final BlockFetcher fetcher = cache.fetcher();
        RunAssembler runs = null;
        try
        {
            for (int i = 0; i < fetches.length; i++)
            {
                final long blockIndex = firstBlock + i;
                final long blockKey = BlockKeys.pack(entry.id, blockIndex);
                if (cache.guard().contains(blockKey))
                {
                    continue;
                }
                // the waiter hears of each block exactly once, whatever single flight does with it
                pending.incrementAndGet();
                // the size is not known: a whole block is asked for, cut to the object's end by the answer
                final BlockFetch owned = fetcher.claim(this, blockKey, blockIndex, -1, FetchClass.DEMAND,
                    cache.guard().memory, null);
                if (owned != null)
                {
                    fetches[i] = owned;
                    if (runs == null)
                    {
                        runs = fetcher.assembler(entry.key, -1, (learned) -> cache.learnedSize(entry, learned),
                            false, null);
                    }
                    runs.add(owned);
                }
            }
        }
        catch (final Throwable ex)
        {
            if (failure == null)
            {
                failure = ex;
            }
        }
        finally
        {
            if (runs != null)
            {
                // owned blocks others may have joined: they must be fetched, never stranded
                runs.submit();
            }
        }
        arrive();
    }

    private void arrive()
    {
        if (pending.decrementAndGet() == 0)
        {
            done();
        }
    }

    /** Every probed fetch is over: the size is known by now, or the answers could not tell it (ask), or they failed. */
    private void done()
    {
        if (size.isDone())
        {
            return;
        }
        final long known = entry.size;
        if (known >= 0)
        {
            size.complete(known);
            return;
        }
        final Throwable cause = failure;
        // blocks past the end arrive as such (onBlockPastEnd), not as failures; an IllegalArgumentException from a
        // fetch this probe joined says the same of a reader that does not know the size either
        if (cause != null && !(cause instanceof IllegalArgumentException))
        {
            size.completeExceptionally(cause);
            return;
        }
        cache.directory().size(entry).whenComplete((head, error) ->
        {
            if (error != null)
            {
                size.completeExceptionally(error);
            }
            else
            {
                size.complete(head);
            }
        });
    }
}
