package dev.offcache.registry.journal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.offcache.core.checksum.Crc32c;
import dev.offcache.core.config.ConcludeOnce;
import dev.offcache.core.journal.Journal;
import dev.offcache.registry.state.CacheEntry;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.CacheStateMachine;
import dev.offcache.registry.state.Materialized;
import dev.offcache.registry.state.Pending;

/**
 * The durable backend: every command's changes become one record of a {@code core-offheap} {@link Journal}
 * ({@code {directory}/journal}), forced once per Disruptor batch before the batch is acknowledged (group commit).
 * Every {@code snapshotEveryRecords} records the whole state is written to {@code {directory}/snapshots}
 * (temp file, force, atomic rename) and the journal segments it covers are deleted, which bounds replay.
 *
 * <p>Recovery loads the newest snapshot, then replays the journal records after it. The journal drops a torn tail
 * (a record whose append a crash cut short was never acknowledged); corruption before the tail stops start-up with
 * {@link dev.offcache.core.journal.JournalCorruptException} naming the segment and offset, and a damaged snapshot
 * stops it naming the file. Owns the journal's mappings and its directory lock; the registry closes it.
 */
public final class JournalChangeLog implements ChangeLog
{
    private static final Logger LOG = LoggerFactory.getLogger(JournalChangeLog.class);
    private static final int SNAPSHOT_MAGIC = 0x5352434F; // "OCRS" little-endian
    /** Version 2 snapshots record locations with their CRC32C; version 1 ones (without) are still read. */
    private static final int SNAPSHOT_VERSION = 2;
    private static final int SNAPSHOT_VERSION_WITHOUT_CRCS = 1;
    private static final int SNAPSHOT_HEADER = 2 * Integer.BYTES + Long.BYTES + Integer.BYTES;
    private static final String SNAPSHOT_PREFIX = "snapshot-";
    private static final String SNAPSHOT_SUFFIX = ".bin";

    private final Journal journal;
    private final Path snapshotDirectory;
    private final long snapshotEveryRecords;
    private final ChangeCodec codec = new ChangeCodec();
    private long recordsSinceSnapshot;
    private long recordsAppended;
    private long forces;
    private long snapshotsWritten;
    private long recoveredRecords;
    private boolean unforced;

    private JournalChangeLog(final Journal journal, final Path snapshotDirectory, final long snapshotEveryRecords)
    {
        this.journal = journal;
        this.snapshotDirectory = snapshotDirectory;
        this.snapshotEveryRecords = snapshotEveryRecords;
    }

    /**
     * Opens the journal (checking every record) and the snapshot directory.
     *
     * @param ctx the configuration; concluded here.
     * @return the change log, owned by the caller until handed to a registry.
     * @throws dev.offcache.core.journal.JournalCorruptException when the journal is damaged before its tail.
     */
    public static JournalChangeLog open(final Context ctx)
    {
        ctx.conclude();
        final Path snapshots = ctx.directory.resolve("snapshots");
        try
        {
            Files.createDirectories(snapshots);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot create snapshot directory " + snapshots, ex);
        }
        final Journal journal = Journal.open(new Journal.Context()
            .directory(ctx.directory.resolve("journal"))
            .segmentSize(ctx.segmentSize));
        return new JournalChangeLog(journal, snapshots, ctx.snapshotEveryRecords);
    }

