package dev.offcache.tools.registry;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.testkit.jvm.ChildJvm;
import dev.offcache.testkit.net.LoopbackPorts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@code offcache-registry member} in a child JVM with the tools' class path (a one-member cluster on 127.0.0.1, then
 * SIGTERM): its log lines are in offcache-server's TEXT format ({@code logback-text.xml}: UTC timestamp with
 * milliseconds and {@code Z}, level padded to five, thread in brackets, logger, message), all on stderr, and stdout
 * stays empty (it is for the tools' answers).
 */
class MemberLogFormatTest
{
    /** The server's TEXT line: {@code %d{yyyy-MM-dd'T'HH:mm:ss.SSS'Z',UTC} %-5level [%thread] %logger{36} - %msg}. */
    private static final Pattern EXCEPTION_LINE = Pattern.compile("([a-z][\\w$]*\\.)+[A-Z][\\w$]*(: .*)?");
    private static final Pattern SERVER_LINE = Pattern.compile("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z " +
        "(TRACE|DEBUG|INFO |WARN |ERROR) \\[([^\\]]+)] (\\S{1,36}) - (.*)");

    @TempDir
    Path dir;

    @Test
    @Timeout(120)
    void theMembersLinesAreTheServersTextFormatOnStderr() throws Exception
    {
        final Path out = dir.resolve("member.out");
        final Path err = dir.resolve("member.err");
        final Path memberDir = dir.resolve("member-0");
        final Process process = start(out, err, memberDir);
        try
        {
            final Process kill = new ProcessBuilder("kill", "-TERM", Long.toString(process.pid())).start();
            assertEquals(0, kill.waitFor());
            assertTrue(process.waitFor(30, TimeUnit.SECONDS), "the member exits on SIGTERM: " + Files.readString(err));
            assertEquals(143, process.exitValue(), Files.readString(err));
        }
        finally
        {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }

        assertEquals("", Files.readString(out), "stdout keeps only answers");
        final List<String> lines = Files.readAllLines(err);
        assertEquals(List.of(
            "INFO |main|registry cluster member 0 running in " + memberDir,
            "INFO |main|registry cluster member 0 stopping on a signal"),
            lines.stream()
                .filter((line) -> line.contains("registry cluster member 0 "))
                .map((line) -> line.matches(SERVER_LINE.pattern()) ? fields(line) : "not the server's format: " + line)
                .toList());
        for (final String line : lines)
        {
            // a logged exception continues its line with the exception's own lines (its name first)
            assertTrue(SERVER_LINE.matcher(line).matches() || line.startsWith("\tat ") || line.startsWith("\t... ") ||
                line.startsWith("Caused by") || EXCEPTION_LINE.matcher(line).matches(),
                "every line is the server's format (or a stack trace under one): " + line);
        }
    }

    /**
     * The member, running ({@code running in} logged); on another port base when the machine's other tests held one
     * of its ports (the member exits on "Address already in use").
     */
    private static Process start(final Path out, final Path err, final Path memberDir) throws Exception
    {
        for (int attempt = 1; ; attempt++)
        {
            final List<String> command = ChildJvm.command(List.of("-XX:TieredStopAtLevel=1",
                "-Daeron.dir=/dev/shm/aeron-offcache-tools-log-test-" + Long.toHexString(System.nanoTime())),
                RegistryCommand.class, "member", "0", "127.0.0.1", memberDir.toString(),
                "--port-base", Integer.toString(LoopbackPorts.randomBase(100)));
            final Process process = new ProcessBuilder(command).redirectOutput(out.toFile())
                .redirectError(err.toFile()).start();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!Files.readString(err).contains("running in"))
            {
                if (!process.isAlive() && attempt < 3 && Files.readString(err).contains("Address already in use"))
                {
                    break;
                }
                if (!process.isAlive() || System.nanoTime() - deadline > 0)
                {
                    process.destroyForcibly();
                    fail("the member did not start: " + Files.readString(err));
                }
                Thread.sleep(20);
            }
            if (process.isAlive())
            {
                return process;
            }
        }
    }

    private static String fields(final String line)
    {
        final Matcher matcher = SERVER_LINE.matcher(line);
        assertTrue(matcher.matches(), line);
        assertTrue(matcher.group(3).endsWith("RegistryClusterMember"), "the logger, abbreviated to 36: " + line);
        return matcher.group(1) + "|" + matcher.group(2) + "|" + matcher.group(4);
    }
}
