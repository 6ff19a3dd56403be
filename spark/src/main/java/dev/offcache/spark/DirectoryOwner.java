package dev.offcache.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Pattern;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The process that owns an executor's directory, written into it ({@value #FILE}) before anything else, so that a
 * later executor on the same host can tell a directory left by a killed executor (its process gone, or its pid now
 * another process's, told apart by the start time) from one in use, and delete it. A SIGKILLed executor cannot
 * delete its own directory; without this its cached partitions stayed on disk forever.
 *
 * <p>The sweep is conservative: it looks only at direct children of the executor root named like an executor
 * directory ({@code offcache-<app>-<executor>-<pid>}, never following links), and deletes one only when its owner
 * file names this host (host name and boot id) and a process that is not running. A directory without a readable
 * owner file, of another host (a root shared over a network), or of a live process is left alone.
 */
record DirectoryOwner(String host, String bootId, long pid, long startMillis)
{
    /** The owner file's name inside an executor's directory (a name the partition store never writes). */
    static final String FILE = ".offcache-owner";
    /** What an executor directory's name looks like: {@code offcache-<app>-<executor>-<pid>}. */
    static final Pattern NAME = Pattern.compile("offcache-.+-(\\d+)");
    private static final Logger LOG = LoggerFactory.getLogger(DirectoryOwner.class);
    private static final Path BOOT_ID = Path.of("/proc/sys/kernel/random/boot_id");

    /**
     * This process.
     *
     * @return its identity on this host.
     */
    static DirectoryOwner current()
    {
        final ProcessHandle self = ProcessHandle.current();
        return new DirectoryOwner(readHostName(), readBootId(), self.pid(), startOf(self));
    }

    /**
     * Writes this owner into a directory (atomically: a reader sees the whole file or none).
     *
     * @param directory the executor's directory.
     * @throws IOException when it cannot be written.
     */
    void writeTo(final Path directory) throws IOException
    {
        final Properties properties = new Properties();
        properties.setProperty("host", host);
        properties.setProperty("boot", bootId);
        properties.setProperty("pid", Long.toString(pid));
        properties.setProperty("start", Long.toString(startMillis));
        final Path temp = directory.resolve(FILE + ".tmp");
        try (var out = Files.newBufferedWriter(temp, StandardCharsets.UTF_8))
        {
            properties.store(out, "the process that owns this offcache executor directory");
        }
        Files.move(temp, directory.resolve(FILE), StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * The owner written in a directory.
     *
     * @param directory an executor's directory.
     * @return its owner, or empty when there is no readable, whole owner file.
     */
    static Optional<DirectoryOwner> readFrom(final Path directory)
    {
        final Properties properties = new Properties();
        try (var in = Files.newBufferedReader(directory.resolve(FILE), StandardCharsets.UTF_8))
        {
            properties.load(in);
            return Optional.of(new DirectoryOwner(properties.getProperty("host"), properties.getProperty("boot"),
                Long.parseLong(properties.getProperty("pid")), Long.parseLong(properties.getProperty("start"))));
        }
        catch (final IOException | RuntimeException ex)
        {
            return Optional.empty();
        }
    }

    /**
     * Whether this owner is a process of this host that no longer runs: same host name, and either the host has
     * rebooted since, or no process has the pid, or the process with the pid started at another time (the pid was
     * reused). When the start times are unknown a running process with the pid counts as the owner.
     *
     * @param here this process (its host and boot).
     * @return true only when the owner is certainly gone.
     */
    boolean isDeadOn(final DirectoryOwner here)
    {
        if (host == null || !host.equals(here.host))
        {
            return false;
        }
        if (!bootId.isEmpty() && !here.bootId.isEmpty() && !bootId.equals(here.bootId))
        {
            return true;
        }
        if (pid == here.pid)
        {
            return false;
        }
        final Optional<ProcessHandle> process = ProcessHandle.of(pid);
        if (process.isEmpty() || !process.get().isAlive())
        {
            return true;
        }
        final long start = startOf(process.get());
        return startMillis >= 0 && start >= 0 && Math.abs(start - startMillis) > 1_000;
    }

    /**
     * Deletes the executor directories under {@code root} whose owner is a dead process of this host.
     *
     * @param root   the executors' parent directory ({@code spark.offcache.executor.dir}).
     * @param except a directory never deleted (the caller's own), or null.
     * @return the directories deleted.
     */
    static List<Path> sweepDead(final Path root, final Path except)
    {
        final List<Path> deleted = new ArrayList<>();
        if (!Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS))
        {
            return deleted;
        }
        final DirectoryOwner here = current();
        try (DirectoryStream<Path> children = Files.newDirectoryStream(root))
        {
            for (final Path child : children)
            {
                if (!NAME.matcher(child.getFileName().toString()).matches() || child.equals(except) ||
                    !Files.isDirectory(child, LinkOption.NOFOLLOW_LINKS))
                {
                    continue;
                }
                final Optional<DirectoryOwner> owner = readFrom(child);
                if (owner.isPresent() && owner.get().isDeadOn(here))
                {
                    deleteOwnerLast(child);
                    if (!Files.exists(child, LinkOption.NOFOLLOW_LINKS))
                    {
                        deleted.add(child);
                    }
                }
            }
        }
        catch (final IOException | UncheckedIOException ex)
        {
            LOG.warn("offcache could not look for directories of dead executors under {}", root, ex);
        }
        if (!deleted.isEmpty())
        {
            LOG.info("offcache deleted {} directories of executors no longer running: {}", deleted.size(), deleted);
        }
        return deleted;
    }

    /** Deletes a dead executor's directory with its owner file last, so a sweep cut short is finished by the next. */
    private static void deleteOwnerLast(final Path directory) throws IOException
    {
        try (DirectoryStream<Path> children = Files.newDirectoryStream(directory))
        {
            for (final Path child : children)
            {
                if (!child.getFileName().toString().equals(FILE))
                {
                    OffcacheExecutor.deleteRecursively(child);
                }
            }
        }
        OffcacheExecutor.deleteRecursively(directory);
    }

    private static long startOf(final ProcessHandle process)
    {
        return process.info().startInstant().map(Instant::toEpochMilli).orElse(-1L);
    }

    private static String readHostName()
    {
        try
        {
            return InetAddress.getLocalHost().getHostName();
        }
        catch (final IOException ex)
        {
            return "localhost";
        }
    }

    private static String readBootId()
    {
        try
        {
            // readAllLines: a /proc/sys file read at a non-zero offset answers end of file.
            final List<String> lines = Files.readAllLines(BOOT_ID, StandardCharsets.US_ASCII);
            return lines.isEmpty() ? "" : lines.get(0).trim();
        }
        catch (final IOException | RuntimeException ex)
        {
            return "";
        }
    }
}
