package dev.offcache.core.shuffle;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import dev.offcache.core.region.MappedRegion;

/**
 * Shuffle partitions on local disk, laid out as {@code {workDir}/{jobId}/{stageId}/{partitionId}.data}.
 *
 * <p>Writers ({@link #openWriter}) write under a hidden temporary name and rename on commit, so a reader
 * ({@link #openPartition}) sees a partition whole or not at all. {@link #deleteStage} and {@link #deleteJob}
 * keep every stage the {@link PinSet} protects (the stages behind cached datasets), and a job's directory goes
 * with its last stage. {@link #list()} tells what is on disk, for reconciling a registry after a restart; it and the
 * constructor delete temporary files left by writers that crashed: a temporary name carries its writer's process
 * id, and only files of processes that are gone (or of this process, but no longer being written) are deleted, so
 * a second store over the same directory never deletes another process's in-flight writes.
 *
 * <p>{@link #openReadOnly(Path)} opens a directory that another process writes (a co-located reader): it reads,
 * lists and opens partitions but never creates, deletes or cleans anything there.
 *
 * <p>Thread-safe: any number of threads may write different partitions, read and delete. Deleting a stage while
 * one of its partitions is being written makes that writer's commit fail; deleting a partition file that is
 * mapped does not disturb its readers (the mapping keeps the old file alive). Owns no memory itself; each
 * {@link MappedPartition} owns its mapping and each {@link PartitionWriter} its staging buffer.
 */
public final class ShufflePartitionStore
{
    private static final AtomicLong TEMP_SEQUENCE = new AtomicLong();
    private static final long PID = ProcessHandle.current().pid();
    private static final String TEMP_MARKER = PartitionFile.DATA_SUFFIX + ".pid";
    /** Temporary files of writers still open in this process, whichever store opened them. */
    private static final Set<Path> ACTIVE_TEMP_FILES = ConcurrentHashMap.newKeySet();
    private static final int CREATE_ATTEMPTS = 8;

    private final Path workDir;
    private final PinSet pins;
    private final boolean readOnly;

    /**
     * Opens (creating if needed) a store over {@code workDir} and deletes temporary files left by a crash.
     *
     * @param workDir root of the store.
     * @param pins    stages that deletion must keep (consulted at every deletion, so a live view works).
     * @throws UncheckedIOException naming the directory if it cannot be created or scanned.
     */
    public ShufflePartitionStore(final Path workDir, final PinSet pins)
    {
        this(workDir, pins, false);
    }

    private ShufflePartitionStore(final Path workDir, final PinSet pins, final boolean readOnly)
    {
        if (workDir == null || pins == null)
        {
            throw new IllegalArgumentException("workDir and pins are required (use PinSet.NONE for no pins)");
        }
        this.workDir = workDir.toAbsolutePath().normalize();
        this.pins = pins;
        this.readOnly = readOnly;
        if (!readOnly)
        {
            try
            {
                Files.createDirectories(this.workDir);
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException("cannot create shuffle work directory " + this.workDir, ex);
            }
            scan(null);
        }
    }

    /**
     * Opens a store over a directory another process writes, for reading only: nothing is created, deleted or
     * cleaned there (temporary files are left to their writers), and {@link #openWriter}, {@link #deleteStage} and
     * {@link #deleteJob} refuse. A directory that does not exist yet reads as empty.
     *
     * @param workDir root of the writer's store.
     * @return the read-only store.
     */
    public static ShufflePartitionStore openReadOnly(final Path workDir)
    {
        return new ShufflePartitionStore(workDir, PinSet.NONE, true);
    }

    /**
     * Whether this store only reads ({@link #openReadOnly(Path)}).
     *
     * @return true for a read-only store.
     */
    public boolean isReadOnly()
    {
        return readOnly;
    }

    /**
     * Returns the root directory.
     *
     * @return the root directory.
     */
    public Path workDir()
    {
        return workDir;
    }

