package dev.offcache.server.tier;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.offcache.core.checksum.Crc32c;
import dev.offcache.core.config.ConcludeOnce;
import dev.offcache.core.slab.BlockRef;
import dev.offcache.core.slab.BlockSlab;
import dev.offcache.range.config.InvalidSettingException;
import dev.offcache.range.engine.RangeCacheBuilder;
import dev.offcache.range.ram.EvictionListener;
import dev.offcache.range.ram.RamBlockStore;
import dev.offcache.range.policy.PolicyKind;
import dev.offcache.range.store.BlockKeys;
import dev.offcache.range.store.BlockStore;
import dev.offcache.range.store.FetchClass;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The L2 server's {@link BlockStore}: a RAM tier (an {@link RamBlockStore}: off-heap slab, lock-free lookups, LRU)
 * over an SSD tier (CRC-checked block files, capacity eviction).
 *
 * <ul>
 *   <li>Demand fills go to RAM; a block evicted from RAM that is not on SSD yet is spilled there by one background
 *   writer, the {@code SpillWriter} (a bounded queue; when it is full the block is dropped, never waited for).</li>
 *   <li>Prefetch fills go to SSD only, so warming never evicts hot RAM blocks.</li>
 *   <li>An SSD hit is read into a fresh slot, CRC-checked, and promoted to RAM only when its length is right:
 *   equal to the length its header and index record, and no larger than a RAM slot. Anything else is a miss (and a
 *   block that fails its check is deleted, so the engine refetches it).</li>
 * </ul>
 *
 * Packed block keys carry process-local object ids; {@link ObjectNames} maps them to durable names for the SSD tier.
 * Memory: the store owns its slab and every resident slot; a reader owns the reference {@link #acquire(long) } gives.
 */
public final class TieredBlockStore implements BlockStore
{
    private final Context ctx;
    private final RamBlockStore ram;
    private final SsdTier ssd;
    private final TierCounters metrics;
    private final boolean ownsMetrics;
    private final ObjectNames names;
    private final SpillWriter spillWriter;
    private final ExecutorService ssdReaders;
    /** One block of scratch memory per SSD reader thread, for verifying blocks; freed at close. */
    private final ArrayBlockingQueue<UnsafeBuffer> scratchBuffers;
    private volatile boolean closed;

    /** Configuration of a {@link TieredBlockStore}; {@link #conclude()} checks it. */
    public static final class Context
    {
        /** Default RAM tier capacity: 256 MiB. */
        public static final long DEFAULT_RAM_CAPACITY_BYTES = 256L << 20;
        /** Default SSD tier capacity, headers included: 10 GiB. */
        public static final long DEFAULT_SSD_CAPACITY_BYTES = 10L << 30;
        /** Default SSD scrub rate of an embedded store: off (tests and benchmarks decide when blocks get checked). */
        public static final long DEFAULT_SSD_SCRUB_BYTES_PER_SECOND = 0;
        /** The SSD scrub rate {@code offcache-server} runs with unless told otherwise: 8 MiB/s. */
        public static final long SERVER_SSD_SCRUB_BYTES_PER_SECOND = 8L << 20;
        /** Default threads reading SSD blocks not verified yet. */
        public static final int DEFAULT_SSD_READ_THREADS = 4;
        /** Default RAM evictions that may wait for the SSD writer. */
        public static final int DEFAULT_SPILL_QUEUE_CAPACITY = 32;

        private final ConcludeOnce concluded = new ConcludeOnce();
        private long ramCapacityBytes = DEFAULT_RAM_CAPACITY_BYTES;
        private int blockSize = RangeCacheBuilder.DEFAULT_BLOCK_SIZE;
        private Path ssdDir;
        private long ssdCapacityBytes = DEFAULT_SSD_CAPACITY_BYTES;
        private int spillQueueCapacity = DEFAULT_SPILL_QUEUE_CAPACITY;
        private long ssdScrubBytesPerSecond = DEFAULT_SSD_SCRUB_BYTES_PER_SECOND;
        private int ssdReadThreads = DEFAULT_SSD_READ_THREADS;
        private int ssdOpenFiles = SsdTier.DEFAULT_OPEN_FILES;
        private ObjectNames names;
        private TierCounters metrics;

        /**
         * The RAM tier's capacity (the slab's capacity).
         *
         * @param bytes capacity, at least one block.
         * @return this.
         */
        public Context ramCapacityBytes(final long bytes)
        {
            this.ramCapacityBytes = bytes;
            return this;
        }

        /**
         * The block size (a RAM slot's size), a power of two from {@link BlockSlab#MIN_SLOT_SIZE} to
         * {@link BlockSlab#MAX_SLOT_SIZE} (default the engine's, {@link RangeCacheBuilder#DEFAULT_BLOCK_SIZE}).
         *
         * @param bytes block size.
         * @return this.
         */
        public Context blockSize(final int bytes)
        {
            this.blockSize = bytes;
            return this;
        }

        /**
         * The block size.
         *
         * @return bytes.
         */
        public int blockSize()
        {
            return blockSize;
        }

        /**
         * The SSD tier's directory.
         *
         * @param dir directory, created when missing.
         * @return this.
         */
        public Context ssdDir(final Path dir)
        {
            this.ssdDir = dir;
            return this;
        }

        /**
         * The SSD tier's capacity, headers included.
         *
         * @param bytes capacity.
         * @return this.
         */
        public Context ssdCapacityBytes(final long bytes)
        {
            this.ssdCapacityBytes = bytes;
            return this;
        }

        /**
         * How many RAM evictions may wait for the SSD writer before further ones are dropped. The RAM slab gets
         * this many slots beyond the capacity, so pending spills do not stall fills (default 32: a burst of evictions,
         * such as one cold 16 MiB read through a small RAM tier, must not drop blocks on their way to SSD).
         *
         * @param capacity queue capacity.
         * @return this.
         */
        public Context spillQueueCapacity(final int capacity)
        {
            this.spillQueueCapacity = capacity;
            return this;
        }

        /**
         * The engine's object-id to name mapping.
         *
         * @param names the mapping.
         * @return this.
         */
        public Context names(final ObjectNames names)
        {
            this.names = names;
            return this;
        }

        /**
         * How many SSD bytes per second the spill writer re-reads and CRC-checks while it has nothing to spill
         * ({@link SsdTier#scrub}); 0 (the default, {@link #DEFAULT_SSD_SCRUB_BYTES_PER_SECOND}) turns the scrub off.
         *
         * @param bytesPerSecond the scrub rate.
         * @return this.
         */
        public Context ssdScrubBytesPerSecond(final long bytesPerSecond)
        {
            this.ssdScrubBytesPerSecond = bytesPerSecond;
            return this;
        }

        /**
         * Threads that read SSD blocks not verified yet (their first read since the tier opened: read, CRC-check,
         * promote to RAM) for streams, which never wait on an event loop.
         *
         * @param threads at least 1 (default 4).
         * @return this.
         */
        public Context ssdReadThreads(final int threads)
        {
            this.ssdReadThreads = threads;
            return this;
        }

        /**
         * Verified SSD block files kept open between sends (a descriptor cache, least recently used closed first).
         *
         * @param files at least 0 (default {@link SsdTier#DEFAULT_OPEN_FILES}); 0 opens and closes one per send.
         * @return this.
         */
        public Context ssdOpenFiles(final int files)
        {
            this.ssdOpenFiles = files;
            return this;
        }

        /**
         * Where to count: counters in a region their owner frees after this store has closed (the server's
         * counters file). When not given, the store counts in a private region it frees at close.
         *
         * @param metrics the metrics.
         * @return this.
         */
        public Context metrics(final TierCounters metrics)
        {
            this.metrics = metrics;
            return this;
        }

        /**
         * Checks the sizes and limits without the directory and names, so a front end can refuse a bad value before
         * it makes anything. {@link #conclude()} checks them again.
         *
         * @return this.
         * @throws InvalidSettingException naming the first setting that is wrong (its method's name).
         */
        public Context validate()
        {
            if (!BlockSlab.isSlotSize(blockSize))
            {
                throw InvalidSettingException.of("blockSize", "must be a power of two from " +
                    BlockSlab.MIN_SLOT_SIZE + " to " + BlockSlab.MAX_SLOT_SIZE + " bytes, was " + blockSize);
            }
            if (ramCapacityBytes < blockSize)
            {
                throw InvalidSettingException.of("ramCapacityBytes", "must hold at least one block (" + blockSize +
                    " bytes), was " + ramCapacityBytes);
            }
            final long oneFile = BlockFileFormat.HEADER_LENGTH + (long) blockSize;
            if (ssdCapacityBytes < oneFile)
            {
                throw InvalidSettingException.of("ssdCapacityBytes", "must hold at least one block file (" + oneFile +
                    " bytes: a block and its header), was " + ssdCapacityBytes);
            }
            if (ssdScrubBytesPerSecond < 0)
            {
                throw InvalidSettingException.of("ssdScrubBytesPerSecond", "must be >= 0 (0 turns it off), was " +
                    ssdScrubBytesPerSecond);
            }
            if (ssdReadThreads < 1)
            {
                throw InvalidSettingException.of("ssdReadThreads", "must be >= 1, was " + ssdReadThreads);
            }
            if (ssdOpenFiles < 0)
            {
                throw InvalidSettingException.of("ssdOpenFiles", "must be >= 0 (0 opens one per send), was " +
                    ssdOpenFiles);
            }
            if (spillQueueCapacity < 1)
            {
                throw InvalidSettingException.of("spillQueueCapacity", "must be >= 1, was " + spillQueueCapacity);
            }
            return this;
        }

        /**
         * Checks the configuration: {@link #validate()}, then that the directory and names are set.
         *
         * @return this.
         * @throws InvalidSettingException naming the first setting that is wrong.
         */
        public Context conclude()
        {
            concluded.conclude(this);
            validate();
            Objects.requireNonNull(ssdDir, "ssdDir");
            Objects.requireNonNull(names, "names");
            return this;
        }

        /**
         * Direct memory the store takes at open, counted against {@code -XX:MaxDirectMemorySize}: the RAM slab (the
         * capacity's blocks plus one slot per spill-queue entry) and the scrubber's staging block. Start-up compares
         * it with the JVM's limit before allocating anything.
         *
         * @return bytes.
         */
        public long directMemoryBytes()
        {
            return slabBytes() + (ssdScrubBytesPerSecond > 0 ? blockSize : 0);
        }

        long slabBytes()
        {
            return (ramCapacityBytes / blockSize + spillQueueCapacity) * blockSize;
        }
    }

    private TieredBlockStore(final Context ctx)
    {
        this.ctx = ctx;
        this.ownsMetrics = null == ctx.metrics;
        this.metrics = ownsMetrics ? new TierCounters() : ctx.metrics;
        this.names = ctx.names;
        this.scratchBuffers = new ArrayBlockingQueue<>(ctx.ssdReadThreads);
        // each step that owns memory, files or threads is undone, in reverse order, when a later one throws
        SsdTier tier = null;
        ExecutorService readers = null;
        RamBlockStore slab = null;
        SpillWriter writer = null;
        try
        {
            tier = SsdTier.open(ctx.ssdDir, ctx.ssdCapacityBytes, ctx.ssdOpenFiles, metrics);
            final AtomicInteger readerIds = new AtomicInteger();
            readers = Executors.newFixedThreadPool(ctx.ssdReadThreads, (task) ->
            {
                final Thread thread = new Thread(task, "offcache-ssd-read-" + readerIds.getAndIncrement());
                thread.setDaemon(true);
                return thread;
            });
            tier.readFilesOn(readers);
            // LRU, every hit recorded: the RAM tier keeps the exact recency order it always had. The spare slots hold
            // evicted blocks until their spill is written, so a burst of evictions does not stall fills.
            slab = new RamBlockStore(new RamBlockStore.Context()
                .capacityBytes(ctx.ramCapacityBytes)
                .blockSize(ctx.blockSize)
                .policy(PolicyKind.LRU)
                .hitSampling(1)
                .spareSlots(ctx.spillQueueCapacity)
                .evictionListener(new RamEvictions()));
            writer = new SpillWriter(tier, slab, names, metrics, ctx.spillQueueCapacity, ctx.ssdScrubBytesPerSecond,
                ctx.blockSize);
            this.ssd = tier;
            this.ssdReaders = readers;
            this.ram = slab;
            this.spillWriter = writer;
            writer.start();
        }
        catch (final RuntimeException | Error ex)
        {
            freeFailedOpen(tier, readers, slab, writer);
            throw ex;
        }
    }

    /** Frees what a constructor that threw had made, in reverse order (each argument null when not made yet). */
    private void freeFailedOpen(
        final SsdTier tier, final ExecutorService readers, final RamBlockStore slab, final SpillWriter writer)
    {
        closed = true;
        if (null != writer)
        {
            writer.close();
        }
        if (null != slab)
        {
            slab.close();
        }
        if (null != readers)
        {
            readers.shutdownNow();
        }
        if (null != tier)
        {
            tier.close();
        }
        if (ownsMetrics)
        {
            metrics.close();
        }
    }

    /**
     * Opens the store: recovers the SSD tier's index from its block files and allocates the RAM slab.
     *
     * @param ctx the configuration.
     * @return the open store.
     */
    public static TieredBlockStore open(final Context ctx)
    {
        return new TieredBlockStore(ctx.conclude());
    }

    /**
     * Looks in RAM, then reads (and CRC-checks) an SSD block into a RAM slot on the calling thread. Lookups are not
     * counted here: the engine counts each once, with the tier that answered ({@code offcache_range_block_*}).
     */
    @Override
    public BlockRef acquire(final long blockKey)
    {
        final BlockRef hit = ram.acquire(blockKey);
        return null != hit ? hit : promoteFromSsd(blockKey);
    }

    @Override
    public BlockRef acquireInMemory(final long blockKey)
    {
        return ram.acquire(blockKey);
    }

    /**
     * A verified SSD block, open to be sent straight from its file without reading it into RAM (see
     * {@link SsdTier#openVerified}); from the tier's descriptor cache when it is open already. Never touches RAM.
     */
    @Override
    public SsdFile openFile(final long blockKey, final int expectedLength)
    {
        if (closed)
        {
            return null;
        }
        return ssd.openVerified(ssd.find(blockKey, names), expectedLength);
    }

    /**
     * An SSD block not verified yet (its first read since the tier opened): read and CRC-checked on the tier's reader
     * threads ({@code ssdReadThreads}), so an event loop never waits for the disk; once it passes, it is sent from its
     * file ({@link #openFile}). It is not promoted into RAM, so a stream's look-ahead never needs a free RAM slot to
     * serve what the SSD tier holds (the page cache keeps the file's bytes after the check).
     */
    @Override
    public CompletableFuture<Boolean> loadAsync(final long blockKey)
    {
        final SsdTier.Entry entry = closed ? null : ssd.find(blockKey, names);
        if (null == entry)
        {
            return null;
        }
        try
        {
            return CompletableFuture.supplyAsync(() -> verify(entry), ssdReaders);
        }
        catch (final RejectedExecutionException ex)
        {
            return null;
        }
    }

    private boolean verify(final SsdTier.Entry entry)
    {
        if (entry.verified())
        {
            return true;
        }
        UnsafeBuffer scratch = scratchBuffers.poll();
        if (null == scratch)
        {
            scratch = new UnsafeBuffer(ByteBuffer.allocateDirect(ctx.blockSize));
        }
        try
        {
            return !closed && ssd.verify(entry, scratch);
        }
        finally
        {
            if (!scratchBuffers.offer(scratch))
            {
                BufferUtil.free(scratch.byteBuffer());
            }
        }
    }

    private BlockRef promoteFromSsd(final long blockKey)
    {
        if (closed)
        {
            return null;
        }
        final SsdTier.Entry entry = ssd.find(blockKey, names);
        if (null == entry)
        {
            return null;
        }
        final int length = entry.length();
        if (length > ram.blockSize())
        {
            metrics.ssdLengthMismatches.increment();
            return null;
        }
        final BlockRef slot = ram.allocate();
        if (null == slot)
        {
            return null;
        }
        final int read = ssd.read(entry, slot.buffer());
        if (read != length)
        {
            if (read >= 0)
            {
                metrics.ssdLengthMismatches.increment();
            }
            slot.release();
            return null;
        }
        // the CRCs the read just checked the bytes against: kept with the slot for answers and spills (a file of the
        // legacy format has no chunk CRCs: taken from the bytes just checked)
        slot.length(read).crc32c(entry.crc()).chunkCrc32c(
            entry.chunkSize() == Crc32c.CHUNK_SIZE ? entry.chunkCrcs() : Crc32c.chunks(slot.buffer(), 0, read));
        metrics.ramPromotions.increment();
        return ram.publish(blockKey, slot, false);
    }

    @Override
    public boolean put(
        final long blockKey, final DirectBuffer source, final int offset, final int length, final FetchClass fetchClass)
    {
        if (length <= 0 || length > ram.blockSize())
        {
            throw new IllegalArgumentException("block length " + length + " outside (0, " + ram.blockSize() + "]");
        }
        if (closed)
        {
            return false;
        }
        if (ram.holds(blockKey))
        {
            return true;
        }
        if (fetchClass == FetchClass.PREFETCH)
        {
            final long objectId = BlockKeys.objectId(blockKey);
            final ObjectName name = names.nameOf(objectId);
            return null != name && ssd.write(name, BlockKeys.blockIndex(blockKey), names.objectSize(objectId), source,
                offset, length, -1, names, objectId);
        }
        final BlockRef slot = ram.allocate();
        if (null == slot)
        {
            metrics.putsDeclined.increment();
            return false;
        }
        try
        {
            slot.buffer().putBytes(0, source, offset, length);
        }
        catch (final RuntimeException ex)
        {
            slot.release();
            throw ex;
        }
        slot.length(length);
        commit(blockKey, slot, fetchClass);
        return true;
    }

    /**
     * A free RAM slot for a demand block about to be fetched, or null (the block is staged and put as before);
     * prefetched blocks go to SSD through {@link #put}. Reservations have their own bound within the spare slots:
     * they leave one free slot per spill still pending, so while evictions wait for the SSD writer the puts behind
     * them (each of which takes a slot and spills one more) still find one however many cold runs are landing.
     */
    @Override
    public BlockRef reserve(final long blockKey, final FetchClass fetchClass)
    {
        if (closed || fetchClass == FetchClass.PREFETCH || ram.holds(blockKey))
        {
            return null;
        }
        // Free slots only (normally the spare ones): a run's blocks past the end of an object of unknown size get
        // no bytes, and evicting resident blocks for them would push out what is read. Publishing evicts down to
        // the capacity once a block is in.
        return ram.allocateIfMoreFreeThan(reservationFloor());
    }

    /** Free RAM slots a reservation leaves: one per spill still pending. */
    int reservationFloor()
    {
        return spillWriter.pending();
    }

    /**
     * As {@link #put}, the bytes already in the slot: the CRC is taken here, the copy is gone. Publishing evicts
     * down to the RAM capacity first, so a reserved slot never holds more blocks resident than the capacity.
     */
    @Override
    public boolean commit(final long blockKey, final BlockRef slot, final FetchClass fetchClass)
    {
        final int length = slot.length();
        if (closed || length <= 0 || length > ram.blockSize())
        {
            slot.release();
            return false;
        }
        // one pass per block, at fill: a CRC per 64 KiB chunk (checksummed answers of a part check the chunks they
        // touch) and the whole block's from them (reused by whole-block answers and by its spill to SSD)
        final int[] chunks = Crc32c.chunks(slot.buffer(), 0, length);
        slot.crc32c(Crc32c.combine(chunks, Crc32c.CHUNK_SIZE, length)).chunkCrc32c(chunks);
        return ram.publishUnread(blockKey, slot, true);
    }

    /**
     * The RAM tier's evictions and admissions, on its maintenance writer: counts them, and queues each evicted block
     * not yet on SSD for the spill writer (never waits: a full queue drops the block).
     */
    private final class RamEvictions implements EvictionListener
    {
        @Override
        public boolean evicted(final long blockKey, final BlockRef ownerRef, final boolean spill)
        {
            metrics.ramEvictions.increment();
            countRam();
            return spill && spillWriter.offer(blockKey, ownerRef);
        }

        @Override
        public void admitted(final long blockKey, final int length)
        {
            countRam();
        }
    }

    private void countRam()
    {
        metrics.ramBytes.set(ram.sizeBytes());
        metrics.ramBlocks.set(ram.residentBlocks());
    }

    /**
     * Waits until every queued spill has been written (or failed).
     *
     * @param timeoutMs how long to wait at most.
     * @return whether no spill is pending.
     */
    boolean awaitSpillsWritten(final long timeoutMs)
    {
        return spillWriter.awaitWritten(timeoutMs);
    }

    /**
     * Whether a block is resident in RAM (no recency update).
     *
     * @param blockKey the packed key.
     * @return whether RAM holds it.
     */
    public boolean inRam(final long blockKey)
    {
        return ram.resident(blockKey);
    }

    /**
     * Whether either tier holds a block (including one evicted from RAM and still being spilled).
     *
     * @param blockKey the packed key.
     * @return whether a lookup would find it.
     */
    public boolean holds(final long blockKey)
    {
        return ram.holds(blockKey) || onSsd(blockKey);
    }

    /**
     * Whether either tier holds a block, without promoting an SSD block to RAM (the engine's prefetch probe).
     *
     * @param blockKey the packed key.
     * @return whether a lookup would find it.
     */
    @Override
    public boolean contains(final long blockKey)
    {
        return holds(blockKey);
    }

    /**
     * Whether a block is on SSD.
     *
     * @param blockKey the packed key.
     * @return whether the SSD tier holds it.
     */
    public boolean onSsd(final long blockKey)
    {
        return null != ssd.find(blockKey, names);
    }

    /**
     * The SSD tier, for operators and tests.
     *
     * @return the tier.
     */
    public SsdTier ssd()
    {
        return ssd;
    }

    /**
     * The counters.
     *
     * @return the metrics.
     */
    public TierCounters metrics()
    {
        return metrics;
    }

    /**
     * Slots of the RAM slab in use (resident, spilling, or held by readers); zero after close when no reader
     * holds a block.
     *
     * @return live slots.
     */
    public int liveSlots()
    {
        return ram.liveSlots();
    }

    /**
     * Blocks resident in RAM.
     *
     * @return the count.
     */
    public int ramBlocks()
    {
        return (int) metrics.ramBlocks();
    }

    /**
     * The block size.
     *
     * @return bytes.
     */
    public int blockSize()
    {
        return ctx.blockSize;
    }

    @Override
    public long sizeBytes()
    {
        return ram.sizeBytes() + ssd.sizeBytes();
    }

    /**
     * Whether the store's own threads (the spill writer and the SSD readers) have stopped: after {@link #close()},
     * false only when one outlived its join, and then the counters it writes must stay mapped.
     *
     * @return true when none of them can write a counter any more.
     */
    public boolean threadsStopped()
    {
        return spillWriter.stopped() && ssdReaders.isTerminated();
    }

    /**
     * Spills what is only in RAM to SSD (so a restart finds it), waits for pending spills, and frees the slab.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        spillWriter.closing();
        ssdReaders.shutdown();
        try
        {
            ssdReaders.awaitTermination(5, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        ram.evictAll((blockKey, ref, spill) -> spill && spillWriter.keepForClose(blockKey, ref));
        countRam();
        // joins the writer, then writes what is queued and what was only in RAM
        spillWriter.close();
        ssd.close();
        ram.close();
        UnsafeBuffer scratch;
        while (null != (scratch = scratchBuffers.poll()))
        {
            BufferUtil.free(scratch.byteBuffer());
        }
        if (ownsMetrics && threadsStopped())
        {
            // the counters' writers have stopped (a thread still running keeps the private buffer for its cleaner)
            metrics.close();
        }
    }
}
