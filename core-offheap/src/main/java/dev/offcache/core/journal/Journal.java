package dev.offcache.core.journal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import dev.offcache.core.config.ConcludeOnce;
import dev.offcache.core.region.MappedRegion;

/**
 * A segmented, memory-mapped, append-only log of length-prefixed, CRC32C-checked records (see
 * {@link JournalFormat} for the bytes). Records are identified by their position, which grows across segments.
 *
 * <p>On {@link #open(Context)} every segment is scanned and every record checked. Damage in the last segment with no
 * valid record after it, past what the journal had acknowledged, is what a crash mid-append leaves (a torn tail): it
 * is dropped, zeroed, and appending resumes right after the last intact record. Any other damage throws
 * {@link JournalCorruptException} naming the segment file and offset, because dropping it would lose acknowledged
 * records: damage in an earlier segment, a bad record followed by a valid one, a damaged header, a missing segment
 * (first, middle or last: a segment the journal rolled past is sealed, so its successor must exist; a journal that
 * ever held a segment must still hold one), a segment file shorter than it was created, or intact records that end
 * before the segment's checkpoint.
 *
 * <p>Durability: {@link #append} writes the record into the file with one positional write ({@code pwrite}: it is
 * in the page cache, so it survives a process crash at once); {@link #force()} makes it survive a power loss
 * ({@code fdatasync}; the segment's blocks were written out when it was created, so no metadata has to follow).
 * Rolling forces the segment it leaves, so only the last segment can ever hold unforced records. Each segment's
 * header carries a checkpoint of how far its records were acknowledged, written only once they are durable: a force
 * writes it right after its {@code fdatasync} (covering the records that force made durable; it reaches the device
 * with the next force or the kernel's writeback, and survives a process crash at once), a roll seals the segment it
 * leaves at its end, a close checkpoints and forces everything.
 *
 * <p>Reads ({@link #forEach}, recovery's scan) go through one mapping per segment, which sees every write at once
 * (one page cache). Not thread-safe: one thread owns a journal (the registry's writer). Owns one mapping and one
 * file channel per segment, a direct staging buffer and a lock on its directory; {@link #close()} forces, unmaps,
 * frees and unlocks.
 */
public final class Journal implements AutoCloseable
{
    private static final String LOCK_FILE = "journal.lock";
    private static final int PREALLOCATE_CHUNK_BYTES = 1024 * 1024;
    private static final int MIN_STAGING_BYTES = 64 * 1024;

    private final Path directory;
    private final int segmentSize;
    private final boolean preallocate;
    private final List<JournalSegment> segments = new ArrayList<>();
    private final FileChannel lockChannel;
    private final FileLock lock;
    private JournalSegment active;
    /** Where a record's frame is built before its one {@code pwrite}; direct, so the write copies nothing more. */
    private ByteBuffer staging;
    private final UnsafeBuffer stagingView = new UnsafeBuffer(0, 0);
    private boolean closed;
    private long droppedTailPosition = -1;

    /**
     * Receives records during {@link Journal#forEach}.
     */
    @FunctionalInterface
    public interface RecordHandler
    {
        /**
         * One record. The buffer is a view of the mapped segment, valid only during the call; do not write to it,
         * and do not append to the journal from the handler (the replay would chase its own tail).
         *
         * @param buffer   holding the record.
         * @param offset   of the payload in {@code buffer}.
         * @param length   of the payload.
         * @param position of the record in the journal.
         */
        void onRecord(DirectBuffer buffer, int offset, int length, long position);
    }

    /**
     * Configuration for a {@link Journal}; {@link #conclude()} validates it.
     */
    public static final class Context
    {
        /**
         * Default segment size: 16 MiB.
         */
        public static final int DEFAULT_SEGMENT_SIZE = 16 * 1024 * 1024;

        /**
         * Smallest segment size: 4 KiB.
         */
        public static final int MIN_SEGMENT_SIZE = 4 * 1024;

        /**
         * Largest segment size: 1 GiB, so one segment is one mapping and one view.
         */
        public static final int MAX_SEGMENT_SIZE = 1024 * 1024 * 1024;

        private final ConcludeOnce concluded = new ConcludeOnce();
        private Path directory;
        private int segmentSize = DEFAULT_SEGMENT_SIZE;
        private boolean preallocate = true;

        /**
         * Sets the directory holding the segment files.
         *
         * @param directory holding the segment files; created if missing.
         * @return this.
         */
        public Context directory(final Path directory)
        {
            this.directory = directory;
            return this;
        }