    /**
     * Tells where a partition's committed file lives.
     *
     * @param id of a partition.
     * @return where its committed file lives (whether or not it exists).
     */
    public Path pathOf(final PartitionId id)
    {
        return stageDir(id.jobId(), id.stageId()).resolve(id.partitionId() + PartitionFile.DATA_SUFFIX);
    }

    /**
     * Tells whether a partition is committed.
     *
     * @param id of a partition.
     * @return true if a committed file exists for it.
     */
    public boolean exists(final PartitionId id)
    {
        return Files.isRegularFile(pathOf(id));
    }

    /**
     * Starts writing a partition. The partition becomes visible only on {@link PartitionWriter#commit()}.
     *
     * @param id of the partition.
     * @return the writer, which the caller must commit or abort (or close).
     * @throws UncheckedIOException naming the path if the stage directory or temporary file cannot be created.
     */
    public PartitionWriter openWriter(final PartitionId id)
    {
        ensureWritable("write partition " + id);
        final Path finalPath = pathOf(id);
        final Path stageDir = finalPath.getParent();
        final Path tempPath = stageDir.resolve("." + id.partitionId() + TEMP_MARKER + PID + "-" +
            TEMP_SEQUENCE.incrementAndGet() + "-" + Long.toHexString(ThreadLocalRandom.current().nextLong()) +
            PartitionFile.TEMP_SUFFIX);
        ACTIVE_TEMP_FILES.add(tempPath);
        for (int attempt = 1; ; attempt++)
        {
            try
            {
                createBelowRoot(stageDir);
                return new PartitionWriter(this, id, tempPath, finalPath);
            }
            catch (final NoSuchFileException ex)
            {
                // The job directory went (its last stage was deleted) between creating it and the stage directory
                // or the file: create it again. The root itself is never created again: gone, the store's owner
                // deleted it (an executor that stops), and a writer must not leave a directory nobody owns.
                if (!Files.isDirectory(workDir))
                {
                    ACTIVE_TEMP_FILES.remove(tempPath);
                    throw new UncheckedIOException("cannot open a writer for shuffle partition " + id + ": the " +
                        "store's directory " + workDir + " was deleted", ex);
                }
                if (attempt == CREATE_ATTEMPTS)
                {
                    ACTIVE_TEMP_FILES.remove(tempPath);
                    throw new UncheckedIOException("cannot open a writer for shuffle partition " + id + " at " +
                        tempPath + ": its directory keeps disappearing", ex);
                }
            }
            catch (final IOException ex)
            {
                ACTIVE_TEMP_FILES.remove(tempPath);
                throw new UncheckedIOException("cannot open a writer for shuffle partition " + id + " at " +
                    tempPath, ex);
            }
        }
    }

    /** Creates the directories from below the root down to {@code dir}; the root must exist. */
    private void createBelowRoot(final Path dir) throws IOException
    {
        final Path relative = workDir.relativize(dir);
        Path current = workDir;
        for (final Path name : relative)
        {
            current = current.resolve(name);
            try
            {
                Files.createDirectory(current);
            }
            catch (final FileAlreadyExistsException ex)
            {
                if (!Files.isDirectory(current))
                {
                    throw ex;
                }
            }
        }
    }

    /**
     * Maps a committed partition read-only, after checking its footer, its length and that it is the partition
     * asked for.
     *
     * @param id of the partition.
     * @return the mapped partition, owned by the caller (close it).
     * @throws PartitionNotFoundException if there is no committed file.
     * @throws CorruptPartitionException  naming the file if it is truncated, its footer is damaged or it holds
     *                                    another partition.
     */
    public MappedPartition openPartition(final PartitionId id)
    {
        return openPartition(id, pathOf(id));
    }

    /**
     * Maps the file a partition was recorded at (for example the path a registry kept), read-only, after checking
     * its footer, its length and that it holds that partition: a file of another partition at that path is refused,
     * whatever its name.
     *
     * @param id   of the partition.
     * @param path of its committed file.
     * @return the mapped partition, owned by the caller (close it).
     * @throws PartitionNotFoundException if there is no file at {@code path}.
     * @throws CorruptPartitionException  naming the file if it is truncated, its footer is damaged or it holds
     *                                    another partition.
     */
    public MappedPartition openPartition(final PartitionId id, final Path path)
    {
        if (id == null || path == null)
        {
            throw new IllegalArgumentException("id and path are required");
        }
        final MappedRegion region;
        try
        {
            region = MappedRegion.mapExistingFile(path, true);
        }
        catch (final UncheckedIOException ex)
        {
            if (ex.getCause() instanceof NoSuchFileException)
            {
                throw new PartitionNotFoundException(id, path);
            }
            throw ex;
        }
        return new MappedPartition(id, path, region);
    }

