package dev.offcache.core.media;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import org.agrona.CloseHelper;
import org.agrona.IoUtil;
import org.agrona.concurrent.IdleStrategy;

/**
 * The one place offcache makes embedded media drivers: {@link AeronMedia} (transport), the registry's cluster client
 * and its cluster member all take their driver context from {@link #context}, launch it with {@link #launch} and
 * stop it with {@link #close}. Every such driver runs in its own directory, recreated at start and deleted on
 * close (also when the launch fails), with sparse term files and the same idle strategy on every agent.
 */
public final class EmbeddedDrivers
{
    /** Prefix of embedded driver directories, so stale ones (from killed JVMs) are easy to find and delete. */
    public static final String DIR_PREFIX = "aeron-offcache-";

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
        final Path shm = Paths.get("/dev/shm");
        final Path base = Files.isDirectory(shm) ? shm : Paths.get(System.getProperty("java.io.tmpdir"));
        final String name = DIR_PREFIX + ProcessHandle.current().pid() + "-" +
            Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 16);
        return base.resolve(name).toString();
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
