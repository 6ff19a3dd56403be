package dev.offcache.registry.clustered;

import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;


import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.offcache.testkit.jvm.ChildJvm;

/**
 * {@code RegistryClusterMember.main} in a child JVM (a one-member cluster on 127.0.0.1) and a real signal: SIGTERM
 * and SIGINT each make it close the member and exit (the signal's exit status), releasing its lock and deleting its
 * embedded driver's directory, instead of hanging in Agrona's shutdown hook.
 */
class MemberSignalTest
{
    private static final Duration START = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource({"TERM, 15", "INT, 2"})
    @Timeout(120)
    void theMemberExitsOnASignal(final String signal, final int number) throws Exception
    {
        // A build started as a background job without job control ignores SIGINT, and so does every process it
        // starts (an ignored signal stays ignored across exec; the JVM installs no handler for it): the member could
        // not see the signal this test sends.
        assumeFalse(ignored(number), "SIG" + signal + " is ignored by this build's process (a background job)");
        final String aeronDir = "/dev/shm/aeron-offcache-signal-test-" + Long.toHexString(System.nanoTime());
        final Path memberDir = dir.resolve("member");
        final Path log = dir.resolve("member.log");
        final List<String> command = ChildJvm.command(List.of("-XX:TieredStopAtLevel=1", "-Daeron.dir=" + aeronDir),
            RegistryClusterMember.class, "0", "127.0.0.1", memberDir.toString(),
            Integer.toString(ClusterFixture.randomPortBase()));
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile())
            .start();
        try
        {
            final long deadline = System.nanoTime() + START.toNanos();
            while (!Files.exists(log) || !Files.readString(log).contains("running in"))
            {
                if (!process.isAlive() || System.nanoTime() - deadline > 0)
                {
                    fail("the member did not start: " + (Files.exists(log) ? Files.readString(log) : "no output"));
                }
                Thread.sleep(20);
            }
            final Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).start();
            assertEquals(0, kill.waitFor());

            assertTrue(process.waitFor(30, TimeUnit.SECONDS), "the member exits on SIG" + signal + ": " +
                Files.readString(log));
            assertEquals(128 + number, process.exitValue(), Files.readString(log));
            final String output = Files.readString(log);
            assertTrue(output.contains("stopping on a signal"), output);
            assertFalse(output.contains("ShutdownSignalBarrier"), "no wait on an unclosed barrier: " + output);
            assertFalse(Files.exists(Path.of(aeronDir + "-offcache-registry-0")), "embedded driver dir deleted");
            try (FileChannel channel = FileChannel.open(memberDir.resolve("member.lock"), StandardOpenOption.WRITE);
                FileLock lock = channel.tryLock())
            {
                assertNotNull(lock, "member.lock released");
            }
        }
        finally
        {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** Whether this JVM's process ignores a signal (Linux's {@code SigIgn} mask; false where it cannot be read). */
    private static boolean ignored(final int signal) throws java.io.IOException
    {
        final Path status = Path.of("/proc/self/status");
        if (!Files.isReadable(status))
        {
            return false;
        }
        for (final String line : Files.readAllLines(status))
        {
            if (line.startsWith("SigIgn:"))
            {
                final long mask = Long.parseUnsignedLong(line.substring("SigIgn:".length()).trim(), 16);
                return (mask >>> (signal - 1) & 1) != 0;
            }
        }
        return false;
    }
}
