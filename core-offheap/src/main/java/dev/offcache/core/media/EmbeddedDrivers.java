package dev.offcache.core.media;

import java.io.File;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

import io.aeron.CommonContext;
import io.aeron.exceptions.DriverTimeoutException;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import org.agrona.CloseHelper;
import org.agrona.IoUtil;
import org.agrona.concurrent.IdleStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place offcache makes embedded media drivers: {@link AeronMedia} (transport), the registry's cluster client
 * and its cluster member all take their driver context from {@link #context}, launch it with {@link #launch} and
 * stop it with {@link #close}. Every such driver runs in its own directory, recreated at start and deleted on
 * close (also when the launch fails), with sparse term files and the same idle strategy on every agent. A JVM killed
 * before its close leaves its directory behind (tens of MiB of {@code /dev/shm} each); every launch first deletes
 * those of its base directory whose process is gone and whose driver no longer beats ({@link #sweepStale}).
 */
public final class EmbeddedDrivers
{
    /** Prefix of embedded driver directories, so stale ones (from killed JVMs) are easy to find and delete. */
    public static final String DIR_PREFIX = "aeron-offcache-";

    /** A driver whose heartbeat is older than this is not running (Aeron's default driver timeout). */
    static final long STALE_AFTER_MS = TimeUnit.SECONDS.toMillis(10);

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedDrivers.class);

    private EmbeddedDrivers()
    {
    }

    /**
     * A directory no other driver uses: {@code /dev/shm/aeron-offcache-<pid>-<random>} ({@code java.io.tmpdir}
     * where there is no {@code /dev/shm}).
     *
     * @return the path, not yet created.
     */
    public static String uniqueDirectoryName()
    {
        final String name = DIR_PREFIX + ProcessHandle.current().pid() + "-" +
            Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 16);
        return baseDirectory().resolve(name).toString();
    }

    /**
     * Where {@link #uniqueDirectoryName()} puts driver directories: {@code /dev/shm}, else {@code java.io.tmpdir}.
     *
     * @return the base directory.
     */
    public static Path baseDirectory()
    {
        final Path shm = Paths.get("/dev/shm");
        return Files.isDirectory(shm) ? shm : Paths.get(System.getProperty("java.io.tmpdir"));
    }

    /**
     * Deletes the embedded driver directories under {@code base} left by killed JVMs: named
     * {@code aeron-offcache-<pid>-…}, whose pid no longer runs on this host <em>and</em> whose driver has not beaten
     * for {@value #STALE_AFTER_MS} ms. Both must hold: a pid alone could belong to another pid namespace sharing
     * {@code /dev/shm}, and a heartbeat alone could be a driver that is only starting. Any other entry is left.
     *
     * @param base the directory to sweep, usually {@link #baseDirectory()}.
     * @return how many directories were deleted.
     */
    public static int sweepStale(final Path base)
    {
        int deleted = 0;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(base, DIR_PREFIX + "*"))
        {
            for (final Path entry : entries)
            {
                if (isStale(entry))
                {
                    IoUtil.delete(entry.toFile(), true);
                    deleted++;
                    LOG.info("deleted the media driver directory {} of a process that no longer runs", entry);
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            // Only tidying: a launch never fails because of what others left behind.
            LOG.warn("could not sweep stale media driver directories in {}: {}", base, ex.toString());
        }
        return deleted;
    }

    private static void ignore(final String message)
    {
    }

    private static boolean isStale(final Path entry)
    {
        final String name = entry.getFileName().toString();
        final int end = name.indexOf('-', DIR_PREFIX.length());
        final long pid;
        try
        {
            pid = Long.parseLong(name.substring(DIR_PREFIX.length(), end < 0 ? name.length() : end));
        }
        catch (final NumberFormatException ex)
        {
            return false;
        }
        if (!Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS) ||
            ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
        {
            return false;
        }
        try
        {
            return !CommonContext.isDriverActive(entry.toFile(), STALE_AFTER_MS, EmbeddedDrivers::ignore);
        }
        catch (final DriverTimeoutException ex)
        {
            return true; // a CnC file its dead process never finished writing
        }
    }

    /**
     * A driver context with offcache's common settings: the directory (deleted on start and on shutdown), the
     * threading mode, one new idle strategy per agent (an idle strategy keeps per-thread state), sparse term files.
     * Callers add their own settings (term lengths, MTU, windows) before {@link #launch}.
     *
     * @param directoryName the driver's directory, for example {@link #uniqueDirectoryName()}.
     * @param threadingMode the driver's threading.
     * @param idleStrategy  asked once per agent.
     * @return a new context.
     */
    public static MediaDriver.Context context(
        final String directoryName,
        final ThreadingMode threadingMode,
        final Supplier<? extends IdleStrategy> idleStrategy)
    {
        return new MediaDriver.Context()
            .aeronDirectoryName(directoryName)
            .threadingMode(threadingMode)
            .sharedIdleStrategy(idleStrategy.get())
            .sharedNetworkIdleStrategy(idleStrategy.get())
            .conductorIdleStrategy(idleStrategy.get())
            .senderIdleStrategy(idleStrategy.get())
            .receiverIdleStrategy(idleStrategy.get())
            .dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true)
            .termBufferSparseFile(true)
            .warnIfDirectoryExists(false);
    }

    /**
     * Launches a driver of {@link #context}; if the launch fails, the directory it may have created is deleted.
     *
     * @param ctx the driver's context.
     * @return the running driver, to be stopped with {@link #close(AutoCloseable, String)}.
     */
    public static MediaDriver launch(final MediaDriver.Context ctx)
    {
        final String dir = ctx.aeronDirectoryName();
        final Path parent = Paths.get(dir).toAbsolutePath().getParent();
        if (parent != null)
        {
            sweepStale(parent);
        }
        try
        {
            return MediaDriver.launch(ctx);
        }
        catch (final RuntimeException | Error ex)
        {
            IoUtil.delete(new File(dir), true);
            throw ex;
        }
    }

    /**
     * Stops a driver (a {@link MediaDriver}, or a driver bundle such as a clustered media driver) and deletes its
     * directory, whatever the driver's own shutdown left behind.
     *
     * @param driver        the driver, or null (then only the directory is deleted).
     * @param directoryName the driver's directory, or null.
     */
    public static void close(final AutoCloseable driver, final String directoryName)
    {
        CloseHelper.quietClose(driver);
        if (directoryName != null)
        {
            IoUtil.delete(new File(directoryName), true);
        }
    }
}
