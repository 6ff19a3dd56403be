package dev.offcache.testkit.jvm;

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
 * A test class's {@code main} in a child JVM, for crash, kill and process tests: this JVM's {@code java}, the
 * build's JVM flags (the {@code offcache.jvm.flags} system property each module's Surefire sets; never retyped),
 * a 128 MiB heap unless the caller's options say otherwise, the caller's options, and this JVM's class path. The
 * caller owns every process it starts here.
 */
public final class ChildJvm
{
    private ChildJvm()
    {
    }

    /**
     * The command line.
     *
     * @param jvmOptions options after the build's flags and the default heap (a later {@code -Xmx} wins).
     * @param mainClass  the class whose {@code main} runs.
     * @param args       its arguments.
     * @return a new, mutable list.
     * @throws IllegalStateException when {@code offcache.jvm.flags} is not set (not run through Maven).
     */
    public static List<String> command(final List<String> jvmOptions, final Class<?> mainClass, final String... args)
    {
        final String flags = System.getProperty("offcache.jvm.flags");
        if (flags == null || flags.isBlank())
        {
            throw new IllegalStateException("offcache.jvm.flags is not set: run the test through Maven (Surefire's " +
                "systemPropertyVariables in the module's pom.xml)");
        }
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(Arrays.asList(flags.trim().split("\\s+")));
        command.add("-Xmx128m");
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(Arrays.asList(args));
        return command;
    }

    /**
     * Starts a child JVM with its stderr merged into its stdout (the caller reads or drains it) and none of this
     * process's {@code OFFCACHE_*} variables, so a program under test sees only its arguments.
     *
     * @param jvmOptions options after the build's flags, e.g. {@code -Xmx64m}.
     * @param mainClass  the class whose {@code main} runs.
     * @param args       its arguments.
     * @return the running process.
     * @throws IOException when it cannot be started.
     */
    public static Process launch(final List<String> jvmOptions, final Class<?> mainClass, final String... args)
        throws IOException
    {
        final ProcessBuilder builder = new ProcessBuilder(command(jvmOptions, mainClass, args))
            .redirectErrorStream(true);
        builder.environment().keySet().removeIf((name) -> name.startsWith("OFFCACHE_"));
        return builder.start();
    }

    /**
     * Runs a child JVM to its exit (stderr goes to this process's).
     *
     * @param jvmOptions options after the build's flags.
     * @param mainClass  the class whose {@code main} runs.
     * @param timeoutMs  how long it may take; it is killed after that.
     * @param args       its arguments.
     * @return its exit code and every line it printed on standard output.
     * @throws IOException          if it cannot be started or read.
     * @throws InterruptedException if interrupted while waiting.
     */
    public static Exit runToExit(
        final List<String> jvmOptions, final Class<?> mainClass, final long timeoutMs, final String... args)
        throws IOException, InterruptedException
    {
        final Process process = new ProcessBuilder(command(jvmOptions, mainClass, args))
            .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try
        {
            final List<String> lines = new ArrayList<>();
            try (BufferedReader out = reader(process))
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
     * Runs a child JVM, reads the lines it prints until {@code killWhen} holds, lets it work {@code killDelayMs}
     * longer, then kills it with SIGKILL: a crash at an arbitrary point of its work.
     *
     * @param jvmOptions  options after the build's flags.
     * @param mainClass   the class whose {@code main} runs.
     * @param killWhen    tested on the lines so far after each line.
     * @param killDelayMs how long it runs on after the condition held.
     * @param timeoutMs   how long it may take to reach the condition.
     * @param args        its arguments.
     * @return every line it printed, including those printed before it died.
     * @throws IOException          if it cannot be started or read.
     * @throws InterruptedException if interrupted while waiting.
     * @throws IllegalStateException if the condition did not hold in time or the child did not die.
     */
    public static List<String> runAndKill(
        final List<String> jvmOptions,
        final Class<?> mainClass,
        final Predicate<List<String>> killWhen,
        final long killDelayMs,
        final long timeoutMs,
        final String... args)
        throws IOException, InterruptedException
    {
        final Process process = new ProcessBuilder(command(jvmOptions, mainClass, args))
            .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        final List<String> lines = new ArrayList<>();
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        try (BufferedReader out = reader(process))
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

    private static BufferedReader reader(final Process process)
    {
        return new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII));
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
}