    /**
     * Loads the newest snapshot and replays the journal after it.
     *
     * @param state an empty state machine.
     */
    public void recover(final CacheStateMachine state)
    {
        long covered = 0;
        final TreeMap<Long, Path> snapshots = listSnapshots();
        if (!snapshots.isEmpty())
        {
            covered = snapshots.lastKey();
            loadSnapshot(snapshots.lastEntry().getValue(), covered, state);
        }
        if (journal.startPosition() > covered)
        {
            throw new IllegalStateException("journal in " + journal.directory() + " starts at position " +
                journal.startPosition() + " but the newest snapshot covers only up to " + covered +
                ": records are missing, refusing to start with a partial registry");
        }
        if (journal.appendPosition() < covered)
        {
            // A snapshot is taken right after a roll, so the segment it was taken at is never deleted with it.
            throw new IllegalStateException("journal in " + journal.directory() + " ends at position " +
                journal.appendPosition() + ", before the newest snapshot's position " + covered + ": the segment " +
                "it continues in is missing, refusing to start with a partial registry");
        }
        final long replayFrom = covered;
        final long[] replayed = new long[1];
        journal.forEach((buffer, offset, length, position) ->
        {
            if (position >= replayFrom)
            {
                ChangeCodec.apply(buffer, offset, length, state,
                    "journal record at position " + position + " in " + journal.directory());
                replayed[0]++;
            }
        });
        recoveredRecords = replayed[0];
        recordsSinceSnapshot = replayed[0];
        LOG.info("registry recovered {} entries: snapshot up to position {}, {} journal records replayed",
            state.size(), covered, replayed[0]);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public boolean isDurable()
    {
        return true;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public int maxCommandBytes()
    {
        return journal.maxRecordLength();
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void beginCommand()
    {
        codec.reset(0);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void onClaimed(final CacheKey key, final Pending entry)
    {
        codec.claim(key, entry.jobId());
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void onPromoted(final CacheKey key, final Materialized entry)
    {
        codec.promote(key, entry);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void onRemoved(final CacheKey key, final CacheEntry removed)
    {
        codec.remove(key);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void endCommand()
    {
        if (codec.effects() > 0)
        {
            final int length = codec.finish(0);
            journal.append(codec.buffer(), 0, length);
            recordsAppended++;
            recordsSinceSnapshot++;
            unforced = true;
        }
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void force()
    {
        if (unforced)
        {
            journal.force();
            forces++;
            unforced = false;
        }
    }

    /**
     * Writes a snapshot when enough records accumulated since the last one.
     *
     * @param state the current, acknowledged state.
     */
    public void afterBatch(final CacheStateMachine state)
    {
        if (recordsSinceSnapshot >= snapshotEveryRecords)
        {
            snapshot(state);
        }
    }

    /**
     * Writes a snapshot of the state now, then deletes the journal segments and older snapshots it covers.
     *
     * @param state the current, acknowledged state (every appended record is applied to it).
     */
    public void snapshot(final CacheStateMachine state)
    {
        journal.roll();
        final long covered = journal.appendPosition();
        final ChangeCodec body = new ChangeCodec();
        body.reset(SNAPSHOT_HEADER);
        state.forEachEntry((key, entry) ->
        {
            if (entry instanceof Materialized materialized)
            {
                body.promote(key, materialized);
            }
            else
            {
                body.claim(key, entry.jobId());
            }
        });
        final int end = body.finish(SNAPSHOT_HEADER);
        final MutableDirectBuffer bytes = body.buffer();
        bytes.putInt(0, SNAPSHOT_MAGIC);
        bytes.putInt(Integer.BYTES, SNAPSHOT_VERSION);
        bytes.putLong(2 * Integer.BYTES, covered);
        bytes.putInt(2 * Integer.BYTES + Long.BYTES, end - SNAPSHOT_HEADER);
        bytes.putInt(end, Crc32c.compute(bytes, 0, end));
        final Path target = snapshotDirectory.resolve(snapshotName(covered));
        final Path temp = snapshotDirectory.resolve(snapshotName(covered) + ".tmp");
        try
        {
            try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE))
            {
                final ByteBuffer source = ByteBuffer.wrap(bytes.byteArray(), 0, end + Integer.BYTES);
                while (source.hasRemaining())
                {
                    channel.write(source);
                }
                channel.force(true);
            }
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
            forceDirectory(snapshotDirectory);
            for (final Path old : listSnapshots().headMap(covered).values())
            {
                Files.deleteIfExists(old);
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot write registry snapshot " + target, ex);
        }
        journal.deleteSegmentsBefore(covered);
        recordsSinceSnapshot = 0;
        snapshotsWritten++;
    }

    /**
     * Records appended since open.
     *
     * @return the count.
     */
    public long recordsAppended()
    {
        return recordsAppended;
    }

    /**
     * Journal forces since open (one per batch that changed something: the group-commit ratio is
     * {@code recordsAppended / forces}).
     *
     * @return the count.
     */
    public long forces()
    {
        return forces;
    }

    /**
     * Snapshots written since open.
     *
     * @return the count.
     */
    public long snapshotsWritten()
    {
        return snapshotsWritten;
    }

    /**
     * Journal records replayed by the last recovery.
     *
     * @return the count.
     */
    public long recoveredRecords()
    {
        return recoveredRecords;
    }

    /**
     * Journal segment files currently on disk.
     *
     * @return the count.
     */
    public int segmentCount()
    {
        return journal.segmentCount();
    }

    /**
     * Forces and closes the journal.
     */
    public void close()
    {
        journal.close();
    }

    private TreeMap<Long, Path> listSnapshots()
    {
        final TreeMap<Long, Path> out = new TreeMap<>();
        final List<Path> temps = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(snapshotDirectory))
        {
            for (final Path file : stream)
            {
                final String name = file.getFileName().toString();
                if (name.endsWith(".tmp"))
                {
                    temps.add(file);
                }
                else if (name.startsWith(SNAPSHOT_PREFIX) && name.endsWith(SNAPSHOT_SUFFIX))
                {
                    final String digits =
                        name.substring(SNAPSHOT_PREFIX.length(), name.length() - SNAPSHOT_SUFFIX.length());
                    try
                    {
                        out.put(Long.parseLong(digits), file);
                    }
                    catch (final NumberFormatException ex)
                    {
                        throw new IllegalStateException("unexpected file in snapshot directory: " + file, ex);
                    }
                }
            }
            for (final Path temp : temps)
            {
                // A snapshot a crash interrupted before its rename: the journal still covers everything in it.
                Files.deleteIfExists(temp);
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot list snapshot directory " + snapshotDirectory, ex);
        }
        return out;
    }

    private static void loadSnapshot(final Path file, final long covered, final CacheStateMachine state)
    {
        final byte[] bytes;
        try
        {
            bytes = Files.readAllBytes(file);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot read registry snapshot " + file, ex);
        }
        final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
        if (bytes.length < SNAPSHOT_HEADER + 2 * Integer.BYTES)
        {
            throw new IllegalStateException("registry snapshot " + file + " is truncated: " + bytes.length + " bytes");
        }
        final int end = bytes.length - Integer.BYTES;
        final int version = buffer.getInt(Integer.BYTES);
        if (buffer.getInt(0) != SNAPSHOT_MAGIC ||
            (version != SNAPSHOT_VERSION && version != SNAPSHOT_VERSION_WITHOUT_CRCS))
        {
            throw new IllegalStateException("registry snapshot " + file + " has a bad magic or version at offset 0 " +
                "(version " + version + "; this registry reads versions " + SNAPSHOT_VERSION_WITHOUT_CRCS + " and " +
                SNAPSHOT_VERSION + ")");
        }
        if (Crc32c.compute(buffer, 0, end) != buffer.getInt(end))
        {
            throw new IllegalStateException("registry snapshot " + file + " fails its CRC32C (checksum at offset " +
                end + "): refusing to start from a damaged snapshot");
        }
        final long position = buffer.getLong(2 * Integer.BYTES);
        final int bodyLength = buffer.getInt(2 * Integer.BYTES + Long.BYTES);
        if (position != covered || SNAPSHOT_HEADER + bodyLength != end)
        {
            throw new IllegalStateException("registry snapshot " + file + " header does not match its name or size");
        }
        ChangeCodec.apply(buffer, SNAPSHOT_HEADER, bodyLength, state, "snapshot " + file);
    }

    private static String snapshotName(final long position)
    {
        return String.format("%s%020d%s", SNAPSHOT_PREFIX, position, SNAPSHOT_SUFFIX);
    }

    private static void forceDirectory(final Path directory) throws IOException
    {
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ))
        {
            channel.force(true);
        }
    }

    /**
     * Configuration of a {@link JournalChangeLog}.
     */
    public static final class Context
    {
        private final ConcludeOnce concluded = new ConcludeOnce();
        private Path directory;
        private int segmentSize = Journal.Context.DEFAULT_SEGMENT_SIZE;
        private long snapshotEveryRecords = 10_000;

        /**
         * The registry's directory (holds {@code journal/} and {@code snapshots/}). Required.
         *
         * @param directory the directory.
         * @return this.
         */
        public Context directory(final Path directory)
        {
            this.directory = directory;
            return this;
        }

        /**
         * Journal segment size (multiple of 4 KiB). Default 16 MiB; one command's record must fit in a segment.
         *
         * @param segmentSize bytes per segment.
         * @return this.
         */
        public Context segmentSize(final int segmentSize)
        {
            this.segmentSize = segmentSize;
            return this;
        }

        /**
         * Journal records between snapshots (bounds replay). Default 10 000.
         *
         * @param snapshotEveryRecords the count; positive.
         * @return this.
         */
        public Context snapshotEveryRecords(final long snapshotEveryRecords)
        {
            this.snapshotEveryRecords = snapshotEveryRecords;
            return this;
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
                throw new IllegalArgumentException("JournalChangeLog.Context.directory is required");
            }
            if (snapshotEveryRecords <= 0)
            {
                throw new IllegalArgumentException(
                    "JournalChangeLog.Context.snapshotEveryRecords must be positive: " + snapshotEveryRecords);
            }
            return this;
        }
    }
}
