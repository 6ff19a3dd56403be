package dev.offcache.range.fetch;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.function.LongConsumer;

import dev.offcache.range.metrics.ReadStatistics;
import dev.offcache.range.store.FetchClass;

/**
 * Missing blocks of one object fetched by one origin request: usually one span of contiguous blocks (one GET), or,
 * for an origin that reads several ranges in one request ({@link dev.offcache.range.origin.ObjectStore#readsVectored}),
 * several spans. At most {@code maxCoalescedGetBytes} in total, so it fits one staging buffer. Its class is demand
 * when any block has a demand waiter; it can be promoted while queued or running.
 *
 * <p>A run of an object whose size is not known yet (a cold read through an origin whose answers report sizes) asks
 * for whole blocks; the answer says where the object ends ({@link #accept(long)}, or a short read), and the blocks
 * are cut to it. The run is its own size sink, so a GET allocates nothing for it.
 */
public final class FetchRun implements LongConsumer
{
    final String key;
    final long offset;
    final int length;
    final BlockFetch[] blocks;
    final int blockSize;
    final long objectSize;
    final LongConsumer sizeListener;
    final ReadStatistics statistics;
    /** Per span: the index in {@link #blocks} of its first block, its object offset and requested length. */
    final int[] spanFirst;
    final long[] spanOffsets;
    final int[] spanLengths;
    /** Guarded by the permits lock. */
    FetchClass fetchClass;
    /** Guarded by the permits lock: whether it counts against the prefetch permits. */
    boolean holdsPrefetchPermit;
    /** Guarded by the permits lock. */
    boolean queued;
    private static final AtomicIntegerFieldUpdater<FetchRun> SIZE_TOLD =
        AtomicIntegerFieldUpdater.newUpdater(FetchRun.class, "sizeTold");
    private volatile long reportedSize = -1;
    private volatile int sizeTold;
    private final AtomicBoolean finished = new AtomicBoolean();

    FetchRun(final String key, final int blockSize, final BlockFetch[] blocks, final long objectSize)
    {
        this(key, blockSize, blocks, objectSize, null, null);
    }

    /**
     * A run over blocks sorted by index; contiguous blocks form one span.
     *
     * @param key          the object key.
     * @param blockSize    bytes per block.
     * @param blocks       the blocks, sorted by index, no duplicates.
     * @param objectSize   the object's size, or -1 when not known yet (whole blocks are asked for).
     * @param sizeListener told the size a run of unknown size learned, once, before any block completes: with the
     *                     answer's headers when they carry it, else once the body is in; may be null.
     * @param statistics   the counters of the read that owns the run, or null.
     */
    FetchRun(
        final String key, final int blockSize, final BlockFetch[] blocks, final long objectSize,
        final LongConsumer sizeListener, final ReadStatistics statistics)
    {
        this.statistics = statistics;
        this.key = key;
        this.blockSize = blockSize;
        this.blocks = blocks;
        this.objectSize = objectSize;
        this.sizeListener = sizeListener;
        int spans = 1;
        for (int i = 1; i < blocks.length; i++)
        {
            if (blocks[i].blockIndex != blocks[i - 1].blockIndex + 1)
            {
                spans++;
            }
        }
        spanFirst = new int[spans];
        spanOffsets = new long[spans];
        spanLengths = new int[spans];
        int span = 0;
        long total = 0;
        for (int i = 0; i < blocks.length; i++)
        {
            final boolean starts = i == 0 || blocks[i].blockIndex != blocks[i - 1].blockIndex + 1;
            if (starts)
            {
                if (i > 0)
                {
                    span++;
                }
                spanFirst[span] = i;
                spanOffsets[span] = blocks[i].blockIndex * (long) blockSize;
            }
            final long blockStart = blocks[i].blockIndex * (long) blockSize;
            final long blockEnd = objectSize < 0 ? blockStart + blockSize :
                Math.min(objectSize, blockStart + blockSize);
            spanLengths[span] += (int) (blockEnd - blockStart);
            total += blockEnd - blockStart;
        }
        this.offset = spanOffsets[0];
        this.length = (int) total;
    }

    /**
     * Returns the object key.
     *
     * @return the object key.
     */
    public String key()
    {
        return key;
    }

    /**
     * Returns the first byte fetched.
     *
     * @return the first byte fetched.
     */
    public long offset()
    {
        return offset;
    }

    /**
     * Returns the bytes asked for (all spans).
     *
     * @return the bytes asked for.
     */
    public int length()
    {
        return length;
    }

    /**
     * Returns the blocks carried.
     *
     * @return the blocks carried.
     */
    public int blockCount()
    {
        return blocks.length;
    }

    /**
     * Returns the spans (ranges of contiguous blocks) asked for in the one request.
     *
     * @return at least 1.
     */
    public int spanCount()
    {
        return spanFirst.length;
    }

    /**
     * Returns the counters of the read whose blocks the run fetches (a run carries one read's blocks), for an origin
     * that counts which tier served it ({@link ReadStatistics#l2Hit}).
     *
     * @return the owner's counters, or null when its caller passed none.
     */
    public ReadStatistics statistics()
    {
        return statistics;
    }

    /**
     * The origin's report of the object's size (an answer's {@code Content-Range}), usually with the answer's headers,
     * before its body: a run of unknown size tells its listener at once, so whoever waits for the size (the L2
     * server's headers, the rest of a stream's runs) goes on while this run's body is still arriving.
     *
     * @param size the object's size in bytes.
     */
    @Override
    public void accept(final long size)
    {
        reportedSize = size;
        if (objectSize < 0 && size >= 0 && sizeListener != null && SIZE_TOLD.compareAndSet(this, 0, 1))
        {
            try
            {
                sizeListener.accept(size);
            }
            catch (final RuntimeException ignore)
            {
                // called from inside the origin's read: a listener's failure must not fail the GET; the blocks
                // still complete, and the size is told by them
            }
        }
    }

    /**
     * Tells the listener the size the run learned when the answer's headers did not (a short read), once.
     *
     * @param size the size learned from the answer, at least 0.
     */
    void tellSize(final long size)
    {
        if (sizeListener != null && SIZE_TOLD.compareAndSet(this, 0, 1))
        {
            sizeListener.accept(size);
        }
    }

    long reportedSize()
    {
        return reportedSize;
    }

    boolean finish()
    {
        return finished.compareAndSet(false, true);
    }

    boolean isFinished()
    {
        return finished.get();
    }

    boolean anyDemand()
    {
        for (final BlockFetch block : blocks)
        {
            if (block.demand)
            {
                return true;
            }
        }
        return false;
    }
}
