package dev.offcache.range.fetch;

import java.util.Arrays;
import java.util.function.LongConsumer;

import dev.offcache.range.metrics.ReadStatistics;

/**
 * Gathers the blocks one read owns, in block order, into origin requests of at most {@code maxRunBlocks} blocks, and
 * submits each to the {@link BlockFetcher} when it is closed. A run stays open while the blocks added extend it, so
 * the runs of a read are cut only at the coalescing cap, at a block the read did not own (cached, or in flight for
 * someone else) and where the owner closes it: never at the boundaries of the owner's own read-ahead windows. An
 * owner may keep a run open at its read-ahead's edge only while a run it already submitted is still in flight (that
 * one completes and makes room); never on account of blocks it merely joined, which may sit in another owner's open
 * run, so two owners can never wait on each other. With
 * {@code gatherSpans} (an origin that reads several ranges in one request) a run may also jump over blocks, and then
 * carries several spans.
 *
 * <p>Not thread-safe: one owner (a read's drain loop, a stream's event loop) adds and submits. Holds the open run's
 * blocks only; a closed run belongs to the fetcher.
 */
public final class RunAssembler
{
    private final BlockFetcher fetcher;
    private final String key;
    private final long objectSize;
    private final LongConsumer sizeListener;
    private final boolean gatherSpans;
    private final ReadStatistics statistics;
    private final BlockFetch[] open;
    private int count;

    RunAssembler(
        final BlockFetcher fetcher, final String key, final long objectSize, final LongConsumer sizeListener,
        final boolean gatherSpans, final int maxRunBlocks, final ReadStatistics statistics)
    {
        this.statistics = statistics;
        this.fetcher = fetcher;
        this.key = key;
        this.objectSize = objectSize;
        this.sizeListener = sizeListener;
        this.gatherSpans = gatherSpans;
        this.open = new BlockFetch[maxRunBlocks];
    }

    /**
     * Whether a block of this index would join the open run rather than start a new one.
     *
     * @param blockIndex the block's index.
     * @return whether the open run is not empty and the block extends it.
     */
    public boolean wouldExtend(final long blockIndex)
    {
        if (count == 0)
        {
            return false;
        }
        final long last = open[count - 1].blockIndex;
        return gatherSpans ? blockIndex > last : blockIndex == last + 1;
    }

    /**
     * Adds an owned block: submits the open run first when the block does not extend it, and the run with this block
     * when it reaches the cap.
     *
     * @param fetch a block the owner claimed ({@link BlockFetcher#claim}, {@link BlockFetcher#claimIdle}).
     * @return how many blocks this call submitted (0 when the block only joined the open run).
     */
    public int add(final BlockFetch fetch)
    {
        int submitted = 0;
        if (count > 0 && !wouldExtend(fetch.blockIndex))
        {
            submitted += submit();
        }
        open[count++] = fetch;
        if (count == open.length)
        {
            submitted += submit();
        }
        return submitted;
    }

    /**
     * Returns the blocks of the open run.
     *
     * @return blocks added and not yet submitted.
     */
    public int openBlocks()
    {
        return count;
    }

    /**
     * Returns the index after the open run's last block.
     *
     * @return the index after the open run's last block, or -1 when no run is open.
     */
    public long openEnd()
    {
        return count == 0 ? -1 : open[count - 1].blockIndex + 1;
    }

    /**
     * Returns how many more blocks the open run takes before it reaches the cap.
     *
     * @return blocks that can still be added without the run being submitted for its size.
     */
    public int room()
    {
        return open.length - count;
    }

    /**
     * Whether one request may jump over blocks (the origin reads several ranges in one request).
     *
     * @return whether runs carry several spans.
     */
    public boolean gathersSpans()
    {
        return gatherSpans;
    }

    /**
     * Whether a fetch is one of the open run's blocks (not submitted yet).
     *
     * @param fetch the fetch.
     * @return whether it waits for this assembler to submit it.
     */
    public boolean holds(final BlockFetch fetch)
    {
        for (int i = 0; i < count; i++)
        {
            if (open[i] == fetch)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * Closes the open run, if any, and hands it to the fetcher.
     *
     * @return how many blocks were submitted.
     */
    public int submit()
    {
        if (count == 0)
        {
            return 0;
        }
        final BlockFetch[] blocks = Arrays.copyOf(open, count);
        Arrays.fill(open, 0, count, null);
        count = 0;
        if (statistics != null)
        {
            // before the run can complete, so the owner's counts are in place when its read does
            statistics.originRequest();
        }
        fetcher.submit(new FetchRun(key, fetcher.blockSize(), blocks, objectSize, sizeListener, statistics));
        return blocks.length;
    }
}
