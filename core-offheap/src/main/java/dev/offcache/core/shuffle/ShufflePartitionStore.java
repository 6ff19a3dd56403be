package dev.offcache.core.shuffle;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
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
 * keep every stage the {@link PinSet} protects (the stages behind cached datasets). {@link #list()} tells what is
 * on disk, for reconciling a registry after a restart; it and the constructor delete temporary files left by
 * writers that crashed (never those of writers still open in this store).
 *
 * <p>Thread-safe: any number of threads may write different partitions, read and delete. Deleting a stage while
 * one of its partitions is being written makes that writer's commit fail; deleting a partition file that is
 * mapped does not disturb its readers (the mapping keeps the old file alive). Owns no memory itself; each
 * {@link MappedPartition} owns its mapping and each {@link PartitionWriter} its staging buffer.
 */
public final class ShufflePartitionStore
{
    private static final AtomicLong TEMP_SEQUENCE = new AtomicLong();

    private final Path workDir;
    private final PinSet pins;
    private final Set<Path> activeTempFiles = ConcurrentHashMap.newKeySet();

    /**
     * Opens (creating if needed) a store over {@code workDir} and deletes temporary files left by a crash.
     *
     * @param workDir root of the store.
     * @param pins    stages that deletion must keep.
     * @throws UncheckedIOException naming the directory if it cannot be created or scanned.
     */
    public ShufflePartitionStore(final Path workDir, final PinSet pins)
    {
        if (workDir == null || pins == null)
        {
            throw new IllegalArgumentException("workDir and pins are required (use PinSet.NONE for no pins)");
        }
        this.workDir = workDir.toAbsolutePath().normalize();
        this.pins = pins;
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
        final Path finalPath = pathOf(id);
        final Path stageDir = finalPath.getParent();
        final Path tempPath = stageDir.resolve("." + id.partitionId() + PartitionFile.DATA_SUFFIX + "." +
            TEMP_SEQUENCE.incrementAndGet() + "-" + Long.toHexString(ThreadLocalRandom.current().nextLong()) +
            PartitionFile.TEMP_SUFFIX);
        activeTempFiles.add(tempPath);
        try
        {
            Files.createDirectories(stageDir);
            return new PartitionWriter(this, id, tempPath, finalPath);
        }
        catch (final IOException ex)
        {
            activeTempFiles.remove(tempPath);
            throw new UncheckedIOException("cannot open a writer for shuffle partition " + id + " at " + tempPath,
                ex);
        }
    }

    /**
     * Maps a committed partition read-only, after checking its footer and length.
     *
     * @param id of the partition.
     * @return the mapped partition, owned by the caller (close it).
     * @throws PartitionNotFoundException if there is no committed file.
     * @throws CorruptPartitionException  naming the file if it is truncated or its footer is damaged.
     */
    public MappedPartition openPartition(final PartitionId id)
    {
        final Path path = pathOf(id);
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
     * Deletes a stage's directory and every partition in it, unless the pin set protects the stage.
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
        PartitionId.validateJobId(jobId);
        final Path jobDir = workDir.resolve(jobId);
        if (!Files.isDirectory(jobDir))
        {
            return 0;
        }
        int deleted = 0;
        for (final Path stageDir : children(jobDir))
        {
            final int stageId = parseId(stageDir.getFileName().toString());
            if (stageId >= 0 && Files.isDirectory(stageDir) && !pins.isPinned(jobId, stageId))
            {
                deleteRecursively(stageDir);
                deleted++;
            }
        }
        try
        {
            Files.deleteIfExists(jobDir);
        }
        catch (final DirectoryNotEmptyException ignore)
        {
            // Pinned stages (or files that are not ours) remain; the job directory stays with them.
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot delete shuffle job directory " + jobDir, ex);
        }
        return deleted;
    }

    /**
     * Lists every committed partition on disk, sorted, and deletes temporary files left by crashed writers.
     * Files and directories whose names the store would not have written are ignored (and kept).
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
        activeTempFiles.remove(tempPath);
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
                    if (name.startsWith(".") && name.endsWith(PartitionFile.TEMP_SUFFIX))
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
        if (!activeTempFiles.contains(file))
        {
            try
            {
                Files.deleteIfExists(file);
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException("cannot delete stale temporary shuffle file " + file, ex);
            }
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
