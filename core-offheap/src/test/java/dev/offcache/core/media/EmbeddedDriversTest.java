package dev.offcache.core.media;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;

import io.aeron.Aeron;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every embedded driver gets its own directory, which is gone after close and after a failed launch; directories
 * that killed JVMs left are swept, and no other.
 */
class EmbeddedDriversTest
{
    @Test
    void eachDriverHasItsOwnDirectoryDeletedOnClose()
    {
        final String first = EmbeddedDrivers.uniqueDirectoryName();
        final String second = EmbeddedDrivers.uniqueDirectoryName();
        assertNotEquals(first, second);
        assertTrue(Paths.get(first).getFileName().toString()
            .startsWith(EmbeddedDrivers.DIR_PREFIX + ProcessHandle.current().pid() + "-"), first);

        final MediaDriver driver = EmbeddedDrivers.launch(
            EmbeddedDrivers.context(first, ThreadingMode.SHARED, BackoffIdleStrategy::new));
        final Path dir = Paths.get(driver.aeronDirectoryName());
        try (Aeron aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(first)))
        {
            assertEquals(first, dir.toString());
            assertTrue(Files.isRegularFile(dir.resolve("cnc.dat")), "a client connected through " + dir);
            assertTrue(aeron.clientId() >= 0);
        }
        finally
        {
            EmbeddedDrivers.close(driver, driver.aeronDirectoryName());
        }
        assertFalse(Files.exists(dir), dir + " deleted on close");
    }

    @Test
    void aFailedLaunchLeavesNoDirectory()
    {
        final String name = EmbeddedDrivers.uniqueDirectoryName();
        final MediaDriver.Context ctx = EmbeddedDrivers.context(name, ThreadingMode.SHARED, BusySpinIdleStrategy::new)
            .ipcTermBufferLength(3 * 1024 * 1024); // not a power of two: refused while the driver starts
        assertThrows(IllegalStateException.class, () -> EmbeddedDrivers.launch(ctx));
        assertFalse(Files.exists(Paths.get(name)), name + " deleted after the failed launch");
    }

    @Test
    void sweepDeletesOnlyDirectoriesOfGoneProcessesWhoseDriverIsNotRunning(@TempDir final Path base)
        throws IOException, InterruptedException
    {
        final long dead = deadPid();
        final Path stale = Files.createDirectory(base.resolve(EmbeddedDrivers.DIR_PREFIX + dead + "-aa"));
        Files.write(stale.resolve("loss-report.dat"), new byte[4096]);
        final Path own = Files.createDirectory(
            base.resolve(EmbeddedDrivers.DIR_PREFIX + ProcessHandle.current().pid() + "-bb"));
        final Path notAPid = Files.createDirectory(base.resolve(EmbeddedDrivers.DIR_PREFIX + "x1-cc"));
        final Path aFile = Files.createFile(base.resolve(EmbeddedDrivers.DIR_PREFIX + dead + "-dd"));
        final Path other = Files.createDirectory(base.resolve("aeron-someone-else-" + dead));
        final Process alive = new ProcessBuilder("sleep", "60").start();
        final Path living = Files.createDirectory(base.resolve(EmbeddedDrivers.DIR_PREFIX + alive.pid() + "-ee"));
        // A running driver in a directory whose name has a dead pid (another pid namespace, say): kept.
        final String beating = base.resolve(EmbeddedDrivers.DIR_PREFIX + dead + "-ff").toString();
        final MediaDriver driver = MediaDriver.launch(
            EmbeddedDrivers.context(beating, ThreadingMode.SHARED, BackoffIdleStrategy::new));
        try
        {
            assertEquals(1, EmbeddedDrivers.sweepStale(base));
            assertFalse(Files.exists(stale), stale + " deleted");
            for (final Path kept : new Path[] {own, notAPid, aFile, other, living, Paths.get(beating)})
            {
                assertTrue(Files.exists(kept), kept + " kept");
            }
        }
        finally
        {
            EmbeddedDrivers.close(driver, beating);
            alive.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aLaunchSweepsItsBaseDirectoryFirst(@TempDir final Path base) throws IOException, InterruptedException
    {
        final Path stale = Files.createDirectory(base.resolve(EmbeddedDrivers.DIR_PREFIX + deadPid() + "-aa"));
        final String name = base.resolve(EmbeddedDrivers.DIR_PREFIX + ProcessHandle.current().pid() + "-bb")
            .toString();
        final MediaDriver driver = EmbeddedDrivers.launch(
            EmbeddedDrivers.context(name, ThreadingMode.SHARED, BackoffIdleStrategy::new));
        try
        {
            assertFalse(Files.exists(stale), stale + " swept by the launch");
            assertTrue(Files.isRegularFile(Paths.get(name, "cnc.dat")));
        }
        finally
        {
            EmbeddedDrivers.close(driver, name);
        }
    }

    /** The pid of a process that has exited (its pid not yet reused: pids cycle through tens of thousands). */
    private static long deadPid() throws IOException, InterruptedException
    {
        final Process process = new ProcessBuilder("true").start();
        assertTrue(process.waitFor(10, TimeUnit.SECONDS));
        assertFalse(ProcessHandle.of(process.pid()).map(ProcessHandle::isAlive).orElse(false));
        return process.pid();
    }
}