        /**
         * Returns the directory holding the segment files.
         *
         * @return the directory holding the segment files.
         */
        public Path directory()
        {
            return directory;
        }

        /**
         * Sets the size of new segment files.
         *
         * @param segmentSize bytes per new segment file: a multiple of 4 KiB in [4 KiB, 1 GiB]. Segments already on
         *                    disk keep the size they were created with.
         * @return this.
         */
        public Context segmentSize(final int segmentSize)
        {
            this.segmentSize = segmentSize;
            return this;
        }

        /**
         * Returns bytes per new segment file.
         *
         * @return bytes per new segment file.
         */
        public int segmentSize()
        {
            return segmentSize;
        }

        /**
         * Sets whether new segments are written out as zeros before they are mapped (the default) or created
         * sparse. Preallocating costs one sequential write of the segment per roll; in return a full disk fails the
         * roll with an exception instead of crashing the JVM (SIGBUS) on an append into a hole, and appends do not
         * allocate disk blocks page by page.
         *
         * @param preallocate true to write new segments out before mapping them.
         * @return this.
         */
        public Context preallocate(final boolean preallocate)
        {
            this.preallocate = preallocate;
            return this;
        }

        /**
         * Returns whether new segments are preallocated.
         *
         * @return whether new segments are preallocated.
         */
        public boolean preallocate()
        {
            return preallocate;
        }

        /**
         * Validates the configuration.
         *
         * @return this.
         * @throws IllegalArgumentException naming the bad setting.
         */
        public Context conclude()
        {
            concluded.conclude(this);
            if (directory == null)
            {
                throw new IllegalArgumentException("Journal.Context.directory is required");
            }
            if (segmentSize < MIN_SEGMENT_SIZE || segmentSize > MAX_SEGMENT_SIZE ||
                segmentSize % MIN_SEGMENT_SIZE != 0)
            {
                throw new IllegalArgumentException("Journal.Context.segmentSize must be a multiple of " +
                    MIN_SEGMENT_SIZE + " in [" + MIN_SEGMENT_SIZE + ", " + MAX_SEGMENT_SIZE + "]: " + segmentSize);
            }
            return this;
        }
    }

    private Journal(
        final Path directory,
        final int segmentSize,
        final boolean preallocate,
        final FileChannel lockChannel,
        final FileLock lock)
    {
        this.directory = directory;
        this.segmentSize = segmentSize;
        this.preallocate = preallocate;
        this.lockChannel = lockChannel;
        this.lock = lock;
    }

