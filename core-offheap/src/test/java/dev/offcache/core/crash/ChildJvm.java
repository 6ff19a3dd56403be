package dev.offcache.core.crash;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Runs a main class in a child JVM (same class path, the build's {@code offcache.jvm.flags}): {@link #command} is
 * its command line; {@link #runAndKill} reads the lines it prints until a condition holds, waits a little longer,
 * then kills it with SIGKILL: a crash at an arbitrary point of its work (lines printed before the death are all
 * returned); {@link #runToExit} lets it run to its exit.
 */
public final class ChildJvm
{
    private ChildJvm()
    {
    }

    /**
     * The command line of a child JVM running {@code mainClass} with this build's flags and class path.
     *
     * @param mainClass the class whose {@code main} runs.
     * @param args      its arguments.
     * @return a new, mutable list.
     */
    public static List<String> command(final Class<?> mainClass, final String... args)
    {
        return command(mainClass, List.of(), args);
    }

    /**
     * The command line of a child JVM running {@code mainClass} with this build's flags, {@code jvmArgs} and the
     * class path.
     *
     * @param mainClass the class whose {@code main} runs.
     * @param jvmArgs   extra JVM options (system properties, say), after the build's flags.
     * @param args      its arguments.
     * @return a new, mutable list.
     */
    public static List<String> command(final Class<?> mainClass, final List<String> jvmArgs, final String... args)
    {
        final String flags = System.getProperty("offcache.jvm.flags");
        if (flags == null || flags.isBlank())
        {
            throw new IllegalStateException("offcache.jvm.flags is not set: run through Maven (core-offheap/pom.xml)");
        }
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(Arrays.asList(flags.trim().split("\\s+")));
        command.add("-Xmx64m");
        command.addAll(jvmArgs);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(Arrays.asList(args));
        return command;
    }

    /**
     * Runs a main class to its exit.
     *
     * @param mainClass the class whose {@code main} runs.
     * @param jvmArgs   extra JVM options (system properties, say), after the build's flags.
     * @param timeoutMs how long it may take; it is killed after that.
     * @param args      its arguments.
     * @return its exit code and every line it printed on standard output.
     * @throws IOException          if it cannot be started or read.
     * @throws InterruptedException if interrupted while waiting.
     */
    public static Exit runToExit(
        final Class<?> mainClass, final List<String> jvmArgs, final long timeoutMs, final String... args)
        throws IOException, InterruptedException
    {
        final List<String> command = command(mainClass, jvmArgs, args);
        final Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try
        {
            final List<String> lines = new ArrayList<>();
            try (BufferedReader out = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII)))
            {
                String line;
                while ((line = out.readLine()) != null)
                {
                    lines.add(line);
                }
            }
            if (!process.waitFor(timeoutMs, TimeUnit.MILLISECONDS))
            {
                throw new IllegalStateException("child JVM did not exit in " + timeoutMs + " ms: " + lines);
            }
            return new Exit(process.exitValue(), lines);
        }
        finally
        {
            process.destroyForcibly();
        }
    }

    /**
     * How a child JVM ended.
     *
     * @param code  its exit code.
     * @param lines what it printed on standard output.
     */
    public record Exit(int code, List<String> lines)
    {
    }

    static List<String> runAndKill(
        final Class<?> mainClass,
        final Path dir,
        final Predicate<List<String>> killWhen,
        final long killDelayMs,
        final long timeoutMs)
        throws IOException, InterruptedException
    {
        final Process process = new ProcessBuilder(command(mainClass, dir.toString()))
            .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        final List<String> lines = new ArrayList<>();
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        try (BufferedReader out = new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII)))
        {
            String line;
            while (System.nanoTime() < deadline && (line = out.readLine()) != null)
            {
                lines.add(line);
                if (killWhen.test(lines))
                {
                    break;
                }
            }
            // Let the child get into the middle of its next piece of work.
            Thread.sleep(killDelayMs);
            // SIGKILL through the handle: Process.destroyForcibly would also close the pipe we still read.
            process.toHandle().destroyForcibly();
            if (!process.waitFor(10, TimeUnit.SECONDS))
            {
                throw new IllegalStateException("child JVM did not die");
            }
            // What the child printed before it died was acknowledged too.
            while ((line = out.readLine()) != null)
            {
                lines.add(line);
            }
        }
        finally
        {
            process.destroyForcibly();
        }
        if (System.nanoTime() >= deadline)
        {
            throw new IllegalStateException("child JVM made too little progress in " + timeoutMs + " ms: " + lines);
        }
        return lines;
    }
}
