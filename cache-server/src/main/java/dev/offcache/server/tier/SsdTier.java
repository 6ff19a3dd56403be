package dev.offcache.server.tier;

import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Executor;

import dev.offcache.core.checksum.Crc32c;
import dev.offcache.range.store.BlockKeys;
import dev.offcache.range.store.DamagedBlockException;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.Long2ObjectHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SSD tier: one self-describing file per block under {@code {dir}/blocks/{xx}/{sequence}.blk} (see
 * {@link BlockFileFormat}), a capacity with capacity (oldest-published-first) eviction, and an in-memory index
 * rebuilt from the file headers at start ({@code SsdRecovery}), so a restart serves the warm blocks again.
 *
 * <p>Crash safety: a block is written to a temporary file, forced, then atomically renamed; a restart deletes
 * leftover temporary files. Every read checks the data's CRC32C, so a torn or damaged block is never served: it
 * is deleted and counted, and the caller refetches. A {@code FORMAT} file names the layout version; an unknown
 * one wipes the tier (logged and counted). Thread-safe: the index is guarded by this object's monitor; file I/O
 * runs outside it. Memory: the tier owns no off-heap memory; reads fill buffers their callers own.
 *
 * <p>Each block file records a CRC32C per 64 KiB chunk beside the whole block's ({@link BlockFileFormat}): a read of
 * a part of a block checks the chunks it touches on every read ({@link #readPart}), so no byte of a part goes out
 * unchecked, however long ago the block's last whole check was.
 *
 * <p>Verified blocks are sent from their files ({@link #openVerified}) through a bounded cache of open descriptors
 * ({@code DescriptorCache}, least recently used closed first): a hit costs no open or close, only a lookup. The
 * engine's packed block keys are indexed too, beside the durable names, so a hit allocates nothing; a key is learned
 * on its first lookup by name.
 */
public final class SsdTier implements AutoCloseable
{
    /** The layout version written to the {@code FORMAT} file. */
    public static final String FORMAT_LINE = "offcache-ssd-tier " + BlockFileFormat.VERSION;
    /**
     * The layout of the previous block format: kept, not wiped (its files are read, a part of one checked by reading
     * the whole block), and the {@code FORMAT} file rewritten, since every file names its own version.
     */
    static final String LEGACY_FORMAT_LINE = "offcache-ssd-tier " + BlockFileFormat.LEGACY_VERSION;

    /** Verified block files kept open for sending, by default. */
    public static final int DEFAULT_OPEN_FILES = 1024;

    private static final Logger LOG = LoggerFactory.getLogger(SsdTier.class);
    private static final String BLOCKS = "blocks";
    static final String BLOCK_SUFFIX = ".blk";
    static final String TEMP_SUFFIX = ".tmp";

    private final Path dir;
    private final Path blocksDir;
    private final long capacityBytes;
    private final TierCounters metrics;
    private final Map<BlockName, Entry> index = new HashMap<>();
    private final TreeMap<Long, Entry> bySequence = new TreeMap<>();
    private final Long2ObjectHashMap<Entry> byBlockKey = new Long2ObjectHashMap<>();
    private final DescriptorCache openFiles;
    private final SsdScrubber scrubber;
    /** Where the open files' partial reads run ({@link SsdFile#readAsync}); null: on the caller's thread. */
    private volatile Executor fileReaders;
    private long nextSequence;
    private long sizeBytes;
    private boolean closed;

    /** Where a block lives: its durable name. */
    record BlockName(ObjectName name, long blockIndex)
    {
    }

    /**
     * One published block file. {@code verified} says its data CRC has been checked by {@link #read} since the tier
     * opened, so it may be sent straight from the file without reading it again.
     */
    static final class Entry
    {
        private final BlockName block;
        private final long sequence;
        private final int length;
        private final int crc;
        private final Path path;
        private final long objectSize;
        private final int chunkSize;
        private final int[] chunkCrcs;
        private volatile boolean verified;
        /** The engine's packed key this entry was last found under (guarded by the tier), or -1. */
        private long blockKey = -1;

        Entry(final BlockName block, final long sequence, final BlockFileFormat.Header header, final Path path)
        {
            this(block, sequence, header.length(), header.crc(), path, header.objectSize(), header.chunkSize(),
                header.chunkCrcs());
        }

        Entry(final BlockName block, final long sequence, final int length, final int crc, final Path path,
            final long objectSize, final int chunkSize, final int[] chunkCrcs)
        {
            this.chunkSize = chunkSize;
            this.chunkCrcs = chunkCrcs;
            this.objectSize = objectSize;
            this.block = block;
            this.sequence = sequence;
            this.length = length;
            this.crc = crc;
            this.path = path;
        }

        BlockName block()
        {
            return block;
        }

        long sequence()
        {
            return sequence;
        }

        int length()
        {
            return length;
        }

        int crc()
        {
            return crc;
        }

        Path path()
        {
            return path;
        }

        long fileBytes()
        {
            return BlockFileFormat.HEADER_LENGTH + (long) length;
        }

        boolean verified()
        {
            return verified;
        }

        int chunkSize()
        {
            return chunkSize;
        }

        int[] chunkCrcs()
        {
            return chunkCrcs;
        }
    }

    private SsdTier(final Path dir, final long capacityBytes, final int maxOpenFiles, final TierCounters metrics)
    {
        this.dir = dir;
        this.blocksDir = dir.resolve(BLOCKS);
        this.capacityBytes = capacityBytes;
        this.openFiles = new DescriptorCache(maxOpenFiles);
        this.metrics = metrics;
        this.scrubber = new SsdScrubber(this, metrics);
    }

    /**
     * Opens (or creates) the tier under a directory, rebuilding the index from the block files there.
     *
     * @param dir         the tier's directory.
     * @param capacityBytes the most bytes of block files to keep.
     * @param metrics     where to count.
     * @return the open tier.
     */
    public static SsdTier open(final Path dir, final long capacityBytes, final TierCounters metrics)
    {
        return open(dir, capacityBytes, DEFAULT_OPEN_FILES, metrics);
    }

    /**
     * Opens (or creates) the tier, keeping up to {@code maxOpenFiles} verified block files open for sending.
     *
     * @param dir          the tier's directory.
     * @param capacityBytes  the most bytes of block files to keep.
     * @param maxOpenFiles block files kept open between sends; 0 opens and closes one per send.
     * @param metrics      where to count.
     * @return the open tier.
     */
    public static SsdTier open(
        final Path dir, final long capacityBytes, final int maxOpenFiles, final TierCounters metrics)
    {
        if (capacityBytes < BlockFileFormat.HEADER_LENGTH)
        {
            throw new IllegalArgumentException("SSD capacity too small: " + capacityBytes);
        }
        if (maxOpenFiles < 0)
        {
            throw new IllegalArgumentException("open file limit must be >= 0: " + maxOpenFiles);
        }
        final SsdTier tier = new SsdTier(dir, capacityBytes, maxOpenFiles, metrics);
        try
        {
            tier.recover();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot open SSD tier at " + dir, ex);
        }
        return tier;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Recovery: index what SsdRecovery found
    // ---------------------------------------------------------------------------------------------------------------

    private void recover() throws IOException
    {
        final List<Entry> found = new SsdRecovery(dir, blocksDir, metrics).scan();
        synchronized (this)
        {
            for (final Entry entry : found)
            {
                final Entry previous = index.put(entry.block(), entry);
                if (null != previous)
                {
                    unlink(previous);
                }
                bySequence.put(entry.sequence(), entry);
                sizeBytes += entry.fileBytes();
                nextSequence = Math.max(nextSequence, entry.sequence() + 1);
            }
            metrics.ssdBytes.set(sizeBytes);
            metrics.ssdBlocks.set(index.size());
        }
        evictOverCapacity();
        LOG.info("SSD tier at {}: {} blocks, {} bytes recovered", dir, index.size(), sizeBytes);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Index
    // ---------------------------------------------------------------------------------------------------------------

    /**
     * Whether a block is on this tier.
     *
     * @param name       the object's name.
     * @param blockIndex the block index.
     * @return whether it is indexed.
     */
    public synchronized boolean contains(final ObjectName name, final long blockIndex)
    {
        return index.containsKey(new BlockName(name, blockIndex));
    }

    /**
     * The length of a block on this tier.
     *
     * @param name       the object's name.
     * @param blockIndex the block index.
     * @return the data length, or -1 when the block is not here.
     */
    public int lengthOf(final ObjectName name, final long blockIndex)
    {
        final Entry entry = entryOf(name, blockIndex);
        return null == entry ? -1 : entry.length();
    }

    private synchronized Entry entryOf(final ObjectName name, final long blockIndex)
    {
        return index.get(new BlockName(name, blockIndex));
    }

    /**
     * The block an engine block key names: from the key index, else by its durable name (then the key is
     * remembered, so the next lookup allocates nothing).
     *
     * @param blockKey the engine's packed block key.
     * @param names    resolves the key's object id to its name.
     * @return the entry, or null when the block is not here.
     */
    Entry find(final long blockKey, final ObjectNames names)
    {
        synchronized (this)
        {
            final Entry known = byBlockKey.get(blockKey);
            if (null != known)
            {
                return known;
            }
        }
        final ObjectName name = names.nameOf(BlockKeys.objectId(blockKey));
        if (null == name)
        {
            return null;
        }
        synchronized (this)
        {
            final Entry entry = index.get(new BlockName(name, BlockKeys.blockIndex(blockKey)));
            if (null != entry && !closed)
            {
                if (entry.blockKey >= 0 && entry.blockKey != blockKey && byBlockKey.get(entry.blockKey) == entry)
                {
                    byBlockKey.remove(entry.blockKey);
                }
                entry.blockKey = blockKey;
                byBlockKey.put(blockKey, entry);
            }
            return entry;
        }
    }

    /**
     * Removes an entry's key mapping and its cached open file (the caller releases the file outside the monitor).
     */
    private SsdFile detach(final Entry entry)
    {
        if (entry.blockKey >= 0 && byBlockKey.get(entry.blockKey) == entry)
        {
            byBlockKey.remove(entry.blockKey);
        }
        return openFiles.remove(entry);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Write: temp file, force, atomic rename, publish
    // ---------------------------------------------------------------------------------------------------------------

    /**
     * Publishes a block: temp file, force, atomic rename, then index. A block already here is left as it is
     * (within one object version the bytes never change). Records no object size and checks no object version: as
     * {@link #write(ObjectName, long, long, DirectBuffer, int, int, long, ObjectNames, long)} with
     * {@code objectSize}, {@code crc32c} and {@code objectId} -1 and no {@code names}.
     *
     * @param name       the object's name.
     * @param blockIndex the block index.
     * @param source     the block's bytes (the caller keeps ownership).
     * @param offset     where they start in {@code source}.
     * @param length     how many.
     * @return whether the block is on the tier afterwards.
     */
    public boolean write(
        final ObjectName name, final long blockIndex, final DirectBuffer source, final int offset, final int length)
    {
        return write(name, blockIndex, -1, source, offset, length, -1, null, -1);
    }

    /**
     * Publishes a block of an engine's object version, recording its object's size so that a restarted server knows
     * the size without asking the origin ({@link #objectSizes()}): as {@link #write(ObjectName, long, DirectBuffer,
     * int, int)}, but, when {@code names} is given, only while {@code objectId} is still the version the name stands
     * for. The id is checked again when the block is published, under the index's monitor: an overwrite forgets the
     * old id before it drops the name's blocks ({@link #removeObject}), so a block of the old version being written
     * meanwhile (a warming fetch, a spill) is either published before the drop and dropped with the rest, or refused
     * at publication; it never outlives the overwrite under the name, neither in this process nor after a restart.
     *
     * <p>The file records the CRC32C of each chunk ({@link BlockFileFormat#CHUNK_SIZE}) of the bytes, computed here in
     * one pass, and the whole block's, combined from them. The caller may already know the bytes' CRC32C (a RAM slot
     * records it at fill): then the chunks' must combine to it, or the bytes changed since it was taken (a slot
     * damaged in RAM) and the block is not written (counted in {@code ram_corrupt_blocks}), so a chunk CRC never
     * vouches for bytes that differ from those first checksummed.
     *
     * @param name       the object's name.
     * @param blockIndex the block index.
     * @param objectSize the object's size, or -1 when not known.
     * @param source     the block's bytes (the caller keeps ownership).
     * @param offset     where they start in {@code source}.
     * @param length     how many.
     * @param crc32c     the unsigned CRC32C of the bytes, or -1 when not known (it is computed here), as
     *                   {@code BlockRef#crc32c()} gives it.
     * @param names      resolves {@code objectId} to the name it currently stands for, or null.
     * @param objectId   the engine's id of the version the bytes belong to.
     * @return whether the block is on the tier afterwards.
     */
    public boolean write(
        final ObjectName name,
        final long blockIndex,
        final long objectSize,
        final DirectBuffer source,
        final int offset,
        final int length,
        final long crc32c,
        final ObjectNames names,
        final long objectId)
    {
        if (length <= 0 || BlockFileFormat.HEADER_LENGTH + (long) length > capacityBytes)
        {
            return false;
        }
        final BlockName block = new BlockName(name, blockIndex);
        final long sequence;
        synchronized (this)
        {
            if (closed)
            {
                return false;
            }
            if (index.containsKey(block))
            {
                return true;
            }
            sequence = nextSequence++;
        }
        final BlockFileFormat.Header header = BlockFileFormat.Header.of(name, blockIndex, length, sequence,
            Math.max(-1, objectSize), Crc32c.chunks(source, offset, length));
        if (crc32c >= 0 && header.crc() != (int) crc32c)
        {
            LOG.warn("block {} of {} no longer matches the CRC32C of its fill: not written to SSD", blockIndex, name);
            metrics.ramCorruptBlocks.increment();
            return false;
        }
        final Path target = pathOf(sequence);
        final Path temp = target.resolveSibling(sequence + TEMP_SUFFIX);
        try
        {
            Files.createDirectories(target.getParent());
            try (FileChannel channel = FileChannel.open(
                temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE))
            {
                writeFully(channel, BlockFileFormat.encode(header));
                DirectBuffers.writeFully(channel, source, offset, length);
                channel.force(true);
            }
            try
            {
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
            }
            catch (final AtomicMoveNotSupportedException ex)
            {
                Files.deleteIfExists(temp);
                throw ex;
            }
        }
        catch (final IOException ex)
        {
            LOG.warn("SSD write of block {} of {} failed: {}", blockIndex, name, ex.toString());
            metrics.ssdWriteFailures.increment();
            deleteQuietly(temp);
            return false;
        }
        // not verified yet: even a block this process wrote is read back and checked once before it is sent
        // straight from its file, so damage done to the file after the write is caught like any other
        final Entry entry = new Entry(block, sequence, header, target);
        synchronized (this)
        {
            if (null != names && !name.equals(names.nameOf(objectId)))
            {
                // the version was overwritten (or deleted) while the block was written: its bytes are stale
                deleteQuietly(target);
                metrics.ssdStaleWritesDropped.increment();
                return false;
            }
            if (closed || index.containsKey(block))
            {
                deleteQuietly(target);
                return !closed;
            }
            index.put(block, entry);
            bySequence.put(sequence, entry);
            sizeBytes += entry.fileBytes();
            metrics.ssdBytes.set(sizeBytes);
            metrics.ssdBlocks.set(index.size());
        }
        metrics.ssdWrites.increment();
        evictOverCapacity();
        return true;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Read with CRC checks
    // ---------------------------------------------------------------------------------------------------------------

    /**
     * Reads a block into a caller's buffer and checks its CRC32C. A block that fails the check (or has vanished
     * or changed on disk) is dropped from the tier and counted; the caller treats it as a miss.
     *
     * @param name       the object's name.
     * @param blockIndex the block index.
     * @param target     where the bytes go, at index 0; at least the block's length long.
     * @return the block's length, or -1 when it is not here or could not be verified.
     */
    public int read(final ObjectName name, final long blockIndex, final MutableDirectBuffer target)
    {
        return read(entryOf(name, blockIndex), target);
    }

    /**
     * {@link #read(ObjectName, long, MutableDirectBuffer)} of an entry already looked up.
     *
     * @param entry  the block, or null.
     * @param target where the bytes go, at index 0.
     * @return the block's length, or -1.
     */
    int read(final Entry entry, final MutableDirectBuffer target)
    {
        if (null == entry)
        {
            return -1;
        }
        if (entry.length() > target.capacity())
        {
            metrics.ssdLengthMismatches.increment();
            return -1;
        }
        if (!check(entry, target))
        {
            return -1;
        }
        metrics.ssdVerifiedReads.increment();
        return entry.length();
    }

    /**
     * Checks a block's CRC32C (reading its file into {@code scratch}), so that it may be sent from its file from now
     * on; a block already verified is not read again. A block that fails is dropped and counted.
     *
     * @param entry   the block.
     * @param scratch a buffer of at least the block's length, owned by the caller.
     * @return whether the block is verified (and still here).
     */
    boolean verify(final Entry entry, final MutableDirectBuffer scratch)
    {
        if (entry.verified)
        {
            return true;
        }
        if (entry.length() > scratch.capacity() || !check(entry, scratch))
        {
            return false;
        }
        metrics.ssdVerifiedReads.increment();
        return true;
    }

    /**
     * Reads a block file's data into {@code target} and checks its CRC32C; marks the block verified, or drops it
     * (counted) when the file is damaged, changed or unreadable.
     */
    boolean check(final Entry entry, final MutableDirectBuffer target)
    {
        try (FileChannel channel = FileChannel.open(entry.path(), StandardOpenOption.READ))
        {
            if (channel.size() != entry.fileBytes())
            {
                drop(entry, "file length " + channel.size() + " != " + entry.fileBytes());
                return false;
            }
            DirectBuffers.readFully(channel, BlockFileFormat.HEADER_LENGTH, target, 0, entry.length());
        }
        catch (final NoSuchFileException ex)
        {
            // evicted between lookup and open
            return false;
        }
        catch (final IOException ex)
        {
            drop(entry, ex.toString());
            return false;
        }
        final int crc = Crc32c.compute(target, 0, entry.length());
        if (crc != entry.crc())
        {
            drop(entry, "data CRC32C mismatch");
            return false;
        }
        entry.verified = true;
        return true;
    }

    /**
     * Reads a part of a block file into {@code destination} (from its position, which is left as it was) and checks
     * every chunk the part touches against the CRC32C recorded for it when the block was written: the part's bytes
     * are read once, straight into the destination, and the bytes of those chunks around the part into a scratch
     * buffer. A block whose chunk fails is dropped (counted in {@code ssd_corrupt_blocks} and
     * {@code ssd_chunk_mismatches}) and the read fails with {@link DamagedBlockException}: nothing of it is handed
     * out, and the block is fetched again. A file of the legacy format is one chunk: the whole block is read. Runs on
     * the caller's thread (the tier's readers, through {@link SsdFile#readAsync}).
     *
     * @param entry         the block.
     * @param channel       its open file.
     * @param offsetInBlock the part's first byte.
     * @param destination   where its bytes go.
     * @throws IOException when the part lies outside the block, the file cannot be read, or a chunk fails.
     */
    void readPart(final Entry entry, final FileChannel channel, final int offsetInBlock, final ByteBuffer destination)
        throws IOException
    {
        final int length = destination.remaining();
        if (offsetInBlock < 0 || offsetInBlock > entry.length() - length)
        {
            throw new EOFException("part [" + offsetInBlock + ", +" + length + ") outside the block of " +
                entry.length() + " bytes");
        }
        if (length == 0)
        {
            return;
        }
        final int base = destination.position();
        DirectBuffers.readFully(channel, BlockFileFormat.HEADER_LENGTH + (long) offsetInBlock, destination);
        destination.position(base);
        final int end = offsetInBlock + length;
        final int chunk = entry.chunkSize;
        for (int c = offsetInBlock / chunk, last = (end - 1) / chunk; c <= last; c++)
        {
            final int chunkStart = c * chunk;
            final int chunkEnd = (int) Math.min((long) chunkStart + chunk, entry.length());
            final int from = Math.max(chunkStart, offsetInBlock);
            final int to = Math.min(chunkEnd, end);
            int crc = Crc32c.compute(destination, base + from - offsetInBlock, to - from);
            if (from > chunkStart || to < chunkEnd)
            {
                // the chunk's bytes around the part, through this thread's staging buffer
                final ByteBuffer staging = DirectBuffers.staging();
                crc = Crc32c.combine(crcOfFile(channel, chunkStart, from - chunkStart, staging), crc, to - from);
                crc = Crc32c.combine(crc, crcOfFile(channel, to, chunkEnd - to, staging), chunkEnd - to);
            }
            if (crc != entry.chunkCrcs[c])
            {
                metrics.ssdChunkMismatches.increment();
                drop(entry, "CRC32C mismatch in the chunk at " + chunkStart + " of a partial read");
                throw new DamagedBlockException("block " + entry.block().blockIndex() + " of " +
                    entry.block().name() + " failed its chunk check at " + chunkStart);
            }
        }
    }

    /** The CRC32C of {@code length} data bytes of a block file from {@code from}, read through {@code scratch}. */
    private static int crcOfFile(final FileChannel channel, final int from, final int length, final ByteBuffer scratch)
        throws IOException
    {
        int crc = 0;
        int done = 0;
        while (done < length)
        {
            final int n = Math.min(scratch.capacity(), length - done);
            scratch.clear().limit(n);
            DirectBuffers.readFully(channel, BlockFileFormat.HEADER_LENGTH + (long) from + done, scratch);
            crc = done == 0 ? Crc32c.compute(scratch, 0, n) : Crc32c.combine(crc, Crc32c.compute(scratch, 0, n), n);
            done += n;
        }
        return crc;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Scrub (SsdScrubber)
    // ---------------------------------------------------------------------------------------------------------------

    /**
     * Re-reads block files and checks their CRC32C in the background, so damage done to a file after its first check
     * (bit rot, a stray write) is found even for blocks that are sent straight from their files. Walks the blocks in
     * publication order from where the last call stopped, wrapping around; a damaged block is dropped and counted
     * like any other, a good one is marked verified (so prefetched blocks can go out with sendfile without a first
     * read). Runs on the caller's thread ({@code SsdScrubber}).
     *
     * @param maxBytes about how many file bytes to check in this call.
     * @param staging  a buffer of at least one block, owned by the caller.
     * @return the file bytes checked.
     */
    public long scrub(final long maxBytes, final MutableDirectBuffer staging)
    {
        return scrubber.scrub(maxBytes, staging);
    }

    /** The block published after a sequence number, wrapping around to the first; null when none (monitor held). */
    Entry nextAfter(final long sequence)
    {
        Map.Entry<Long, Entry> next = bySequence.higherEntry(sequence);
        if (null == next)
        {
            next = bySequence.firstEntry();
        }
        return null == next ? null : next.getValue();
    }

    /** Whether {@link #close()} has run (monitor held). */
    boolean isClosed()
    {
        return closed;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Recovered object sizes
    // ---------------------------------------------------------------------------------------------------------------

    /**
     * The object sizes recorded in the block files, for objects whose blocks all agree on one; a restarted server
     * hands them to its engine so that serving warm data needs no origin request at all.
     *
     * @return object name to size.
     */
    public synchronized Map<ObjectName, Long> objectSizes()
    {
        final Map<ObjectName, Long> sizes = new HashMap<>();
        final Set<ObjectName> conflicting = new HashSet<>();
        for (final Entry entry : index.values())
        {
            if (entry.objectSize >= 0)
            {
                final Long previous = sizes.putIfAbsent(entry.block().name(), entry.objectSize);
                if (null != previous && previous != entry.objectSize)
                {
                    conflicting.add(entry.block().name());
                }
            }
        }
        sizes.keySet().removeAll(conflicting);
        return sizes;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Sending from files (DescriptorCache)
    // ---------------------------------------------------------------------------------------------------------------

    /**
     * Runs the partial reads of the files this tier opens ({@link SsdFile#readAsync}) on the store's reader threads,
     * so a reader on an event loop never waits for the disk. Set once, before files are handed out.
     *
     * @param readers the reader threads.
     */
    void readFilesOn(final Executor readers)
    {
        this.fileReaders = readers;
    }

    /**
     * Opens a block for sending straight from its file (sendfile), without reading it: only a block whose data
     * {@link #read} has checked since the tier opened, and whose length is the expected one, qualifies; any other
     * block must go through {@link #read} first. Damage done to a file after that check is found by {@link #scrub}
     * (when the store runs it) or when the tier is reopened.
     *
     * @param name           the object's name.
     * @param blockIndex     the block index.
     * @param expectedLength the length the block must have.
     * @return the open block (the caller releases it), or null when it does not qualify or is gone.
     */
    public SsdFile openVerified(final ObjectName name, final long blockIndex, final int expectedLength)
    {
        return openVerified(entryOf(name, blockIndex), expectedLength);
    }

    /**
     * {@link #openVerified(ObjectName, long, int)} of an entry already looked up: from the descriptor cache when it
     * holds the file (no system call), else opened and cached.
     *
     * @param entry          the block, or null.
     * @param expectedLength the length the block must have.
     * @return the open block (the caller releases it), or null.
     */
    SsdFile openVerified(final Entry entry, final int expectedLength)
    {
        if (null == entry || !entry.verified || entry.length() != expectedLength)
        {
            return null;
        }
        synchronized (this)
        {
            if (closed)
            {
                return null;
            }
            final SsdFile cached = openFiles.retain(entry);
            if (null != cached)
            {
                metrics.ssdZeroCopyReads.increment();
                return cached;
            }
        }
        final FileChannel channel;
        try
        {
            channel = FileChannel.open(entry.path(), StandardOpenOption.READ);
        }
        catch (final IOException ex)
        {
            // evicted between lookup and open (NoSuchFileException), or unreadable: the caller takes another path
            return null;
        }
        final SsdFile opened = new SsdFile(this, entry, channel, fileReaders);
        SsdFile result = opened;
        SsdFile evicted = null;
        synchronized (this)
        {
            if (!closed && openFiles.enabled() && index.get(entry.block()) == entry)
            {
                final SsdFile other = openFiles.retain(entry);
                if (null != other)
                {
                    result = other;
                }
                else
                {
                    evicted = openFiles.admit(entry, opened);
                }
            }
        }
        if (result != opened)
        {
            opened.release();
        }
        if (null != evicted)
        {
            evicted.release();
        }
        metrics.ssdZeroCopyReads.increment();
        return result;
    }

    /**
     * Block files held open by the descriptor cache now.
     *
     * @return the count, at most the tier's limit.
     */
    public synchronized int openFileCount()
    {
        return openFiles.size();
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Removal and capacity eviction
    // ---------------------------------------------------------------------------------------------------------------

    private void drop(final Entry entry, final String why)
    {
        LOG.warn("SSD block {} failed verification ({}): dropped, will be refetched", entry.path(), why);
        metrics.ssdCorruptBlocks.increment();
        remove(entry);
    }

    private void remove(final Entry entry)
    {
        final SsdFile open;
        synchronized (this)
        {
            if (!index.remove(entry.block(), entry))
            {
                return;
            }
            bySequence.remove(entry.sequence());
            sizeBytes -= entry.fileBytes();
            metrics.ssdBytes.set(sizeBytes);
            metrics.ssdBlocks.set(index.size());
            open = detach(entry);
        }
        unlink(entry);
        if (null != open)
        {
            open.release();
        }
    }

    /**
     * Drops every block of an object (its origin rewrote or deleted it through the cache), so no later read, not
     * even after a restart, finds the old version's bytes under the name.
     *
     * @param name the object's name.
     * @return how many blocks were dropped.
     */
    public int removeObject(final ObjectName name)
    {
        final List<Entry> victims = new ArrayList<>();
        synchronized (this)
        {
            for (final Map.Entry<BlockName, Entry> entry : index.entrySet())
            {
                if (entry.getKey().name().equals(name))
                {
                    victims.add(entry.getValue());
                }
            }
        }
        for (final Entry victim : victims)
        {
            remove(victim);
        }
        return victims.size();
    }

    private void evictOverCapacity()
    {
        while (true)
        {
            final Entry victim;
            final SsdFile open;
            synchronized (this)
            {
                if (sizeBytes <= capacityBytes || bySequence.isEmpty())
                {
                    return;
                }
                victim = bySequence.firstEntry().getValue();
                bySequence.remove(victim.sequence());
                index.remove(victim.block(), victim);
                sizeBytes -= victim.fileBytes();
                metrics.ssdBytes.set(sizeBytes);
                metrics.ssdBlocks.set(index.size());
                open = detach(victim);
            }
            metrics.ssdEvictions.increment();
            unlink(victim);
            if (null != open)
            {
                open.release();
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Sizes, paths, close
    // ---------------------------------------------------------------------------------------------------------------

    /**
     * The bytes of block files held.
     *
     * @return bytes, headers included.
     */
    public synchronized long sizeBytes()
    {
        return sizeBytes;
    }

    /**
     * How many blocks are held.
     *
     * @return the block count.
     */
    public synchronized int blockCount()
    {
        return index.size();
    }

    /**
     * The file of a block, for tests and operators.
     *
     * @param name       the object's name.
     * @param blockIndex the block index.
     * @return the path, or {@code null} when the block is not here.
     */
    public Path pathOf(final ObjectName name, final long blockIndex)
    {
        final Entry entry = entryOf(name, blockIndex);
        return null == entry ? null : entry.path();
    }

    private Path pathOf(final long sequence)
    {
        return blocksDir.resolve(String.format("%02x", sequence & 0xFF)).resolve(sequence + BLOCK_SUFFIX);
    }

    /**
     * Stops accepting writes. The index needs no separate persistence: every published block file carries its
     * own header, and publication is atomic, so the next start rebuilds the same index.
     */
    @Override
    public void close()
    {
        final List<SsdFile> open;
        synchronized (this)
        {
            closed = true;
            open = openFiles.clear();
            byBlockKey.clear();
        }
        for (final SsdFile file : open)
        {
            file.release();
        }
    }

    private void unlink(final Entry entry)
    {
        deleteQuietly(entry.path());
    }

    private static void deleteQuietly(final Path path)
    {
        try
        {
            Files.deleteIfExists(path);
        }
        catch (final IOException ex)
        {
            LOG.warn("cannot delete {}: {}", path, ex.toString());
        }
    }

    private static void writeFully(final FileChannel channel, final ByteBuffer buffer) throws IOException
    {
        while (buffer.hasRemaining())
        {
            channel.write(buffer);
        }
    }
}