    /**
     * Deletes a stage's directory and every partition in it, unless the pin set protects the stage; the job's
     * directory goes too once no stage is left in it.
     *
     * @param jobId   of the stage.
     * @param stageId of the stage.
     * @return true if the stage existed, was not pinned and is now gone.
     * @throws IllegalArgumentException if an id is invalid.
     */
    public boolean deleteStage(final String jobId, final int stageId)
    {
        PartitionId.validateJobId(jobId);
        PartitionId.validateStageId(stageId);
        ensureWritable("delete stage " + jobId + "/" + stageId);
        if (pins.isPinned(jobId, stageId))
        {
            return false;
        }
        final Path stageDir = stageDir(jobId, stageId);
        if (!Files.isDirectory(stageDir))
        {
            return false;
        }
        deleteRecursively(stageDir);
        deleteIfEmpty(workDir.resolve(jobId));
        return true;
    }

    /**
     * Deletes every stage of a job that the pin set does not protect, and the job's directory once it is empty.
     *
     * @param jobId of the job.
     * @return how many stages were deleted.
     * @throws IllegalArgumentException if the id is invalid.
     */
    public int deleteJob(final String jobId)
    {
        return deleteJob(jobId, PinSet.NONE);
    }

    /**
     * Deletes every stage of a job that neither the store's pin set nor {@code alsoKeep} protects, and the job's
     * directory once it is empty: for cleanup that learns the stages to keep per call (the registry's pins at the
     * time of the call).
     *
     * @param jobId    of the job.
     * @param alsoKeep stages this call must keep besides the store's pins.
     * @return how many stages were deleted.
     * @throws IllegalArgumentException if the id is invalid.
     */
    public int deleteJob(final String jobId, final PinSet alsoKeep)
    {
        PartitionId.validateJobId(jobId);
        if (alsoKeep == null)
        {
            throw new IllegalArgumentException("alsoKeep must not be null (use PinSet.NONE)");
        }
        ensureWritable("delete job " + jobId);
        final Path jobDir = workDir.resolve(jobId);
        if (!Files.isDirectory(jobDir))
        {
            return 0;
        }
        int deleted = 0;
        for (final Path stageDir : children(jobDir))
        {
            final int stageId = parseId(stageDir.getFileName().toString());
            if (stageId >= 0 && Files.isDirectory(stageDir) && !pins.isPinned(jobId, stageId) &&
                !alsoKeep.isPinned(jobId, stageId))
            {
                deleteRecursively(stageDir);
                deleted++;
            }
        }
        deleteIfEmpty(jobDir);
        return deleted;
    }

    /**
     * Lists every committed partition on disk, sorted, and deletes temporary files left by crashed writers (a
     * read-only store deletes nothing). Files and directories whose names the store would not have written are
     * ignored (and kept).
     *
     * @return the committed partitions.
     */
    public List<PartitionId> list()
    {
        final List<PartitionId> result = new ArrayList<>();
        scan(result);
        Collections.sort(result);
        return result;
    }

    void writerFinished(final Path tempPath)
    {
        ACTIVE_TEMP_FILES.remove(tempPath);
    }

