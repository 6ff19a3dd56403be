package dev.offcache.core.media;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

import io.aeron.Aeron;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every embedded driver gets its own directory, which is gone after close and after a failed launch.
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
}
