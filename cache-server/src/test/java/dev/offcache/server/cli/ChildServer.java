package dev.offcache.server.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.offcache.testkit.jvm.ChildJvm;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The real {@code offcache-server} {@code main} in a child JVM whose temp dir is the test's, its merged stdout and
 * stderr (every line it printed and logged, with the built-in Logback configuration) read on a thread of its own.
 * The test owns the process.
 */
final class ChildServer
{
    private static final String API_KEY = "API key for this run: ";
    private static final Pattern LISTENING = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+) ");
    private static final Pattern S3_API = Pattern.compile("S3 API on http://127\\.0\\.0\\.1:(\\d+)");

    final Process process;
    private final List<String> lines = new ArrayList<>();
    private final Thread reader;

    private ChildServer(final Process process)
    {
        this.process = process;
        this.reader = new Thread(() ->
        {
            try (BufferedReader in = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)))
            {
                for (String line = in.readLine(); null != line; line = in.readLine())
                {
                    synchronized (lines)
                    {
                        lines.add(line);
                        lines.notifyAll();
                    }
                }
            }
            catch (final IOException ignored)
            {
                // the child is gone
            }
        }, "child-output");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts the program.
     *
     * @param tmp        the child's {@code java.io.tmpdir}.
     * @param jvmOptions its JVM options.
     * @param args       its arguments.
     * @return the running child.
     * @throws IOException when it cannot start.
     */
    static ChildServer launch(final Path tmp, final List<String> jvmOptions, final String... args) throws IOException
    {
        final List<String> options = new ArrayList<>(jvmOptions);
        options.add("-Djava.io.tmpdir=" + tmp);
        return new ChildServer(ChildJvm.launch(options, OffcacheServerCommand.class, args));
    }

    /** SIGTERM through the process handle: {@link Process#destroy()} would also close the pipe still being read. */
    void terminate()
    {
        process.toHandle().destroy();
    }

    int exit() throws InterruptedException
    {
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the program should exit");
        reader.join(10_000);
        return process.exitValue();
    }

    List<String> output()
    {
        synchronized (lines)
        {
            return List.copyOf(lines);
        }
    }

    /** The API key the embedded default printed (call after {@link #port()}). */
    String apiKey()
    {
        for (final String line : output())
        {
            if (line.startsWith(API_KEY))
            {
                return line.substring(API_KEY.length()).trim();
            }
        }
        throw new AssertionError("no API key line: " + output());
    }

    /**
     * Waits until a printed line matches, or the child dies.
     *
     * @param what      the condition on one line.
     * @param timeoutMs how long to wait.
     * @return the first line that matched.
     * @throws InterruptedException when interrupted.
     */
    String await(final Predicate<String> what, final long timeoutMs) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        synchronized (lines)
        {
            while (System.nanoTime() < deadline)
            {
                for (final String line : lines)
                {
                    if (what.test(line))
                    {
                        return line;
                    }
                }
                assertTrue(process.isAlive(), () -> "the program died: " + String.join("\n", lines));
                lines.wait(50);
            }
        }
        throw new AssertionError("no such line in time: " + String.join("\n", output()));
    }

    /** Waits for the lines that name the bound port and the API key of the embedded default; returns the port. */
    int port() throws InterruptedException
    {
        // the key is printed after the address: once it is there, both are
        await((line) -> line.startsWith(API_KEY), 60_000);
        return portOf(LISTENING);
    }

    /** Waits for the line that names the bound port (any origin); returns the port. */
    int listeningPort() throws InterruptedException
    {
        await((line) -> LISTENING.matcher(line).find(), 60_000);
        return portOf(LISTENING);
    }

    /** Waits for the line that names the S3 API's port; the port. */
    int s3Port() throws InterruptedException
    {
        await((line) -> S3_API.matcher(line).find(), 60_000);
        return portOf(S3_API);
    }

    private int portOf(final Pattern pattern)
    {
        for (final String line : output())
        {
            final Matcher matcher = pattern.matcher(line);
            if (matcher.find())
            {
                return Integer.parseInt(matcher.group(1));
            }
        }
        throw new AssertionError("no port line: " + output());
    }
}