    /**
     * Opens (or creates) the journal in {@code ctx.directory()}, checking every record and dropping a torn tail.
     *
     * @param ctx configuration; concluded here.
     * @return the journal, owned by the caller.
     * @throws JournalCorruptException  naming segment and offset if the journal is damaged before its tail.
     * @throws IllegalStateException    if another journal has the directory open.
     * @throws IllegalArgumentException if the configuration is invalid.
     */
    public static Journal open(final Context ctx)
    {
        ctx.conclude();
        final Path directory = ctx.directory().toAbsolutePath().normalize();
        FileChannel lockChannel = null;
        try
        {
            Files.createDirectories(directory);
            lockChannel = FileChannel.open(
                directory.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock = null;
            try
            {
                lock = lockChannel.tryLock();
            }
            catch (final OverlappingFileLockException ignore)
            {
                // Held by this JVM: reported below like a lock held by another process.
            }
            if (lock == null)
            {
                throw new IllegalStateException("journal directory " + directory + " is already open");
            }
            final Journal journal = new Journal(directory, ctx.segmentSize(), ctx.preallocate(), lockChannel, lock);
            try
            {
                journal.recover();
            }
            catch (final RuntimeException | IOException ex)
            {
                journal.closeQuietly();
                throw ex;
            }
            return journal;
        }
        catch (final IOException ex)
        {
            closeChannelQuietly(lockChannel);
            throw new UncheckedIOException("cannot open journal in " + directory, ex);
        }
        catch (final RuntimeException ex)
        {
            closeChannelQuietly(lockChannel);
            throw ex;
        }
    }

    /**
     * Appends one record, rolling to a new segment first if it does not fit in the current one.
     *
     * @param buffer holding the payload; copied into the mapping, not retained.
     * @param offset of the payload in {@code buffer}.
     * @param length of the payload; at most {@link #maxRecordLength()}.
     * @return the record's position.
     * @throws IllegalArgumentException  if the record is larger than a segment can hold.
     * @throws IndexOutOfBoundsException if the range is outside {@code buffer}.
     */
    public long append(final DirectBuffer buffer, final int offset, final int length)
    {
        ensureOpen();
        if (offset < 0 || length < 0 || (long) offset + length > buffer.capacity())
        {
            throw new IndexOutOfBoundsException("record range offset=" + offset + " length=" + length +
                " is outside the source buffer of capacity " + buffer.capacity());
        }
        final int maxLength = maxRecordLength(segmentSize);
        if (length > maxLength)
        {
            throw new IllegalArgumentException("record of " + length + " bytes is larger than the " + maxLength +
                " bytes a journal segment of " + segmentSize + " bytes can hold; raise Journal.Context.segmentSize");
        }
        final int alignedLength = JournalFormat.alignedFrameLength(JournalFormat.FRAME_HEADER_LENGTH + length);
        if (alignedLength > active.capacity - active.limit)
        {
            newSegment();
        }
        final int frameOffset = active.limit;
        final int frameLength = JournalFormat.FRAME_HEADER_LENGTH + length;
        final ByteBuffer frame = staging(frameLength);
        JournalFormat.writeFrame(stagingView, 0, buffer, offset, length);
        // Only the frame itself is written: its padding lies in the zeros a segment is created with (and recovery
        // leaves after a dropped tail).
        active.write(frame.limit(frameLength).position(0), frameOffset);
        active.limit = frameOffset + alignedLength;
        return active.basePosition + frameOffset;
    }

    /**
     * Forces appended records to storage, so they survive a power loss.
     */
    public void force()
    {
        ensureOpen();
        active.force();
        active.durable = active.limit;
        // Written only now that what it covers is durable, so it can never be on the device without its records;
        // not forced: it goes out with the next force (or the kernel's writeback), and a killed process leaves it in
        // the page cache. Losing this force's records is then refused like any other acknowledged loss.
        active.checkpoint(active.durable, false);
    }

    /**
     * Hands every record, oldest first, to {@code handler}. No allocation per record.
     *
     * @param handler receiving the records.
     */
    public void forEach(final RecordHandler handler)
    {
        ensureOpen();
        for (int i = 0, n = segments.size(); i < n; i++)
        {
            final JournalSegment segment = segments.get(i);
            int frameOffset = JournalFormat.HEADER_LENGTH;
            while (frameOffset < segment.limit)
            {
                final int frameLength = JournalFormat.frameLength(segment.buffer, frameOffset);
                handler.onRecord(
                    segment.buffer,
                    frameOffset + JournalFormat.FRAME_HEADER_LENGTH,
                    frameLength - JournalFormat.FRAME_HEADER_LENGTH,
                    segment.basePosition + frameOffset);
                frameOffset += JournalFormat.alignedFrameLength(frameLength);
            }
        }
    }

    /**
     * Forces the current segment and starts a new one, so older segments can later be deleted whole. Does nothing
     * if the current segment holds no record yet.
     */
    public void roll()
    {
        ensureOpen();
        if (!active.isEmpty())
        {
            newSegment();
        }
    }

    /**
     * Deletes every segment that lies entirely before {@code position} (never the current one), for example once
     * a snapshot covers the records up to it. Records at or after {@code position} are kept.
     *
     * @param position first position to keep.
     * @return how many segment files were deleted.
     */
    public int deleteSegmentsBefore(final long position)
    {
        ensureOpen();
        int deleted = 0;
        while (segments.size() > 1 && segments.get(0).endPosition() <= position)
        {
            final JournalSegment segment = segments.remove(0);
            segment.close();
            try
            {
                Files.deleteIfExists(segment.path);
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException("cannot delete journal segment " + segment.path, ex);
            }
            deleted++;
        }
        if (deleted > 0)
        {
            forceDirectory();
        }
        return deleted;
    }

    /**
     * Returns the position the next record gets if it fits in the current segment.
     *
     * @return the position the next record gets if it fits in the current segment.
     */
    public long appendPosition()
    {
        ensureOpen();
        return active.basePosition + active.limit;
    }

    /**
     * Returns the position of the first byte still on disk (the first segment's base).
     *
     * @return the position of the first byte still on disk (the first segment's base).
     */
    public long startPosition()
    {
        ensureOpen();
        return segments.get(0).basePosition;
    }

    /**
     * Returns the number of segment files.
     *
     * @return the number of segment files.
     */
    public int segmentCount()
    {
        ensureOpen();
        return segments.size();
    }

    /**
     * Returns the segment files, oldest first.
     *
     * @return the segment files, oldest first.
     */
    public List<Path> segmentFiles()
    {
        ensureOpen();
        final List<Path> files = new ArrayList<>(segments.size());
        for (final JournalSegment segment : segments)
        {
            files.add(segment.path);
        }
        return files;
    }

    /**
     * Returns where open dropped a torn tail (the position appending resumed at), or -1 if the journal was intact.
     * Worth logging: the records in it were appended but never acknowledged as durable.
     *
     * @return the position of the dropped tail, or -1.
     */
    public long droppedTailPosition()
    {
        return droppedTailPosition;
    }

    /**
     * Returns the largest payload a record may have with this journal's segment size.
     *
     * @return the largest payload a record may have with this journal's segment size.
     */
    public int maxRecordLength()
    {
        return maxRecordLength(segmentSize);
    }

    /**
     * Returns the directory holding the segment files.
     *
     * @return the directory holding the segment files.
     */
    public Path directory()
    {
        return directory;
    }

    /**
     * Forces the current segment, unmaps every segment and releases the directory lock.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        try
        {
            if (active != null)
            {
                force();
                active.force();
            }
        }
        finally
        {
            closeQuietly();
        }
    }

    private static int maxRecordLength(final int segmentSize)
    {
        return segmentSize - JournalFormat.HEADER_LENGTH - JournalFormat.FRAME_HEADER_LENGTH;
    }

    private void recover() throws IOException
    {
        final TreeMap<Long, Path> files = new TreeMap<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(directory))
        {
            for (final Path file : stream)
            {
                final String name = file.getFileName().toString();
                if (name.endsWith(JournalFormat.TEMP_SUFFIX))
                {
                    // A segment whose creation a crash interrupted: never renamed, so never held a record.
                    Files.deleteIfExists(file);
                    continue;
                }
                final long base = JournalFormat.parseSegmentFileName(name);
                if (base >= 0)
                {
                    files.put(base, file);
                }
            }
        }
        final Long lastBase = files.isEmpty() ? null : files.lastKey();
        long expectedBase = -1;
        for (final var entry : files.entrySet())
        {
            final boolean last = entry.getKey().equals(lastBase);
            final JournalSegment segment = openSegment(entry.getValue(), entry.getKey());
            segments.add(segment);
            if (expectedBase >= 0 && segment.basePosition != expectedBase)
            {
                throw new JournalCorruptException(segment.path, 0, "segment starts at position " +
                    segment.basePosition + " but the previous segment ends at " + expectedBase +
                    " (a segment is missing)");
            }
            expectedBase = segment.endPosition();
            if (scan(segment, last))
            {
                droppedTailPosition = segment.basePosition + segment.limit;
            }
            if (last && (segment.checkpoint & JournalFormat.SEALED) != 0)
            {
                final Path successor = directory.resolve(JournalFormat.segmentFileName(segment.endPosition()));
                throw new JournalCorruptException(successor, 0, "segment file is missing: " +
                    segment.path.getFileName() + " was sealed when the journal rolled past it, so acknowledged " +
                    "records may have followed in " + successor.getFileName());
            }
            segment.durable = segment.limit;
        }
        if (segments.isEmpty())
        {
            if (lockChannel.size() > 0)
            {
                throw new JournalCorruptException(directory, 0, "every segment file is missing from a journal " +
                    "that held records (no " + JournalFormat.SEGMENT_SUFFIX + " file left)");
            }
            newSegment(0);
        }
        else
        {
            active = segments.get(segments.size() - 1);
            // What recovery kept counts as acknowledged from now on: make it durable before a checkpoint says so.
            active.force();
            active.checkpoint(active.limit, false);
        }
        markInitialized();
    }

    /**
     * Leaves a mark in the lock file once the journal has a segment, so a directory whose segments all vanished
     * is told from one that never had any.
     */
    private void markInitialized() throws IOException
    {
        if (lockChannel.size() == 0)
        {
            lockChannel.write(ByteBuffer.wrap(new byte[] {1}), 0);
            lockChannel.force(true);
        }
    }

    private JournalSegment openSegment(final Path path, final long base) throws IOException
    {
        final long fileSize = Files.size(path);
        if (fileSize < JournalFormat.HEADER_LENGTH)
        {
            throw new JournalCorruptException(path, fileSize, "segment file is " + fileSize +
                " bytes, shorter than its " + JournalFormat.HEADER_LENGTH + "-byte header");
        }
        final MappedRegion region = MappedRegion.mapExistingFile(path, false);
        FileChannel channel = null;
        try
        {
            channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
            final UnsafeBuffer header = new UnsafeBuffer(0, 0);
            region.wrap(header, 0, JournalFormat.HEADER_LENGTH);
            final int capacity = JournalFormat.checkHeader(path, base, header);
            if (fileSize != capacity)
            {
                // Segments are created at full size (and renamed into place only then) and never resized: a shorter
                // file was cut, and records after the cut, acknowledged or not, cannot be told from zeros.
                throw new JournalCorruptException(path, Math.min(fileSize, capacity), "segment file is " + fileSize +
                    " bytes but its header says " + capacity + (fileSize < capacity ?
                    ": the file was cut short and the records after the cut are lost" : ""));
            }
            final JournalSegment segment = new JournalSegment(path, base, capacity, region, channel);
            try
            {
                segment.checkpoint = JournalFormat.checkCheckpoint(path, segment.buffer, capacity);
            }
            catch (final RuntimeException ex)
            {
                segment.close(); // the segment owns a direct checkpoint buffer beside the channel and the mapping
                throw ex;
            }
            return segment;
        }
        catch (final RuntimeException | IOException ex)
        {
            closeChannelQuietly(channel);
            region.close();
            throw ex;
        }
    }

    /**
     * Finds where the segment's intact records end, refusing corruption before the tail.
     *
     * @return true if a torn tail was dropped (bytes after the last intact record were cleared).
     */
    private static boolean scan(final JournalSegment segment, final boolean last)
    {
        final int capacity = segment.capacity;
        int frameOffset = JournalFormat.HEADER_LENGTH;
        String defect = null;
        while (frameOffset <= capacity - JournalFormat.FRAME_HEADER_LENGTH)
        {
            if (JournalFormat.frameLength(segment.buffer, frameOffset) == 0)
            {
                break;
            }
            defect = JournalFormat.frameDefect(segment.buffer, frameOffset, capacity);
            if (defect != null)
            {
                break;
            }
            frameOffset += JournalFormat.alignedFrameLength(JournalFormat.frameLength(segment.buffer, frameOffset));
        }
        segment.limit = Math.min(frameOffset, capacity);

        final int follower = JournalFormat.findValidFrame(
            segment.buffer, frameOffset + JournalFormat.FRAME_HEADER_LENGTH, capacity);
        if (follower >= 0)
        {
            throw new JournalCorruptException(segment.path, frameOffset, (defect != null ? defect :
                "end-of-data marker (frame length 0)") + ", yet a valid record follows at offset " + follower);
        }
        if (defect != null && !last)
        {
            throw new JournalCorruptException(segment.path, frameOffset, defect +
                " in a segment that is not the last (it was forced when the journal rolled past it)");
        }
        final int acknowledged = segment.checkpoint & ~JournalFormat.SEALED;
        if (frameOffset < acknowledged)
        {
            throw new JournalCorruptException(segment.path, frameOffset, (defect != null ? defect :
                "end of the records") + ", but the segment's checkpoint says records up to offset " + acknowledged +
                " were acknowledged: acknowledged records are lost (cut, zeroed or overwritten)");
        }
        if (last && frameOffset < capacity && !isZero(segment, frameOffset))
        {
            // Torn tail: drop it, and zero it so that later appends never sit in front of stale bytes.
            segment.buffer.setMemory(frameOffset, capacity - frameOffset, (byte) 0);
            segment.region.force();
            return true;
        }
        return false;
    }

    private static boolean isZero(final JournalSegment segment, final int from)
    {
        for (int offset = from; offset < segment.capacity; offset += JournalFormat.FRAME_ALIGNMENT)
        {
            if (segment.buffer.getLong(offset) != 0)
            {
                return false;
            }
        }
        return true;
    }

    private void newSegment()
    {
        final JournalSegment previous = active;
        previous.force();
        newSegment(previous.endPosition());
        // Sealed only once its successor exists, so a sealed last segment always means a missing successor; every
        // record of it is durable by now.
        previous.checkpoint(previous.limit, true);
        previous.force();
        previous.durable = previous.limit;
    }

    private void newSegment(final long basePosition)
    {
        final Path path = directory.resolve(JournalFormat.segmentFileName(basePosition));
        final Path tempPath = directory.resolve(JournalFormat.segmentFileName(basePosition) + ".tmp");
        FileChannel channel = null;
        MappedRegion region = null;
        try
        {
            channel = FileChannel.open(
                tempPath, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE);
            if (preallocate)
            {
                preallocate(channel, tempPath);
            }
            else
            {
                // Sparse: one byte at the end gives the file its size.
                channel.write(ByteBuffer.allocate(1), segmentSize - 1);
            }
            region = MappedRegion.mapExistingFile(tempPath, false);
            final UnsafeBuffer header = new UnsafeBuffer(new byte[JournalFormat.HEADER_LENGTH]);
            JournalFormat.encodeHeader(header, basePosition, segmentSize);
            final ByteBuffer bytes = ByteBuffer.wrap(header.byteArray());
            while (bytes.hasRemaining())
            {
                channel.write(bytes, bytes.position());
            }
            channel.force(false);
            Files.move(tempPath, path, StandardCopyOption.ATOMIC_MOVE);
        }
        catch (final IOException | RuntimeException ex)
        {
            closeChannelQuietly(channel);
            if (region != null)
            {
                region.close();
            }
            try
            {
                Files.deleteIfExists(tempPath);
            }
            catch (final IOException suppressed)
            {
                ex.addSuppressed(suppressed);
            }
            if (ex instanceof IOException io)
            {
                throw new UncheckedIOException("cannot create journal segment " + path, io);
            }
            throw (RuntimeException) ex;
        }
        try
        {
            forceDirectory();
        }
        catch (final RuntimeException ex)
        {
            // the renamed file stays for recovery; the mapping and the channel would otherwise stay open
            closeChannelQuietly(channel);
            region.close();
            throw ex;
        }
        final JournalSegment segment = new JournalSegment(path, basePosition, segmentSize, region, channel);
        segments.add(segment);
        active = segment;
    }

    /**
     * Writes the whole segment as zeros, so its disk blocks exist before it is mapped: a full disk then fails here,
     * as an exception, instead of as a SIGBUS on a read of a hole, and a force of an append has no block allocation
     * (no metadata) to write.
     */
    private void preallocate(final FileChannel channel, final Path tempPath) throws IOException
    {
        final ByteBuffer zeros = ByteBuffer.allocateDirect(Math.min(segmentSize, PREALLOCATE_CHUNK_BYTES));
        try
        {
            long position = 0;
            while (position < segmentSize)
            {
                zeros.clear().limit((int) Math.min(zeros.capacity(), segmentSize - position));
                while (zeros.hasRemaining())
                {
                    position += channel.write(zeros, position);
                }
            }
        }
        catch (final IOException ex)
        {
            throw new IOException("cannot preallocate journal segment " + tempPath + " (" + segmentSize + " bytes)",
                ex);
        }
        finally
        {
            BufferUtil.free(zeros);
        }
    }

    /**
     * The staging buffer, grown to hold a frame of {@code frameLength} bytes; {@link #stagingView} views it.
     */
    private ByteBuffer staging(final int frameLength)
    {
        if (staging == null || staging.capacity() < frameLength)
        {
            final int capacity = Math.min(Math.max(MIN_STAGING_BYTES, Integer.highestOneBit(frameLength - 1) << 1),
                Math.max(segmentSize, frameLength));
            if (staging != null)
            {
                BufferUtil.free(staging);
            }
            staging = ByteBuffer.allocateDirect(Math.max(capacity, frameLength));
            stagingView.wrap(staging);
        }
        return staging;
    }

    private void forceDirectory()
    {
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ))
        {
            channel.force(true);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot force journal directory " + directory, ex);
        }
    }

    private void ensureOpen()
    {
        if (closed)
        {
            throw new IllegalStateException("journal " + directory + " is closed");
        }
    }

    private void closeQuietly()
    {
        closed = true;
        for (final JournalSegment segment : segments)
        {
            segment.close();
        }
        segments.clear();
        active = null;
        if (staging != null)
        {
            BufferUtil.free(staging);
            staging = null;
            stagingView.wrap(0, 0);
        }
        try
        {
            lock.release();
        }
        catch (final IOException ignore)
        {
            // Closing the channel below releases the lock as well.
        }
        closeChannelQuietly(lockChannel);
    }

    private static void closeChannelQuietly(final FileChannel channel)
    {
        if (channel != null)
        {
            try
            {
                channel.close();
            }
            catch (final IOException ignore)
            {
                // Nothing left to do with a channel that cannot close.
            }
        }
    }
}