    private void scan(final List<PartitionId> result)
    {
        for (final Path jobDir : children(workDir))
        {
            final String jobId = jobDir.getFileName().toString();
            if (!isValidJobId(jobId) || !Files.isDirectory(jobDir))
            {
                continue;
            }
            for (final Path stageDir : children(jobDir))
            {
                final int stageId = parseId(stageDir.getFileName().toString());
                if (stageId < 0 || !Files.isDirectory(stageDir))
                {
                    continue;
                }
                for (final Path file : children(stageDir))
                {
                    final String name = file.getFileName().toString();
                    if (!readOnly && name.startsWith(".") && name.endsWith(PartitionFile.TEMP_SUFFIX))
                    {
                        deleteStaleTemp(file);
                    }
                    else if (result != null && name.endsWith(PartitionFile.DATA_SUFFIX))
                    {
                        final int partitionId = parseId(
                            name.substring(0, name.length() - PartitionFile.DATA_SUFFIX.length()));
                        if (partitionId >= 0 && Files.isRegularFile(file))
                        {
                            result.add(new PartitionId(jobId, stageId, partitionId));
                        }
                    }
                }
            }
        }
    }

    private void deleteStaleTemp(final Path file)
    {
        if (ACTIVE_TEMP_FILES.contains(file) || writerMayBeAlive(file.getFileName().toString()))
        {
            return;
        }
        try
        {
            Files.deleteIfExists(file);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot delete stale temporary shuffle file " + file, ex);
        }
    }

    /**
     * Whether the process named in a temporary file's name may still be writing it: another process that is alive
     * (this process's own writers are in {@link #ACTIVE_TEMP_FILES}). Names without a process id (older versions)
     * are crash leftovers.
     */
    private static boolean writerMayBeAlive(final String name)
    {
        final int from = name.indexOf(TEMP_MARKER);
        final int to = from < 0 ? -1 : name.indexOf('-', from + TEMP_MARKER.length());
        if (to < 0)
        {
            return false;
        }
        final long pid;
        try
        {
            pid = Long.parseLong(name.substring(from + TEMP_MARKER.length(), to));
        }
        catch (final NumberFormatException ex)
        {
            return false;
        }
        return pid != PID && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    private void ensureWritable(final String action)
    {
        if (readOnly)
        {
            throw new IllegalStateException("cannot " + action + ": the store over " + workDir + " is read-only");
        }
    }

    private static void deleteIfEmpty(final Path dir)
    {
        try
        {
            Files.deleteIfExists(dir);
        }
        catch (final DirectoryNotEmptyException ignore)
        {
            // Pinned stages, stages still being written, or files that are not ours remain; the directory stays.
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot delete shuffle directory " + dir, ex);
        }
    }

    private Path stageDir(final String jobId, final int stageId)
    {
        return workDir.resolve(jobId).resolve(Integer.toString(stageId));
    }

    private static boolean isValidJobId(final String name)
    {
        try
        {
            PartitionId.validateJobId(name);
            return true;
        }
        catch (final IllegalArgumentException ex)
        {
            return false;
        }
    }

    /**
     * Parses a stage or partition id written by the store: canonical decimal, no sign, no leading zeros.
     *
     * @return the id, or -1 if the name is not one.
     */
    static int parseId(final String name)
    {
        final int length = name.length();
        if (length == 0 || length > 10 || (length > 1 && name.charAt(0) == '0'))
        {
            return -1;
        }
        long value = 0;
        for (int i = 0; i < length; i++)
        {
            final char c = name.charAt(i);
            if (c < '0' || c > '9')
            {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value > Integer.MAX_VALUE ? -1 : (int) value;
    }

    private static List<Path> children(final Path dir)
    {
        final List<Path> children = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir))
        {
            for (final Path child : stream)
            {
                children.add(child);
            }
        }
        catch (final NoSuchFileException ex)
        {
            return children;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot list shuffle directory " + dir, ex);
        }
        return children;
    }

    private static void deleteRecursively(final Path dir)
    {
        for (final Path child : children(dir))
        {
            if (Files.isDirectory(child, LinkOption.NOFOLLOW_LINKS))
            {
                deleteRecursively(child);
            }
            else
            {
                try
                {
                    Files.deleteIfExists(child);
                }
                catch (final IOException ex)
                {
                    throw new UncheckedIOException("cannot delete shuffle file " + child, ex);
                }
            }
        }
        try
        {
            Files.deleteIfExists(dir);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot delete shuffle directory " + dir, ex);
        }
    }
}
