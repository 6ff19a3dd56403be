package dev.offcache.server.tier;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.offcache.core.slab.BlockRef;
import dev.offcache.range.ram.RamBlockStore;
import dev.offcache.range.store.BlockKeys;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link TieredBlockStore}'s one background writer: writes blocks evicted from RAM to the SSD tier (a bounded
 * queue; when it is full the block is dropped, never waited for) and, while it has nothing to spill, scrubs the SSD
 * tier at its configured rate.
 *
 * <p>Memory: each queued spill holds the RAM tier's reference to its slot until written, then hands it back with
 * {@link RamBlockStore#evictionDone}; the scrubber's staging block is owned here and freed at {@link #close()} once
 * the thread has stopped (otherwise its cleaner frees it later).
 */
final class SpillWriter
{
    private static final Logger LOG = LoggerFactory.getLogger(TieredBlockStore.class); // the store's log category

    private final SsdTier ssd;
    private final RamBlockStore ram;
    private final ObjectNames names;
    private final TierCounters metrics;
    private final long scrubBytesPerSecond;
    private final BlockingQueue<Spill> spills;
    private final AtomicInteger pending = new AtomicInteger();
    /** RAM-only blocks handed over at close, written after the queue has drained. */
    private final List<Spill> atClose = new ArrayList<>();
    private final ByteBuffer scrubStaging;
    private final UnsafeBuffer scrubView;
    private final Thread thread;
    private volatile boolean closing;

    /** An evicted block on its way to SSD: {@code ref} is the RAM tier's reference, handed back when written. */
    private record Spill(ObjectName name, long blockIndex, long objectSize, long key, BlockRef ref)
    {
    }

    /**
     * A writer not started yet.
     *
     * @param ssd                 the tier spills go to.
     * @param ram                 the tier spills come from (told when each is done).
     * @param names               the engine's object-id to name mapping.
     * @param metrics             where to count.
     * @param queueCapacity       evictions that may wait.
     * @param scrubBytesPerSecond the scrub rate; 0 turns it off (and allocates no staging block).
     * @param blockSize           the staging block's size.
     */
    SpillWriter(
        final SsdTier ssd,
        final RamBlockStore ram,
        final ObjectNames names,
        final TierCounters metrics,
        final int queueCapacity,
        final long scrubBytesPerSecond,
        final int blockSize)
    {
        this.ssd = ssd;
        this.ram = ram;
        this.names = names;
        this.metrics = metrics;
        this.scrubBytesPerSecond = scrubBytesPerSecond;
        this.spills = new ArrayBlockingQueue<>(queueCapacity);
        this.scrubStaging = scrubBytesPerSecond > 0 ? ByteBuffer.allocateDirect(blockSize) : null;
        this.scrubView = null == scrubStaging ? null : new UnsafeBuffer(scrubStaging);
        this.thread = new Thread(this::run, "offcache-ssd-spill");
        this.thread.setDaemon(true);
    }

    void start()
    {
        thread.start();
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Queueing (the RAM tier's maintenance writer)
    // ---------------------------------------------------------------------------------------------------------------

    /** Queues an evicted block's spill; false (the block is dropped) when the queue is full or the store closing. */
    boolean offer(final long blockKey, final BlockRef ref)
    {
        final ObjectName name = names.nameOf(BlockKeys.objectId(blockKey));
        pending.incrementAndGet();
        if (null == name || closing || !spills.offer(new Spill(name, BlockKeys.blockIndex(blockKey),
            names.objectSize(BlockKeys.objectId(blockKey)), blockKey, ref)))
        {
            pending.decrementAndGet();
            metrics.spillsDropped.increment();
            return false;
        }
        metrics.spillsQueued.increment();
        return true;
    }

    /** Spills still queued or being written. */
    int pending()
    {
        return pending.get();
    }

    /**
     * Waits until every queued spill has been written (or failed).
     *
     * @param timeoutMs how long to wait at most.
     * @return whether no spill is pending.
     */
    boolean awaitWritten(final long timeoutMs)
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (pending.get() > 0)
        {
            if (System.nanoTime() > deadline)
            {
                return false;
            }
            Thread.onSpinWait();
            Thread.yield();
        }
        return true;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // The writer thread
    // ---------------------------------------------------------------------------------------------------------------

    private void run()
    {
        while (true)
        {
            final Spill spill;
            try
            {
                spill = spills.poll(100, TimeUnit.MILLISECONDS);
            }
            catch (final InterruptedException ex)
            {
                return;
            }
            if (null == spill)
            {
                if (closing)
                {
                    return;
                }
                scrubSlice();
                continue;
            }
            write(spill);
        }
    }

    /** One idle slot's share of the scrub: a tenth of the per-second rate (the writer idles in 100 ms polls). */
    private void scrubSlice()
    {
        if (null != scrubStaging)
        {
            try
            {
                ssd.scrub(Math.max(1, scrubBytesPerSecond / 10), scrubView);
            }
            catch (final RuntimeException ex)
            {
                LOG.warn("SSD scrub step failed", ex);
            }
        }
    }

    private void write(final Spill spill)
    {
        try
        {
            ssd.write(spill.name(), spill.blockIndex(), spill.objectSize(), spill.ref().buffer(), 0,
                spill.ref().length(), spill.ref().crc32c(), names,
                BlockKeys.objectId(spill.key()));
        }
        catch (final RuntimeException ex)
        {
            LOG.warn("spill of block {} of {} failed", spill.blockIndex(), spill.name(), ex);
        }
        finally
        {
            ram.evictionDone(spill.key(), spill.ref());
            pending.decrementAndGet();
        }
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Close
    // ---------------------------------------------------------------------------------------------------------------

    /** Refuses further spills; the thread stops once the queue is empty. */
    void closing()
    {
        closing = true;
    }

    /**
     * Keeps a block that is only in RAM, to be written at {@link #close()} (the RAM tier's {@code evictAll} at close).
     *
     * @return whether it is kept (false when its name is gone: the block is dropped).
     */
    boolean keepForClose(final long blockKey, final BlockRef ref)
    {
        final ObjectName name = names.nameOf(BlockKeys.objectId(blockKey));
        return null != name && atClose.add(new Spill(name, BlockKeys.blockIndex(blockKey),
            names.objectSize(BlockKeys.objectId(blockKey)), blockKey, ref));
    }

    /**
     * Waits for the thread (10 s at most), writes what is still queued and the blocks kept for close on the calling
     * thread, and frees the staging block when the thread has stopped.
     */
    void close()
    {
        closing = true;
        try
        {
            thread.join(10_000);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        Spill spill;
        while (null != (spill = spills.poll()))
        {
            write(spill);
        }
        for (final Spill kept : atClose)
        {
            pending.incrementAndGet();
            write(kept);
        }
        atClose.clear();
        if (null != scrubStaging && !thread.isAlive())
        {
            // the writer (the only user) has stopped; otherwise the buffer's cleaner frees it later
            BufferUtil.free(scrubStaging);
        }
    }

    /** Whether the thread has stopped (or never started). */
    boolean stopped()
    {
        return !thread.isAlive();
    }
}
